import type { MergeQueues } from "../core/merge-queue.js";
import type { QueueEvent } from "../core/queue.js";
import type {
  FlakeShieldSetting,
  NoticePreferences,
  OAuthState,
  PauseAttribution,
  RelayAnswerComment,
  RelayRecord,
  ScheduledUnpause,
  Subscription,
} from "../core/records.js";
import type { SetupCheck } from "../doctor/report.js";
import type { FreezePorts } from "../freezes/types.js";
import type { Repo } from "../repo.js";
import type { PermissionLevel } from "./permission-level.js";

/**
 * What the command core needs from the world, in the core's own terms. The core owns these
 * interfaces: src/github, src/backends and the store implement them, and src/app/create-app.ts wires
 * them in, so nothing in src/commands imports a surface or the store (.dependency-cruiser.cjs).
 * Permission levels are the core's too (permission-level.ts); the records the ports take and return
 * are in src/core/records.ts.
 */

/** Asks GitHub what a login may do on a repository, at the time of asking. */
export type PermissionLookup = (repo: Repo, login: string) => Promise<PermissionLevel>;

export interface PullRequestInfo {
  number: number;
  title: string;
  url: string;
  state: "open" | "closed";
  merged: boolean;
  baseRef: string;
  headSha: string;
  author: { login: string; id: number };
}

/** GitHub, whichever surface the command came from (the webhook's installation, or looked up). */
export interface GitHubGateway {
  permission: PermissionLookup;
  /** null when the number is not a pull request of the repository. */
  pullRequest(repo: Repo, number: number): Promise<PullRequestInfo | null>;
  comment(repo: Repo, issueNumber: number, body: string): Promise<{ id: number; url: string }>;
}

/**
 * What `stats` keeps of each finished UTC day of a repository's log ("2026-11-20"), so that a day is
 * read from the log once: JSON the stats reader wrote (it checks what it reads back).
 */
export interface StatsDays {
  get(repo: Repo, days: readonly string[]): Promise<Map<string, unknown>>;
  put(repo: Repo, day: string, facts: unknown): Promise<void>;
}

export type Clock = () => Date;

/** Where timed pauses' ends are kept. */
export interface UnpauseSchedule {
  /** The clock the schedule runs on: a pause's end is reckoned from it (tests move it). */
  now: Clock;
  /** Sets the repository's scheduled unpause, replacing any. */
  put(unpause: ScheduledUnpause): Promise<void>;
  /** Cancels it; true when there was one. */
  cancel(repository: Repo): Promise<boolean>;
}

/** What the runner of scheduled unpauses needs of the store (src/timed-pauses/runner.ts). */
export interface ScheduledUnpauseClaims {
  /**
   * Claims up to `limit` scheduled unpauses whose time has come (`resumesAt <= now`) and that no live
   * replica claims: each is `owner`'s until `now + leaseMs`, soonest first. One statement (PostgreSQL
   * skips the rows another replica is claiming): of two concurrent claims, each row goes to one.
   */
  claimScheduledUnpauses(claim: {
    owner: string;
    now: Date;
    leaseMs: number;
    limit: number;
  }): Promise<ScheduledUnpause[]>;
  /** Extends `owner`'s claim; false when the row is gone, replaced, or claimed by another since. */
  renewScheduledUnpauseClaim(repository: Repo, owner: string, until: Date): Promise<boolean>;
  /** Removes the row if `owner` still claims it (done, or nothing to do); false otherwise. */
  finishScheduledUnpause(repository: Repo, owner: string): Promise<boolean>;
}

/** What following relays keeps in the store (one row per relay, shared by the replicas). */
export interface RelayStore {
  createRelay(
    relay: Omit<RelayRecord, "presentation" | "answer" | "answerVersion" | "appliedVersion" | "superseded">,
  ): Promise<void>;
  updateRelay(id: string, relay: unknown): Promise<void>;
  deleteRelay(id: string): Promise<void>;
  getRelay(id: string): Promise<RelayRecord | null>;
  /**
   * Records a merge-queue bot comment as the answer of the relay it answers: the relay it already
   * answers (an edit), else the earliest relay on that pull request, relayed before the comment was
   * created and still followed, without an answer yet, whose command is the one the comment quotes (any,
   * when it quotes none). A version older than the one recorded changes nothing. Returns the relay when
   * this answer is new, else null.
   */
  recordRelayAnswer(answer: RelayAnswerComment): Promise<RelayRecord | null>;
  /** The surface answered: its presentation, kept to answer there again. */
  presentRelay(id: string, presentation: unknown): Promise<void>;
  /** A later command answered on this thread: the relays already presented there are not shown again. */
  supersedeRelays(repository: Repo, pull: number, surface: "github" | "slack"): Promise<void>;
  /**
   * Takes the lease on showing a relay's latest answer: only for a presented, not superseded relay whose
   * answer version is not shown yet, and whose lease is free or lapsed. Returns the relay, or null.
   */
  claimRelayAnswer(id: string, owner: string, now: Date, leaseMs: number): Promise<RelayRecord | null>;
  /** Ends the lease; `appliedVersion` (when given) is the version now shown. */
  releaseRelayAnswer(id: string, owner: string, appliedVersion: number | null): Promise<void>;
  /** Relays with an answer not shown yet and no live lease, still followed, oldest first. */
  listUnappliedRelays(now: Date, limit: number): Promise<RelayRecord[]>;
}

/** What the Slack-only account commands keep: subscriptions, sign-in states and identity links. */
export interface AccountStore {
  /** Every subscribed repository, of every channel (`/mq doctor` asks who is an admin of one). */
  listSubscribedRepositories(): Promise<Repo[]>;
  /** Upsert per (channel, repository); `created` is false when an existing one was updated. */
  putSubscription(subscription: Subscription): Promise<{ created: boolean }>;
  /** True when a subscription was removed. */
  deleteSubscription(channelId: string, repository: Repo): Promise<boolean>;
  listSubscriptions(filter: { channelId: string }): Promise<Subscription[]>;
  createOAuthState(state: OAuthState): Promise<void>;
  getLink(teamId: string, slackUserId: string): Promise<{ githubLogin: string } | null>;
  /** True when a link was removed. */
  deleteLink(teamId: string, slackUserId: string): Promise<boolean>;
  /** null: never set (the defaults apply). */
  getNoticePreferences(teamId: string, slackUserId: string): Promise<NoticePreferences | null>;
  /** Upsert on (teamId, slackUserId). */
  putNoticePreferences(preferences: NoticePreferences): Promise<void>;
}

export interface AccountPorts {
  store: AccountStore;
  /** The GitHub sign-in URL for a state, or null when identity linking is off. */
  loginUrl: ((state: string) => string) | null;
}

/** Where a repository's queue events of a stretch come from (merges, leaves, pauses at least). */
export type StatsEvents = (repo: Repo, range: { from: Date; to: Date }) => AsyncIterable<QueueEvent>;

/**
 * A command's outside effects, each made once across the runs of one command (docs/architecture.md,
 * "A command's path"): a comment command whose replica died is run again by another, which must not
 * post the relayed comment a second time. Each step is recorded as done, with what it made (JSON).
 */
export interface CommandSteps {
  /**
   * What `step` made when a run of this command made it before; otherwise makes it, records it as done
   * and returns it. A `make` that throws records nothing (a later run makes it again).
   */
  once<T>(step: string, make: () => Promise<T>): Promise<T>;
}

/** What the flake shield did in a stretch (src/shield/figures.ts), as `stats` shows it. */
export interface ShieldFigures {
  /** Whether it is on for the repository now. */
  on: boolean;
  /** Pull requests it queued again in the stretch. */
  requeued: number;
  /** Of those, how many then merged. */
  merged: number;
}

/** The flake shield (src/shield): its setting per repository, and what it did (docs/notifications.md). */
export interface FlakeShieldPorts {
  /** The repository's setting; null when never set (off). */
  get(repo: Repo): Promise<FlakeShieldSetting | null>;
  /** Sets it; returns the setting it replaced (null: none). */
  set(setting: FlakeShieldSetting): Promise<FlakeShieldSetting | null>;
  /** What it did in a stretch, for `stats`. */
  figures(repo: Repo, period: { from: Date; to: Date }): Promise<ShieldFigures>;
  /** Whether some channel subscribes to the repository: the shield acts only on removals it hears of. */
  heard(repo: Repo): Promise<boolean>;
}

/** Everything a command may call while it runs. */
export interface Ports {
  github: GitHubGateway;
  /** The merge queue serving a repository's branch, in the core's terms (src/core/merge-queue.ts). */
  queues: MergeQueues;
  /** How relayed commands are addressed (MERGE_QUEUE_COMMAND_PREFIX). */
  commandPrefix: string;
  /** Best effort: remembers who paused or unpaused. */
  attributePause?: (attribution: PauseAttribution) => Promise<void>;
  /**
   * Following relayed commands until the merge queue answers (RELAY_FOLLOW_SECONDS); absent: a relay
   * is reported as read right after it, and nothing follows it.
   */
  relayFollow?: { store: RelayStore; seconds: number };
  /**
   * Best effort: remembers who dequeued a pull request from GitHub's merge queue through Yardmaster
   * (GitHub's webhook names only the app's bot), for the removal's notice.
   */
  attributeDequeue?: (repository: Repo, number: number, by: { login: string; at: Date }) => Promise<void>;
  /**
   * Best effort: remembers who asked Yardmaster to queue a pull request (the merge queue names only the
   * app's bot), for the direct messages of who queued it (docs/notifications.md, "Personal notices").
   */
  attributeQueue?: (repository: Repo, number: number, by: { login: string; at: Date }) => Promise<void>;
  /** Who last paused or unpaused through Yardmaster (status says who paused, and until when). */
  pauseAttribution?: (repository: Repo) => Promise<PauseAttribution | null>;
  /** Timed pauses' ends; a timed pause is refused where there is none. */
  unpauseSchedule?: UnpauseSchedule;
  /** A Slack user's time zone (an IANA name), in which their `until <time>` is read when they name none. */
  slackTimeZone?: (user: { teamId: string; userId: string }) => Promise<string | null>;
  /** Subscriptions and identity (Slack); absent where there is no Slack. */
  account?: AccountPorts;
  /** Finished days of queue statistics; absent, stats reads every day from the events. */
  statsDays?: StatsDays;
  /**
   * A repository's queue events of a stretch, for `stats`: Mergify's log, or for GitHub's merge queue the
   * history Yardmaster recorded (src/store/history.ts).
   */
  statsEvents?: StatsEvents;
  /** The setup check, for `/mq doctor`; absent where there is none (it is Slack only). */
  setup?: SetupCheck;
  /** Freeze windows (src/freezes); absent: the freeze commands say they are not available. */
  freezes?: FreezePorts;
  /** The queue's normal the health alerts judge on (src/health), for `stats`; absent: not shown. */
  queueNormal?: (repo: Repo) => Promise<QueueNormalFigures>;
  /** The flake shield; absent where it cannot act (it needs Slack's notifier and the GitHub App). */
  flakeShield?: FlakeShieldPorts;
  /** The steps this run of the command shares with earlier runs of it (a job taken over); absent: none. */
  steps?: CommandSteps;
  now?: Clock;
}

/** The p90s of a repository's recorded history of the last 7 days, and the alerts' thresholds (ms). */
export interface QueueNormalFigures {
  mergeGapP90: number | null;
  checksP90: number | null;
  stallAfterMs: number;
  slowAfterMs: number | null;
}

/** Counts commands by surface, command and outcome (yardmaster_commands_total). */
export interface CommandCounter {
  inc(labels: { surface: string; command: string; outcome: "success" | "refused" | "failed" }): void;
}

/** How long a command took, from its authorization to its outcome, in seconds. */
export interface CommandTimer {
  observe(seconds: number, labels: { surface: string; command: string }): void;
}
