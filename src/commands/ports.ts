import type { GitHubGateway, PermissionLookup, PullRequestInfo } from "../core/github.js";
import type { MergeQueues } from "../core/merge-queue.js";
import type { RelayStore } from "../core/record-ports.js";
import type {
  FlakeShieldSetting,
  NoticePreferences,
  OAuthState,
  PauseAttribution,
  ScheduledUnpause,
  Subscription,
} from "../core/records.js";
import type { FreezePorts } from "../freezes/types.js";
import type { StatsDays, StatsEvents } from "../history/stats-reader.js";
import type { Repo } from "../repo.js";
import type { SetupCheck } from "./setup-report.js";

/**
 * What the command core needs from the world, in the core's own terms. The core owns these
 * interfaces: src/github, src/backends and the store implement them, and src/app/command-ports.ts
 * wires them in, so nothing in src/commands imports a surface, a backend or the store
 * (.dependency-cruiser.cjs). What the features and the backends share with the commands is in src/core:
 * GitHub as every part asks it (github.ts, re-exported here), permission levels (permission-level.ts),
 * the records the ports take and return (records.ts), and the ports on the store they share with a
 * feature (record-ports.ts: relays', timed pauses').
 */

export type { GitHubGateway, PermissionLookup, PullRequestInfo };

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

/**
 * A command's outside effects, each made once across the runs of one command (docs/architecture.md,
 * "A command's path"): a comment command whose replica died is run again by another, which must not
 * make what the first run made. Each step is recorded as done, with what it made (JSON); a step whose
 * result can be found again is recorded as begun before it is made, so that a run taking over a step
 * begun and not recorded looks for it (`find`) instead of making it again.
 */
export interface CommandSteps {
  /**
   * What `step` made when a run of this command made it before; otherwise makes it, records it as done
   * and returns it. A `make` that throws records nothing (a later run makes it again). With `find`, the
   * step is recorded as begun before `make`; a later run that finds it begun and not done calls `find`
   * first: what it finds (not null) is taken as made, and recorded.
   */
  once<T>(step: string, make: () => Promise<T>, find?: () => Promise<T | null>): Promise<T>;
  /**
   * The step's name in this run, the same in every run of the command and no other's: the hidden marker
   * of a comment it posts, the id of a record it makes.
   */
  key(step: string): string;
  /** Forgets that `step` was begun or done (what it made was undone): a later run makes it again. */
  forget(step: string): Promise<void>;
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
