import { createHash } from "node:crypto";
import type { GitHubQueueMemory } from "../commands/ports.js";
import type { Logger } from "../logger.js";
import type { LogEvent } from "../backends/mergify/index.js";
import { removalWords } from "../backends/mergify/removal-reasons.js";
import type { Metrics } from "../metrics.js";
import type { Repo } from "../repo.js";
import type { Subscription } from "../store/index.js";
import { type DispatchDeps, dispatchEvent } from "./dispatch.js";

/**
 * What GitHub's own merge queue did, as its webhooks say it (src/github/queue-webhooks.ts reads them):
 * a pull request entered the queue (`pull_request` `enqueued`), was removed (`dequeued`, with GitHub's
 * reason), merged (`closed` and merged), or GitHub built or dropped the merge group that tests it
 * (`merge_group` `checks_requested` / `destroyed`).
 */
export type QueueHappening =
  | { kind: "entered"; repository: Repo; number: number; baseRef: string }
  | { kind: "removed"; repository: Repo; number: number; baseRef: string; reason: string; by: string }
  | { kind: "merged"; repository: Repo; number: number; baseRef: string; mergeCommitSha: string | null }
  | { kind: "group-built"; repository: Repo; number: number; baseRef: string; sha: string }
  | {
      kind: "group-gone";
      repository: Repo;
      number: number;
      baseRef: string;
      sha: string;
      reason: "merged" | "invalidated" | "dequeued" | null;
    };

/** A check run that did not succeed, with its page on GitHub. */
export interface FailedCheck {
  name: string;
  conclusion: string;
  url: string;
}

export interface PushedNoticesDeps extends DispatchDeps {
  memory: GitHubQueueMemory;
  subscriptions: (repository: Repo) => Promise<Subscription[]>;
  /** The check runs of a commit that did not succeed (GitHub's checks API, as the installation). */
  failedChecks: (repository: Repo, sha: string) => Promise<FailedCheck[]>;
  /** Posts what is pending in the outbox (the poller's delivery). */
  deliver: () => Promise<unknown>;
  /** Counts a delivery started in the background until it settles (the graceful stop waits for it). */
  track?: (work: Promise<unknown>) => void;
  /** The app's bot login (`<slug>[bot]`): a removal it made was asked for by someone, remembered. */
  appBot?: string;
  metrics?: Pick<Metrics, "githubQueueWebhooks">;
  logger: Logger;
  now?: () => Date;
}

/** How long a dequeue asked of Yardmaster explains a removal by the app's bot. */
const ATTRIBUTION_MS = 10 * 60_000;
/** Removals whose cause the merge group's checks tell. */
const CHECK_REASONS = new Set(["CI_FAILURE", "CI_TIMEOUT"]);
const TRIGGER = "GitHub merge queue";

/** A failed check as the merge-queue log lists one (its QueueCheck). */
const asLogCheck = (c: FailedCheck) => ({
  name: c.name,
  description: "",
  url: c.url,
  details_url: c.url,
  state: c.conclusion,
  avatar_url: null,
});

/**
 * An event id for what a webhook said: negative (Mergify's log ids are positive, so the two never meet
 * in one outbox), the same for the same `key` on every replica and redelivery.
 */
export function pushedEventId(key: string): number {
  const bits = Number.parseInt(createHash("sha256").update(key).digest("hex").slice(0, 13), 16);
  return -(bits + 1);
}

/**
 * Notices pushed by GitHub's own merge queue (docs/notifications.md, "GitHub's merge queue"): each
 * webhook becomes at most one event, shaped like the merge-queue log's (so it is routed, threaded,
 * rendered and sent to authors like any other), and goes into the outbox. The event's id comes from the
 * webhook's delivery id (GitHub keeps it on a redelivery), or for a merge from the pull request (its
 * `dequeued` MERGE and `closed` arrive apart, and it merges once): whichever replica gets a delivery,
 * and however often, the outbox posts it once.
 */
export class PushedNotices {
  /** Webhooks received by this process: their order within one millisecond. */
  private received = 0;

  constructor(private readonly deps: PushedNoticesDeps) {}

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  /**
   * Turns what GitHub said into a notice (or none) and hands it to the outbox, in GitHub's order (when
   * its webhook was received, whenever its row is claimed: a pull request's thread starts with its
   * entry, not with the checks of its merge group claimed a moment before); then starts a delivery, not
   * awaited: the webhook is answered once the notice is in the outbox, which any replica's loop posts
   * if this delivery cannot.
   */
  async accept(happening: QueueHappening, deliveryId: string): Promise<LogEvent | null> {
    const order = { at: this.now(), seq: this.received++ };
    const event = await this.toEvent(happening, deliveryId);
    this.deps.metrics?.githubQueueWebhooks.inc({ kind: happening.kind, outcome: event ? "notice" : "none" });
    if (!event) return null;
    const { repository } = happening;
    await dispatchEvent(this.deps, repository, event, await this.deps.subscriptions(repository), order);
    const delivering = this.deps
      .deliver()
      .catch((error: unknown) => this.deps.logger.warn({ err: error }, "could not deliver the outbox"));
    this.deps.track?.(delivering);
    return event;
  }

  private async toEvent(h: QueueHappening, deliveryId: string): Promise<LogEvent | null> {
    const { memory } = this.deps;
    const at = this.now();
    const event = (type: string, key: string, metadata: Record<string, unknown>): LogEvent => ({
      id: pushedEventId(key),
      received_at: at.toISOString(),
      trigger: TRIGGER,
      repository: h.repository.fullName,
      pull_request: h.number,
      base_ref: h.baseRef,
      type,
      // GitHub has one queue per branch: the branch is the queue's name.
      metadata: { queue_name: h.baseRef, ...metadata },
    });
    const delivered = `delivery:${deliveryId}`;
    switch (h.kind) {
      case "entered":
        await memory.rememberQueueEntry({
          repository: h.repository,
          number: h.number,
          baseRef: h.baseRef,
          enteredAt: at,
          deliveryId,
        });
        return event("action.queue.enter", delivered, {});
      case "removed": {
        // Merged: the `closed` webhook says it, with the merge commit.
        if (h.reason === "MERGE") return null;
        const checks = CHECK_REASONS.has(h.reason) ? await this.checksOfGroup(h.repository, h.number) : [];
        const removedBy = h.reason === "MANUAL" ? await this.removedBy(h) : null;
        return event("action.queue.leave", delivered, {
          merged: false,
          reason: removalWords({ code: h.reason, removedBy }),
          dequeue_code: h.reason,
          ...(removedBy ? { removed_by: removedBy } : {}),
          unsuccessful_checks: checks.map(asLogCheck),
        });
      }
      case "merged": {
        // Only a pull request that entered through the queue merged through it.
        if (!(await memory.getQueuePull(h.repository, h.number))) return null;
        return event("action.queue.merged", `merged:${h.repository.key}#${h.number}`, {
          merge_commit_sha: h.mergeCommitSha,
        });
      }
      case "group-built":
        await memory.rememberMergeGroup(h.repository, h.number, h.sha);
        return event("action.queue.checks_start", delivered, { merge_group_sha: h.sha });
      case "group-gone": {
        if (h.reason === "merged")
          return event("action.queue.checks_end", delivered, {
            aborted: false,
            speculative_check_pull_request: { checks_conclusion: "success" },
          });
        const failed = h.reason === "dequeued" ? await this.checksOf(h.repository, h.sha) : [];
        if (failed.length)
          return event("action.queue.checks_end", delivered, {
            aborted: false,
            speculative_check_pull_request: {
              checks_conclusion: "failure",
              unsuccessful_checks: failed.map(asLogCheck),
            },
          });
        return event("action.queue.checks_end", delivered, {
          aborted: true,
          abort_reason:
            h.reason === "invalidated"
              ? "a pull request ahead of it left the queue; GitHub builds a new merge group"
              : "it left the queue",
          abort_code: null,
        });
      }
    }
  }

  /**
   * Who removed a pull request by hand: GitHub's sender, or for the app's bot, the person who asked
   * Yardmaster (remembered just before it asked GitHub).
   */
  private async removedBy(h: QueueHappening & { kind: "removed" }): Promise<string> {
    if (this.deps.appBot && h.by.toLowerCase() === this.deps.appBot.toLowerCase()) {
      const asked = (await this.deps.memory.getQueuePull(h.repository, h.number))?.removedBy;
      if (asked && Math.abs(this.now().getTime() - asked.at.getTime()) <= ATTRIBUTION_MS)
        return `${asked.login} (through Yardmaster)`;
    }
    return h.by;
  }

  /** The failed checks of the pull request's latest merge group, as remembered from its webhook. */
  private async checksOfGroup(repository: Repo, number: number): Promise<FailedCheck[]> {
    const pull = await this.deps.memory.getQueuePull(repository, number);
    return pull?.groupSha ? this.checksOf(repository, pull.groupSha) : [];
  }

  /** The notice goes without the checks when GitHub cannot list them. */
  private async checksOf(repository: Repo, sha: string): Promise<FailedCheck[]> {
    try {
      return await this.deps.failedChecks(repository, sha);
    } catch (error) {
      this.deps.logger.warn(
        { repository, sha, err: error },
        "could not read the merge group's checks: the notice goes without them",
      );
      return [];
    }
  }
}
