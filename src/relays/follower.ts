import type { Clock } from "../commands/ports.js";
import { readQueueState } from "../commands/queue-state.js";
import type { RelayName, RelayResult, StoredRelay } from "../commands/relay.js";
import type { CommandAnswer, MergeQueueBackend } from "../core/merge-queue.js";
import type { RelayStore } from "../core/record-ports.js";
import type { MergeQueueComment, RelayRecord } from "../core/records.js";
import type { Logger } from "../logger.js";
import type { Repo } from "../repo.js";

/**
 * Following a relayed command until the merge queue answers it (docs/commands.md, "Following the merge
 * queue's answer"). The merge-queue bot answers in the thread, then edits its answer as the command
 * progresses; each version is recorded in the store against the relay it answers, and shown once where
 * the command was asked (the GitHub summary comment, the Slack answer) by whichever replica takes the
 * relay's lease. Webhooks may arrive at any replica, before or after the surface has answered: the
 * surface records where it answered (`presented`), and whatever came first is shown then.
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
  /** This process, as the lease's holder. */
  owner: string;
  logger: Logger;
  now?: Clock;
  /** How long a replica may take to show an answer before another may; default 30 s. */
  leaseMs?: number;
}

export type { MergeQueueComment };

const DEFAULT_LEASE_MS = 30_000;
/**
 * How often `start` looks for answers no replica is showing: one whose replica died showing it is
 * shown by another within a few seconds of its lease's lapse.
 */
export const SWEEP_MS = 5_000;
/** At most this many versions shown in one go (each new one re-takes the lease). */
const MAX_ROUNDS = 5;

export class RelayFollower {
  /** Set by each surface when it is wired (src/app/create-app.ts). */
  readonly presenters: Partial<Record<"github" | "slack", RelayPresenter>> = {};
  private readonly now: Clock;
  private sweeping: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(private readonly deps: RelayFollowerDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /** Sweeps every SWEEP_MS (sweep), until `stop`. */
  start(): void {
    if (this.sweeping) return;
    this.sweeping = setInterval(() => {
      this.running ??= this.sweep()
        .catch((error: unknown) => this.deps.logger.warn({ err: error }, "relay sweep failed"))
        .finally(() => {
          this.running = undefined;
        });
    }, SWEEP_MS);
    this.sweeping.unref();
  }

  /** Stops sweeping and waits for a sweep under way. */
  async stop(): Promise<void> {
    clearInterval(this.sweeping);
    this.sweeping = undefined;
    await this.running;
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

  /** Shows what a surface missed (a replica stopped while showing it): answers not shown yet, now. */
  async sweep(limit = 20): Promise<void> {
    for (const record of await this.deps.store.listUnappliedRelays(this.now(), limit))
      await this.show(record.id);
  }

  /** Takes the relay's lease and shows its latest answer, again while newer versions came meanwhile. */
  async show(id: string): Promise<void> {
    const { store, owner, logger } = this.deps;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const record = await store.claimRelayAnswer(
        id,
        owner,
        this.now(),
        this.deps.leaseMs ?? DEFAULT_LEASE_MS,
      );
      if (!record) return;
      let shown: number | null = null;
      try {
        const presenter = this.presenters[record.surface];
        if (!presenter) throw new Error(`no ${record.surface} surface to show the answer on`);
        await presenter(await this.resultOf(record), record.presentation);
        shown = record.answerVersion;
      } catch (error) {
        logger.warn(
          { err: error, relay: id, repository: record.repository.fullName, pull: record.pull },
          "could not show the merge queue's answer to a relayed command",
        );
      } finally {
        await store.releaseRelayAnswer(id, owner, shown);
      }
      if (shown === null) return;
    }
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
