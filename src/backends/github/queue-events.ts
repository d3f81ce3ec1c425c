import { pushedEventId } from "../../core/pushed-events.js";
import type { QueueCheck, QueueEvent, QueueEventBody } from "../../core/queue.js";
import { removalWords } from "../../core/removal-reasons.js";
import type { Logger } from "../../logger.js";
import type { Repo } from "../../repo.js";
import type { GitHubQueueMemory, MergedPullStore } from "../../store/index.js";

/**
 * What GitHub's own merge queue did, as its webhooks say it (queue-webhooks.ts reads them): a pull
 * request entered the queue (`pull_request` `enqueued`), was removed (`dequeued`, with GitHub's reason),
 * merged (`closed` and merged), or GitHub built or dropped the merge group that tests it
 * (`merge_group` `checks_requested` / `destroyed`).
 */
export type QueueHappening =
  | { kind: "entered"; repository: Repo; number: number; baseRef: string; by?: string | null }
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

export interface GitHubQueueEventsDeps {
  memory: GitHubQueueMemory;
  /**
   * Where a merge GitHub's queue made is noted (its `dequeued` MERGE, its merge group destroyed `merged`):
   * a pull request merged without it is said (src/outside-merges). Absent: not noted.
   */
  merges?: Pick<MergedPullStore, "noteQueueMerge"> | undefined;
  /** The check runs of a commit that did not succeed (GitHub's checks API, as the installation). */
  failedChecks: (repository: Repo, sha: string) => Promise<FailedCheck[]>;
  /** The app's bot login (`<slug>[bot]`): a removal it made was asked for by someone, remembered. */
  appBot?: string | undefined;
  /** Who asked Yardmaster to queue a pull request, and when: an entry by the app's bot is theirs. */
  askedOf?: ((repository: Repo, number: number) => Promise<{ login: string; at: Date } | null>) | undefined;
  logger: Logger;
  now?: (() => Date) | undefined;
}

/** How long a dequeue asked of Yardmaster explains a removal by the app's bot. */
const ATTRIBUTION_MS = 10 * 60_000;
/** Removals whose cause the merge group's checks tell. */
const CHECK_REASONS = new Set(["CI_FAILURE", "CI_TIMEOUT"]);

const asCheck = (c: FailedCheck): QueueCheck => ({ name: c.name, url: c.url, state: c.conclusion });

/** An event id for what a webhook said (src/core/pushed-events.ts): the same on every replica and redelivery. */
export { pushedEventId };

/**
 * GitHub's merge-queue webhooks in the core's terms (src/core/queue.ts): each webhook becomes at most one
 * queue event. Its id comes from the webhook's delivery id (GitHub keeps it on a redelivery), or for a
 * merge from the pull request (its `dequeued` MERGE and `closed` arrive apart, and it merges once).
 */
export class GitHubQueueEvents {
  constructor(private readonly deps: GitHubQueueEventsDeps) {}

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  /** The queue event a webhook says, or null when it says none (remembering what later ones need). */
  async toEvent(h: QueueHappening, deliveryId: string): Promise<QueueEvent | null> {
    const at = this.now();
    const delivered = `delivery:${deliveryId}`;
    const event = (key: string, origin: string, body: QueueEventBody): QueueEvent => ({
      id: pushedEventId(key),
      at: at.toISOString(),
      repository: h.repository.fullName,
      pull: h.number,
      branch: h.baseRef,
      // GitHub has one queue per branch: the branch is the queue's name.
      queue: h.baseRef,
      origin,
      ...body,
    });
    switch (h.kind) {
      case "entered":
        await this.deps.memory.rememberQueueEntry({
          repository: h.repository,
          number: h.number,
          baseRef: h.baseRef,
          enteredAt: at,
          deliveryId,
        });
        return event(delivered, "pull_request.enqueued", {
          kind: "entered",
          queuedBy: await this.queuedBy(h),
        });
      case "removed":
        return this.removal(h, (body) => event(delivered, "pull_request.dequeued", body));
      case "merged": {
        // Only a pull request that entered through the queue, and did not leave it since, merged through it.
        const pull = await this.deps.memory.getQueuePull(h.repository, h.number);
        if (!pull || pull.leftAt) return null;
        return event(`merged:${h.repository.key}#${h.number}`, "pull_request.closed", {
          kind: "merged",
          sha: h.mergeCommitSha,
          enteredAt: pull.enteredAt.toISOString(),
        });
      }
      case "group-built":
        await this.deps.memory.rememberMergeGroup(h.repository, h.number, h.sha);
        return event(delivered, "merge_group.checks_requested", { kind: "checks-started", batch: null });
      case "group-gone":
        if (h.reason === "merged") await this.deps.merges?.noteQueueMerge(h.repository, h.number, at);
        return event(delivered, "merge_group.destroyed", await this.groupGone(h));
    }
  }

  private async removal(
    h: QueueHappening & { kind: "removed" },
    event: (body: QueueEventBody) => QueueEvent,
  ): Promise<QueueEvent | null> {
    // Merged: the `closed` webhook says it, with the merge commit.
    if (h.reason === "MERGE") {
      await this.deps.merges?.noteQueueMerge(h.repository, h.number, this.now());
      return null;
    }
    const groupSha = CHECK_REASONS.has(h.reason) ? await this.groupOf(h.repository, h.number) : null;
    const checks = groupSha ? await this.checksOf(h.repository, groupSha) : [];
    const removedBy = h.reason === "MANUAL" ? await this.removedBy(h) : null;
    await this.deps.memory.rememberQueueLeave(h.repository, h.number, this.now());
    return event({
      kind: "left",
      merged: false,
      reason: removalWords({ code: h.reason, removedBy }) || null,
      code: h.reason,
      failedChecks: checks.map(asCheck),
      // The checks ran on the merge group's commit: their details are read there.
      ...(groupSha ? { ranOn: { sha: groupSha, pull: null } } : {}),
    });
  }

  private async groupGone(h: QueueHappening & { kind: "group-gone" }): Promise<QueueEventBody> {
    const ended = { kind: "checks-ended" as const, aborted: false, reason: null };
    if (h.reason === "merged") return { ...ended, conclusion: "success", failedChecks: [] };
    const failed = h.reason === "dequeued" ? await this.checksOf(h.repository, h.sha) : [];
    if (failed.length) return { ...ended, conclusion: "failure", failedChecks: failed.map(asCheck) };
    return {
      kind: "checks-ended",
      aborted: true,
      reason:
        h.reason === "invalidated"
          ? "a pull request ahead of it left the queue; GitHub builds a new merge group"
          : "it left the queue",
      conclusion: "unknown",
      failedChecks: [],
    };
  }

  /**
   * Who queued a pull request: GitHub's sender (the enqueuer), or for the app's bot, the person who asked
   * Yardmaster (remembered just before it asked GitHub).
   */
  private async queuedBy(h: QueueHappening & { kind: "entered" }): Promise<string | null> {
    const by = h.by ?? null;
    if (!(this.deps.appBot && this.deps.askedOf) || by?.toLowerCase() !== this.deps.appBot.toLowerCase())
      return by;
    const asked = await this.deps.askedOf(h.repository, h.number);
    return asked && Math.abs(this.now().getTime() - asked.at.getTime()) <= ATTRIBUTION_MS ? asked.login : by;
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

  /** The commit of the pull request's latest merge group, as remembered from its webhook. */
  private async groupOf(repository: Repo, number: number): Promise<string | null> {
    return (await this.deps.memory.getQueuePull(repository, number))?.groupSha ?? null;
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
