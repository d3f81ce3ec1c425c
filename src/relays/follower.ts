import type { Clock } from "../commands/ports.js";
import { readQueueState } from "../commands/queue-state.js";
import type { RelayName, RelayResult, StoredRelay } from "../commands/relay.js";
import type { CommandAnswer, MergeQueueBackend } from "../core/merge-queue.js";
import type { RelayStore } from "../core/record-ports.js";
import type { MergeQueueComment, RelayRecord } from "../core/records.js";
import type { Logger } from "../logger.js";
import type { Repo } from "../repo.js";
import { RELAY_ANSWER_KIND, type WorkItem } from "../store/index.js";
import { backoff, type WorkContext, type WorkNext, type WorkRunner } from "../work/runner.js";

/**
 * Following a relayed command until the merge queue answers it (docs/commands.md, "Following the merge
 * queue's answer"). The merge-queue bot answers in the thread, then edits its answer as the command
 * progresses; each version is recorded in the store against the relay it answers, and shown once where
 * the command was asked (the GitHub summary comment, the Slack answer): its showing is durable work (kind
 * `relay-answer`, keyed by the relay's id, made due with the answer: src/work), run at once by the
 * replica that recorded it, or by any replica's runner once its claim lapsed (its replica died). Webhooks
 * may arrive at any replica, before or after the surface has answered: the surface records where it
 * answered (`presented`), and whatever came first is shown then.
 */

/** Shows a relay's result, answer included, where its surface answered (`presentation` is the surface's). */
export type RelayPresenter = (result: RelayResult<RelayName>, presentation: unknown) => Promise<void>;

export interface RelayFollowerDeps {
  store: RelayStore;
  /**
   * The queue that takes commands as comments: its bot's answers read, and the pull request's entry read
   * again when one comes.
   */
  queue: Pick<MergeQueueBackend, "entry"> & { readAnswer(body: string): CommandAnswer };
  /** This replica's runner of durable work: each answer's showing is its kind `relay-answer`. */
  work: Pick<WorkRunner, "register" | "resume" | "pause" | "runNow" | "drain">;
  logger: Logger;
  now?: Clock;
  /** How long a replica may take to show an answer before another may; default 30 s. */
  leaseMs?: number;
}

export type { MergeQueueComment };

const DEFAULT_LEASE_MS = 30_000;
/** At most this many versions shown in one run (a version recorded meanwhile is shown next). */
const MAX_ROUNDS = 5;

export class RelayFollower {
  /** Set by each surface when it is wired (src/app/create-app.ts). */
  readonly presenters: Partial<Record<"github" | "slack", RelayPresenter>> = {};
  private readonly now: Clock;

  constructor(private readonly deps: RelayFollowerDeps) {
    this.now = deps.now ?? (() => new Date());
    deps.work.register({
      kind: RELAY_ANSWER_KIND,
      leaseMs: deps.leaseMs ?? DEFAULT_LEASE_MS,
      concurrency: 4,
      now: () => this.now(),
      // A surface failing: shown again soon, a minute apart at most.
      backoff: (attempts) => backoff(attempts, 5_000, 60_000),
      run: (item, context) => this.run(item, context),
    });
  }

  /** This replica's runner shows the answers no replica is showing (its claim lapsed), until `stop`. */
  start(): void {
    this.deps.work.resume(RELAY_ANSWER_KIND);
  }

  /** Takes over no more answers, and waits for those shown here now. */
  async stop(): Promise<void> {
    await this.deps.work.pause(RELAY_ANSWER_KIND);
  }

  /** The merge-queue bot wrote or edited a comment: recorded as an answer if it answers a relay, and shown. */
  async onComment(comment: MergeQueueComment): Promise<void> {
    const read = this.deps.queue.readAnswer(comment.body);
    const quoted = read.command?.split(/\s+/, 1)[0]?.toLowerCase() ?? null;
    const record = await this.deps.store.recordRelayAnswer({
      ...comment,
      // GitHub's times are to the second: a comment of the relay's second may answer it.
      createdAt: new Date(Math.floor(comment.createdAt.getTime() / 1000) * 1000 + 999),
      // requeue is relayed as queue, and Mergify quotes what it was sent.
      quotedCommand: quoted === "requeue" ? "queue" : quoted,
      now: this.now(),
    });
    if (!record) return;
    this.deps.logger.info(
      { relay: record.id, repository: record.repository.fullName, pull: record.pull, answer: read.kind },
      `the merge queue answered a relayed ${record.commandName}: ${read.kind}`,
    );
    await this.show(record.id);
  }

  /** A surface answered a relay: where it did is kept, and an answer already in is shown now. */
  async presented(id: string, presentation: unknown): Promise<void> {
    await this.deps.store.presentRelay(id, presentation);
    await this.show(id);
  }

  /**
   * The GitHub surface wrote a thread's summary comment for a command: the relays it showed before are
   * not shown there again (the summary is the latest command's).
   */
  async summaryWritten(repository: Repo, pull: number): Promise<void> {
    await this.deps.store.supersedeRelays(repository, pull, "github");
  }

  /** Shows what no replica is showing now (a replica stopped while showing it), by hand (tests). */
  async sweep(): Promise<number> {
    return (await this.deps.work.drain(RELAY_ANSWER_KIND)).claimed;
  }

  /** Shows the relay's latest answer here now, unless another replica is showing it (then that one does). */
  async show(id: string): Promise<void> {
    await this.deps.work.runNow(RELAY_ANSWER_KIND, id);
  }

  /** One run: the latest answer shown, again while newer versions came meanwhile; a failure is retried. */
  private async run(item: WorkItem, context: WorkContext): Promise<WorkNext> {
    const { store, logger } = this.deps;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const record = await store.getRelay(item.key);
      if (!record?.presentation || record.superseded || record.appliedVersion >= record.answerVersion)
        return null;
      if (!(await context.renew())) return null;
      try {
        const presenter = this.presenters[record.surface];
        if (!presenter) throw new Error(`no ${record.surface} surface to show the answer on`);
        await presenter(await this.resultOf(record), record.presentation);
      } catch (error) {
        logger.warn(
          { err: error, relay: record.id, repository: record.repository.fullName, pull: record.pull },
          "could not show the merge queue's answer to a relayed command",
        );
        // Tried again after the backoff, while the relay is followed.
        if (record.deadline > this.now()) throw error;
        return null;
      }
      await store.markRelayShown(record.id, record.answerVersion);
    }
    // Still newer versions: shown in the next run.
    return { dueAt: this.now() };
  }

  /** The relay's result again: as relayed, with where the pull request stands now and the answer. */
  private async resultOf(record: RelayRecord): Promise<RelayResult<RelayName>> {
    const stored = record.relay as StoredRelay;
    const queue = await readQueueState(this.deps.queue, record.repository, record.pull, stored.name, false);
    return {
      ...stored,
      repo: record.repository,
      queue,
      relayId: record.id,
      answer: record.answer
        ? { read: this.deps.queue.readAnswer(record.answer.body), url: record.answer.url }
        : null,
    };
  }
}
