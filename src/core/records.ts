import type { Repo } from "../repo.js";
import type { WallClock } from "../time-zone.js";

/**
 * The records Yardmaster keeps that the core speaks of: the commands' ports (src/commands/ports.ts) and
 * the features' ports on the store (record-ports.ts) take and return them, the store
 * (src/store/<concern>.ts) keeps them, and the features' workers read them back. One definition here, imported by each; a record only the store and its own worker use
 * (the outbox's, the poll schedule's, webhook jobs', ...) stays with its concern in src/store/.
 */

// Subscriptions and identity (the Slack-only account commands; src/store/subscriptions.ts, identities.ts).

export interface Subscription {
  channelId: string;
  teamId: string | null;
  repository: Repo;
  branchGlob: string | null;
  groups: string[];
  createdBy: string;
  createdAt: Date;
  /**
   * A weekly digest of the repository's queue health, posted on Monday at 09:00: absent when off.
   * Read back with `since`, when it was first asked for (a digest due before is not posted).
   */
  digest?: { cadence: "weekly"; since?: Date };
}

/**
 * A linked Slack user's personal notices (direct messages about their own pull requests): on or off,
 * which event groups, and repositories muted. Without a record, DEFAULT_NOTICE_PREFERENCES apply.
 */
export interface NoticePreferences {
  teamId: string;
  slackUserId: string;
  enabled: boolean;
  groups: string[];
  /** Repositories whose notices are muted, as given (compared by `Repo#key`). */
  mutedRepositories: Repo[];
  updatedAt: Date;
}

export interface OAuthState {
  state: string;
  teamId: string;
  slackUserId: string;
  channelId: string | null;
  responseUrl: string | null;
  expiresAt: Date;
  /**
   * Who signed in on GitHub: set on the state of the confirmation form the page after GitHub's sign-in
   * shows (src/identity/linking.ts), absent on a `/mq login` link's. The link is made only once confirmed.
   */
  signedIn?: { githubLogin: string; githubId: number };
}

// Pauses (src/store/pauses.ts).

/**
 * Who paused or unpaused through Yardmaster: the merge queue sees only the app's account, so its
 * pause events cannot say (the notifier reads this back).
 */
export interface PauseAttribution {
  repository: Repo;
  action: "pause" | "unpause";
  /** The reason given, for a pause. */
  reason: string | null;
  /** The GitHub login of the person who asked (or how the surface names them). */
  actor: string;
  surface: "github" | "slack";
  at: Date;
  /** For a timed pause: when it is to end by itself. */
  resumesAt?: Date | null;
  /** For an unpause: made by the schedule of a timed pause (the actor is who set it). */
  scheduled?: boolean;
}

/**
 * Whether the flake shield is on for a repository (docs/notifications.md, "The flake shield"), and who
 * last turned it on or off. A repository without one has it off.
 */
export interface FlakeShieldSetting {
  repository: Repo;
  enabled: boolean;
  /** The GitHub login of the person who asked (or how the surface names them). */
  changedBy: string;
  surface: "github" | "slack";
  changedAt: Date;
}

/** A timed pause's end (docs/commands.md, "Timed pauses"): the merge queue is unpaused then, by itself. */
export interface ScheduledUnpause {
  repository: Repo;
  /** The pause's reason: the queue is unpaused only if it is still paused for it. */
  reason: string;
  resumesAt: Date;
  /** Who paused (as attributions name them), and where. */
  scheduledBy: string;
  surface: "github" | "slack";
  createdAt: Date;
}

// Relays followed until the merge queue answers (src/store/relays.ts).

/** A comment of the merge-queue bot, created or edited, on a pull request. */
export interface MergeQueueComment {
  repository: Repo;
  pull: number;
  commentId: number;
  body: string;
  url: string;
  createdAt: Date;
  updatedAt: Date;
}

/** The merge queue's comment that may answer a relay, as GitHub delivered it (created or edited). */
export interface RelayAnswerComment extends MergeQueueComment {
  quotedCommand: string | null;
  now: Date;
}

/**
 * A relayed command Yardmaster follows until the merge queue answers it in the thread, for a bounded
 * time (docs/commands.md, "Following the merge queue's answer").
 */
export interface RelayRecord {
  id: string;
  repository: Repo;
  pull: number;
  /** The command word the merge queue was sent ("queue", "dequeue"). */
  commandName: string;
  surface: "github" | "slack";
  /** Just before the relay comment was posted: the answer comes after. */
  relayedAt: Date;
  /** Answers after this are not followed any more. */
  deadline: Date;
  /** The core's: what describing the relay again needs (relay-follow.ts). */
  relay: unknown;
  /** The surface's: where it answered, to answer there again; null until it has answered. */
  presentation: unknown;
  /** The merge-queue bot's answer comment, as last created or edited. */
  answer: { commentId: number; body: string; url: string; at: Date } | null;
  /** Counts the answer's versions recorded; `appliedVersion` is the one the surface shows. */
  answerVersion: number;
  appliedVersion: number;
  /** A later command's answer replaced this one's (the summary comment shows the latest command). */
  superseded: boolean;
}

// Freeze windows (src/freezes; src/store/freezes.ts). A window is written in wall-clock time in an IANA
// zone (src/freezes/schedule.ts reckons its occurrences).

/** A time of day, to the minute. */
export interface TimeOfDay {
  hour: number;
  minute: number;
}

/** Days of the week as JavaScript numbers them: 0 Sunday to 6 Saturday. */
export type Weekday = 0 | 1 | 2 | 3 | 4 | 5 | 6;

export type FreezeSchedule =
  /** Every week from a day and time to a day and time (which may be in the next week). */
  | { kind: "weekly"; start: TimeOfDay & { day: Weekday }; end: TimeOfDay & { day: Weekday } }
  /** Every day from a time to a time (the next day's when it is not later). */
  | { kind: "daily"; start: TimeOfDay; end: TimeOfDay }
  /** Once, between two wall-clock times. */
  | { kind: "once"; start: WallClock; end: WallClock };

/** A freeze window kept for a repository (docs/commands.md, "Freeze windows"). */
export interface Freeze {
  id: string;
  repository: Repo;
  /** Its number within the repository (1, 2, …), as `freezes` lists it and `unfreeze` takes it. */
  number: number;
  name: string;
  schedule: FreezeSchedule;
  /** The IANA zone its times are read in. */
  zone: string;
  /** Who set it (as pause attributions name people), and where. */
  createdBy: string;
  surface: "github" | "slack";
  createdAt: Date;
  /** Labels whose pull requests pass while a window holds the queue (`except label:…`); absent: none. */
  except?: readonly string[];
}

/** What happens to a window once: the notice before it, its pause, its resume. */
export type FreezeStep = "warn" | "start" | "end";

/**
 * Who made a freeze (its `createdBy` and `surface`), kept on its window's steps: the freeze may be removed
 * before a window in progress ends. Null on steps made before migration 34.
 */
export interface FreezeSetter {
  login: string;
  surface: "github" | "slack";
}

/** A window whose pause was applied (its start step done), to be ended at `endsAt`. */
export interface FreezeWindowToEnd {
  freezeId: string;
  repository: Repo;
  startsAt: Date;
  endsAt: Date;
  reason: string;
  /** Who made the freeze, as its start step keeps it; null when made before migration 34. */
  by: FreezeSetter | null;
}
