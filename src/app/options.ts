import type { ProbotOctokit } from "probot";
import type { CallRecord } from "../backends/mergify/index.js";
import type { WriteLimits, WriteRetry } from "../github/github-writes.js";
import type { Logger } from "../logger.js";
import type { PostPace } from "../slack/slack-holds.js";

export interface YardmasterOptions {
  logger: Logger;
  /** Tests pass an Octokit with retries and throttling off. */
  Octokit?: typeof ProbotOctokit;
  /** Per-attempt timeout and retries of merge-queue calls (tests shorten them). */
  mergeQueueTimeoutMs?: number;
  mergeQueueRetries?: number;
  /** Tests: Bolt's bot identity (skips auth.test) and Web API retries. */
  slackBot?: { botId: string; botUserId: string; retries?: number };
  /** false: the poller does not run by itself (tests call `poller.tick()`). Default true. */
  autoPoll?: boolean;
  /**
   * Each channel's posts at Slack's pace (default SLACK_POST_PACE: a burst of 3, then one a second);
   * false: as fast as Slack answers (tests that tick the notifier by hand on a clock they move).
   */
  slackPace?: PostPace | false;
  /**
   * The clock of the merge queue's time: the notifier, timed pauses, digests, stats and the times answers
   * show ("in 2 h") run on it; default the system's (the benchmark and the end-to-end tests run it on the
   * merge-queue simulator's). What must follow the real time stays on the system clock (signatures,
   * tokens, rate limits, webhook deliveries' records): docs/architecture.md, "Time".
   */
  now?: () => Date;
  /** Tests: at most this long between the runner of durable work's looks (workSafetyMs), ms. */
  scheduledUnpauseIntervalMs?: number;
  /**
   * How often the runner of durable work (src/work) looks for work it was not told of (another replica's,
   * a claim that lapsed), ms, besides waking at the earliest due item; default 1 s, or the poll interval.
   */
  workSafetyMs?: number;
  /** Repositories the poller reads at once; default the Poller's. */
  pollConcurrency?: number;
  /** Sees every merge-queue HTTP attempt, besides the metrics (the benchmark counts them). */
  onMergeQueueCall?: (call: CallRecord) => void;
  /**
   * The GitHub surface's answers (src/github): the write queue's limits and retries (default GitHub's
   * figures), when 👀 is sent, when an answer GitHub answered 5xx is tried again. Tests run the same
   * rules faster.
   */
  githubAnswers?: {
    limits?: WriteLimits;
    retry?: Partial<WriteRetry>;
    seenAfterMs?: number;
    answerRetryDelayMs?: number;
    /** How long a replica's claim of a comment's job holds (the runner looks for lapsed ones: workSafetyMs). */
    jobLeaseMs?: number;
    /** How often the gate's held gates a resume left are swept, by one replica (default 15 s). */
    gateSweepMs?: number;
    /** The clock of the gates' claims and retries (default the real time, as GitHub's). */
    gateClaimsNow?: () => Date;
    /** The first delay before a gate GitHub refused is tried again (default 5 s), doubling. */
    gateRetryMs?: number;
  };
}
