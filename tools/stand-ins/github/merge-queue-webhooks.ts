import { createHash } from "node:crypto";
import { z } from "zod";
import type { CiCheckRuns } from "./ci-check-runs.js";
import { type StandInContext, subscribed } from "./context.js";
import {
  type CheckConclusion,
  type CheckRun,
  checkRunEventJson,
  checkSuiteEventJson,
  pullRequestEventJson,
  type WebhookTarget,
} from "./queue-payloads.js";
import { type Account, type Issue, type Repository, timestamp } from "./state.js";

/**
 * What GitHub announces when the merge queue acts: each event appended to the merge queue's log becomes
 * the `check_run`, `check_suite` and `pull_request` webhooks the real service's acts on GitHub cause
 * (README.md, "Merge-queue webhooks"), sent in the background to installations subscribed to them.
 */

/** An event of the merge queue's log (the simulator's `LogEvent` fits). */
export interface MergeQueueLogEvent {
  /** Epoch ms. */
  receivedAt: number;
  /** "owner/repo". */
  repository: string;
  pullRequest: number | null;
  baseRef: string | null;
  type: string;
  metadata: Record<string, unknown>;
}

/** What the merge queue knows of a pull request the stand-in does not know. */
export interface MergeQueuePullInfo {
  headSha: string;
  baseRef: string;
  title?: string;
  author?: { id: number; login: string };
}

/** The merge queue's log to follow (the simulator's `state.log` fits), and its pull requests. */
export interface MergeQueueSource {
  onAppend(listener: (event: MergeQueueLogEvent) => void): () => void;
  pullRequest?(repository: string, number: number): MergeQueuePullInfo | undefined;
  /** The pull request's place in its queue (1 first), when it is queued. */
  position?(repository: string, number: number): number | undefined;
}

export interface SendCheckRunOptions {
  action?: "created" | "completed";
  /** For `completed`; default "success". */
  conclusion?: CheckConclusion;
  /** Default "Queue: Embarked in merge queue". */
  name?: string;
  deliveryId?: string;
}

/** The check run the merge queue keeps on each pull request while its checks run in a train car. */
export const QUEUE_CHECK_NAME = "Queue: Embarked in merge queue";
/** The queue rule's check run, open while the pull request is queued. */
export const ruleCheckName = (queueName: string): string => `Rule: ${queueName} (queue)`;

const speculativeSchema = z
  .object({
    number: z.number(),
    in_place: z.boolean(),
    checks_conclusion: z.string(),
    pull_request_numbers: z.array(z.number()),
  })
  .partial();
const metadataSchema = z
  .object({
    queue_name: z.string(),
    aborted: z.boolean(),
    dequeue_code: z.string(),
    merged: z.boolean(),
    merge_commit_sha: z.string(),
    batch_id: z.string(),
    pull_request_head_sha: z.string(),
    speculative_check_pull_request: speculativeSchema,
  })
  .partial();
type Metadata = z.infer<typeof metadataSchema>;

interface Outgoing {
  event: string;
  payload: Record<string, unknown>;
}

const sha1 = (text: string): string => createHash("sha1").update(text).digest("hex");

export class MergeQueueWebhooks {
  private nextCheckRunId = 8_000_000_001;
  private nextSuiteId = 9_000_000_001;
  private nextTransientId = 2_900_000_001;
  /** Open check runs by `repo#number|name`. */
  private readonly runs = new Map<string, CheckRun>();
  /** The merge queue's check suite by `repo@sha`. */
  private readonly suites = new Map<string, number>();
  /** Draft pull requests the merge queue opened for a batch's checks, by `repo#number`. */
  private readonly drafts = new Map<string, Issue>();
  /** Pull requests the stand-in does not know, made up while they are queued, by `repo#number`. */
  private readonly transient = new Map<string, Issue>();
  private readonly timers = new Map<NodeJS.Timeout, () => void>();
  private readonly waiting = new Set<Promise<void>>();
  private source: MergeQueueSource | undefined;

  /** Every draft pull request the merge queue opened, closed ones too (GitHub still answers for them). */
  private readonly opened = new Map<string, Issue>();

  constructor(
    private readonly ctx: StandInContext,
    /** Delay between the log's append and the webhooks' sending; 0: at once (queued after the append). */
    private readonly delayMs: number,
    /** Where CI reports the checks the merge queue saw fail (their output: ci-check-runs.ts). */
    private readonly ciChecks?: CiCheckRuns,
  ) {}

  /** A draft pull request the merge queue opened for a batch's checks (`GET /pulls/{number}` reads it). */
  draft(fullName: string, number: number): Issue | undefined {
    const repository = this.ctx.state.getRepository(fullName);
    return repository ? this.opened.get(`${repository.id}#${number}`) : undefined;
  }

  /**
   * CI's failed runs of the checks the merge queue saw fail, on the commit they ran on (the draft's head, or
   * the pull request's): reported before the merge queue records its checks' end, as CI would have.
   */
  private reportFailed(
    repository: Repository,
    headSha: string | undefined,
    checks: unknown,
    at: string,
  ): void {
    if (!this.ciChecks || !headSha || !Array.isArray(checks)) return;
    for (const check of checks as { name?: unknown; state?: unknown }[]) {
      if (typeof check?.name !== "string") continue;
      const state = typeof check.state === "string" ? check.state : "failure";
      const conclusion: CheckConclusion = (["timed_out", "cancelled", "action_required"] as const).includes(
        state as "timed_out",
      )
        ? (state as CheckConclusion)
        : "failure";
      this.ciChecks.report(repository, headSha, check.name, conclusion, at);
    }
  }

  /** Follows a merge queue's log; returns the function that stops following it. */
  follow(source: MergeQueueSource): () => void {
    this.source = source;
    const stop = source.onAppend((event) => {
      try {
        this.handle(event);
      } catch (error) {
        // Never let the stand-in break the merge queue's step.
        this.ctx.logger.warn({ err: error, type: event.type }, "merge-queue webhook not sent");
      }
    });
    return () => {
      stop();
      if (this.source === source) this.source = undefined;
    };
  }

  /** Sends (in the background) what GitHub would send when this event happens in the merge queue. */
  handle(event: MergeQueueLogEvent): void {
    const repository = this.ctx.state.getRepository(event.repository);
    if (!repository) return;
    for (const outgoing of this.map(repository, event)) {
      if (subscribed(this.ctx, repository.fullName, outgoing.event)) this.schedule(outgoing);
    }
  }

  /** Builds one `check_run` webhook by hand (for `sendCheckRun`); the repository must have the app. */
  checkRunPayload(
    repositoryName: string,
    number: number,
    options: SendCheckRunOptions,
  ): Record<string, unknown> {
    const repository = this.ctx.state.requireRepository(repositoryName);
    const pull = this.pull(repository, number, null);
    const at = this.ctx.state.timestamp();
    const action = options.action ?? "completed";
    const run = this.newRun(repository, pull, options.name ?? QUEUE_CHECK_NAME, at, "Checks started", "");
    if (action === "completed") this.complete(run, options.conclusion ?? "success", at);
    return checkRunEventJson(this.ctx.urls, this.target(repository), action, run, pull);
  }

  /** Resolves once every delayed webhook has been queued on the sender. */
  async settle(): Promise<void> {
    while (this.waiting.size > 0) await Promise.all([...this.waiting]);
  }

  /** Drops delayed webhooks not sent yet. */
  close(): void {
    for (const [timer, done] of this.timers) {
      clearTimeout(timer);
      done();
    }
    this.timers.clear();
  }

  private schedule(outgoing: Outgoing): void {
    if (this.delayMs <= 0) {
      this.ctx.webhooks.enqueue(outgoing.event, outgoing.payload);
      return;
    }
    const sent = new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        this.ctx.webhooks.enqueue(outgoing.event, outgoing.payload);
        resolve();
      }, this.delayMs);
      this.timers.set(timer, resolve);
    });
    this.waiting.add(sent);
    void sent.then(() => this.waiting.delete(sent));
  }

  private map(repository: Repository, event: MergeQueueLogEvent): Outgoing[] {
    const number = event.pullRequest;
    if (number === null) return [];
    const parsed = metadataSchema.safeParse(event.metadata);
    const metadata: Metadata = parsed.success ? parsed.data : {};
    const at = timestamp(new Date(event.receivedAt));
    const out: Outgoing[] = [];
    switch (event.type) {
      case "action.queue.enter": {
        const pull = this.pull(repository, number, event.baseRef);
        const name = ruleCheckName(metadata.queue_name ?? "default");
        const run = this.start(repository, pull, name, at, `The pull request is queued in \`${name}\``);
        out.push(this.checkRun(repository, "created", run, pull));
        break;
      }
      case "action.queue.checks_start": {
        const pull = this.pull(repository, number, event.baseRef);
        const speculative = metadata.speculative_check_pull_request;
        if (speculative?.in_place === false && speculative.number !== undefined) {
          out.push(...this.openDraft(repository, speculative.number, metadata, pull, at));
        }
        const run = this.start(repository, pull, QUEUE_CHECK_NAME, at, "The pull request is embarked");
        out.push(this.checkRun(repository, "created", run, pull));
        break;
      }
      case "action.queue.checks_end": {
        const pull = this.pull(repository, number, event.baseRef);
        const speculative = metadata.speculative_check_pull_request;
        if (!metadata.aborted && speculative?.checks_conclusion !== "success") {
          const draft =
            speculative?.in_place === false && speculative.number !== undefined
              ? this.drafts.get(`${repository.id}#${speculative.number}`)
              : undefined;
          const failed = (event.metadata.speculative_check_pull_request as { unsuccessful_checks?: unknown })
            ?.unsuccessful_checks;
          this.reportFailed(repository, (draft ?? pull).pull?.headSha, failed, at);
        }
        const conclusion: CheckConclusion = metadata.aborted
          ? "cancelled"
          : speculative?.checks_conclusion === "success"
            ? "success"
            : "failure";
        const run = this.finish(repository, pull, QUEUE_CHECK_NAME, conclusion, at);
        out.push(this.checkRun(repository, "completed", run, pull));
        if (speculative?.in_place === false && speculative.number !== undefined) {
          out.push(...this.closeDraft(repository, speculative.number));
        }
        break;
      }
      case "action.queue.merged": {
        const known = this.ctx.state.getIssue(repository.fullName, number)?.pull ?? null;
        if (known) this.ctx.state.updatePullRequest(repository.fullName, number, { merged: true });
        const pull = this.pull(repository, number, event.baseRef);
        if (!known && pull.pull) {
          pull.pull.merged = true;
          pull.pull.mergedAt = at;
          pull.state = "closed";
          pull.closedAt = at;
        }
        out.push({
          event: "pull_request",
          payload: pullRequestEventJson(
            this.ctx.urls,
            this.ctx.state,
            this.target(repository),
            "closed",
            pull,
            {
              mergedBy: this.ctx.state.mergeQueueBot,
              ...(metadata.merge_commit_sha ? { mergeCommitSha: metadata.merge_commit_sha } : {}),
            },
          ),
        });
        break;
      }
      case "action.queue.leave": {
        const pull = this.pull(repository, number, event.baseRef, metadata.pull_request_head_sha);
        // A leave the log tells without its checks' end (the demo's history): CI failed them on its head.
        if (!metadata.merged)
          this.reportFailed(
            repository,
            metadata.pull_request_head_sha,
            event.metadata.unsuccessful_checks,
            at,
          );
        const conclusion: CheckConclusion = metadata.merged
          ? "success"
          : metadata.dequeue_code === "PR_MANUALLY_DEQUEUED" || metadata.dequeue_code === "PR_DEQUEUED"
            ? "cancelled"
            : "failure";
        if (this.runs.has(runKey(repository, number, QUEUE_CHECK_NAME))) {
          const run = this.finish(repository, pull, QUEUE_CHECK_NAME, conclusion, at);
          out.push(this.checkRun(repository, "completed", run, pull));
        }
        const rule = this.finish(
          repository,
          pull,
          ruleCheckName(metadata.queue_name ?? "default"),
          conclusion,
          at,
        );
        out.push(this.checkRun(repository, "completed", rule, pull));
        this.transient.delete(`${repository.id}#${number}`);
        out.push({
          event: "check_suite",
          payload: checkSuiteEventJson(
            this.ctx.urls,
            this.target(repository),
            { id: rule.suiteId, headSha: rule.headSha, conclusion, at },
            pull,
          ),
        });
        break;
      }
      default:
        break;
    }
    return out;
  }

  private checkRun(
    repository: Repository,
    action: "created" | "completed",
    run: CheckRun,
    pull: Issue,
  ): Outgoing {
    return {
      event: "check_run",
      payload: checkRunEventJson(this.ctx.urls, this.target(repository), action, { ...run }, pull),
    };
  }

  private target(repository: Repository, sender: Account = this.ctx.state.mergeQueueBot): WebhookTarget {
    return {
      repository,
      installationId: this.ctx.state.installationOf(repository.fullName)?.id ?? 0,
      sender,
    };
  }

  private newRun(
    repository: Repository,
    pull: Issue,
    name: string,
    at: string,
    title: string,
    summary: string,
  ): CheckRun {
    const headSha = pull.pull?.headSha ?? sha1(`${repository.fullName}#${pull.number}`);
    const suiteKey = `${repository.id}@${headSha}`;
    let suiteId = this.suites.get(suiteKey);
    if (suiteId === undefined) {
      suiteId = this.nextSuiteId++;
      this.suites.set(suiteKey, suiteId);
    }
    return {
      id: this.nextCheckRunId++,
      suiteId,
      name,
      headSha,
      status: "in_progress",
      conclusion: null,
      startedAt: at,
      completedAt: null,
      title,
      summary,
    };
  }

  private start(repository: Repository, pull: Issue, name: string, at: string, title: string): CheckRun {
    const run = this.newRun(repository, pull, name, at, title, "");
    this.runs.set(runKey(repository, pull.number, name), run);
    return run;
  }

  /** Completes the open check run of that name (or one made now, when it was opened before we followed). */
  private finish(
    repository: Repository,
    pull: Issue,
    name: string,
    conclusion: CheckConclusion,
    at: string,
  ): CheckRun {
    const key = runKey(repository, pull.number, name);
    const run = this.runs.get(key) ?? this.newRun(repository, pull, name, at, "", "");
    this.runs.delete(key);
    return this.complete(run, conclusion, at);
  }

  private complete(run: CheckRun, conclusion: CheckConclusion, at: string): CheckRun {
    run.status = "completed";
    run.conclusion = conclusion;
    run.completedAt = at;
    run.title =
      conclusion === "success"
        ? "The pull request passed the merge queue"
        : conclusion === "cancelled"
          ? "The pull request left the merge queue"
          : "The pull request failed the merge queue";
    return run;
  }

  private openDraft(
    repository: Repository,
    number: number,
    metadata: Metadata,
    member: Issue,
    at: string,
  ): Outgoing[] {
    const key = `${repository.id}#${number}`;
    if (this.drafts.has(key)) return [];
    const seed = `${repository.fullName}#${number}@${metadata.batch_id ?? at}`;
    const members = metadata.speculative_check_pull_request?.pull_request_numbers ?? [member.number];
    const draft: Issue = {
      id: this.nextTransientId++,
      repository,
      number,
      title: `merge queue: embarking ${members.map((n) => `#${n}`).join(", ")} together`,
      body: null,
      user: this.ctx.state.mergeQueueBot,
      state: "open",
      createdAt: at,
      updatedAt: at,
      closedAt: null,
      pull: {
        baseRef: member.pull?.baseRef ?? repository.defaultBranch,
        baseSha: sha1(`${seed}:base`),
        headRef: `mergify/merge-queue/${sha1(seed).slice(0, 10)}`,
        headSha: sha1(seed),
        draft: true,
        merged: false,
        mergedAt: null,
      },
    };
    this.drafts.set(key, draft);
    this.opened.set(key, draft);
    return [this.pullRequestEvent(repository, "opened", draft)];
  }

  private closeDraft(repository: Repository, number: number): Outgoing[] {
    const key = `${repository.id}#${number}`;
    const draft = this.drafts.get(key);
    if (!draft) return [];
    this.drafts.delete(key);
    draft.state = "closed";
    draft.closedAt = draft.updatedAt = this.ctx.state.timestamp();
    return [this.pullRequestEvent(repository, "closed", draft)];
  }

  private pullRequestEvent(repository: Repository, action: "opened" | "closed", pull: Issue): Outgoing {
    return {
      event: "pull_request",
      payload: pullRequestEventJson(this.ctx.urls, this.ctx.state, this.target(repository), action, pull),
    };
  }

  /**
   * The pull request as GitHub knows it; one the stand-in does not know is made up (not stored) from what
   * the merge queue knows of it.
   */
  private pull(repository: Repository, number: number, baseRef: string | null, headSha?: string): Issue {
    const known = this.ctx.state.getIssue(repository.fullName, number);
    if (known?.pull) return known;
    const key = `${repository.id}#${number}`;
    const made = this.transient.get(key);
    if (made) return made;
    const info = this.source?.pullRequest?.(repository.fullName, number);
    const author: Account =
      (info?.author && this.ctx.state.getUser(info.author.login)) ??
      (info?.author ? { ...info.author, type: "User" } : this.ctx.state.mergeQueueBot);
    const at = this.ctx.state.timestamp();
    const pull: Issue = {
      id: this.nextTransientId++,
      repository,
      number,
      title: info?.title ?? `Pull request #${number}`,
      body: null,
      user: author,
      state: "open",
      createdAt: at,
      updatedAt: at,
      closedAt: null,
      pull: {
        baseRef: info?.baseRef ?? baseRef ?? repository.defaultBranch,
        baseSha: sha1(`${repository.fullName}@${info?.baseRef ?? baseRef}`),
        headRef: `feature-${number}`,
        headSha: info?.headSha ?? headSha ?? sha1(`${repository.fullName.toLowerCase()}#${number}`),
        draft: false,
        merged: false,
        mergedAt: null,
      },
    };
    this.transient.set(key, pull);
    return pull;
  }
}

function runKey(repository: Repository, number: number, name: string): string {
  return `${repository.id}#${number}|${name}`;
}
