import type { FailureDetails } from "../core/check-failures.js";
import { wantsFailureDetails } from "../core/check-failures.js";
import type { QueueEvent, QueueEventOf } from "../core/queue.js";
import type { Logger } from "../logger.js";
import { Repo } from "../repo.js";
import type { DetailsEdit, FailureDetailsStore, WorkItem } from "../store/index.js";
import type { WorkContext, WorkNext, WorkRunner } from "../work/runner.js";

/**
 * Why a removal's checks failed, in the notices (docs/notifications.md, "Why a check failed"): when a
 * pull request leaves the queue for failed checks, the replica that hands the event to the outbox makes
 * the reading of its details durable work (kind `failure-details`, keyed by the event's id, made claimed
 * by this replica: src/work) and its record in the store (`failure_details`, one per event), and reads
 * them from GitHub in the background (src/github/check-runs.ts); its notices (channels and direct
 * messages) wait for them at most `waitMs` (10 s), then go without them and are edited in place once
 * they are read (the deliverer: delivery-details.ts). A replica that dies while reading leaves a claim
 * that lapses: any replica's runner takes the reading over then. Details that cannot be read (no
 * `checks: read`, a 404, a timeout) leave the notices as they are; nothing fails for them. The one that
 * recorded them also writes the pull request's summary comment on GitHub.
 */

/** How long a removal's notices wait for its details at most. */
export const DETAILS_WAIT_MS = 10_000;
/** How long a replica's claim on reading them lasts unrenewed; past it, another reads them. */
export const DETAILS_CLAIM_MS = 60_000;
/** The durable work's kind of readings (src/work), keyed by the removal event's id. */
export const FAILURE_DETAILS_KIND = "failure-details";
/** Readings a replica does at once. */
const DETAILS_CONCURRENCY = 4;
/**
 * How long the replica reading them waits for them within its delivery pass (the rest of the wait holds
 * the channel, its pass over): a read that takes a moment posts the notice with them in the same pass.
 */
export const DETAILS_INLINE_WAIT_MS = 3_000;

export interface FailureDetailsDeps {
  store: FailureDetailsStore;
  /** This replica's runner of durable work: each reading is its kind `failure-details`. */
  work: Pick<WorkRunner, "register" | "resume" | "pause" | "scheduleClaimed" | "drain">;
  /** Reads a removal's details from GitHub; throws when GitHub cannot say. */
  read(repository: Repo, event: QueueEventOf<"left">): Promise<FailureDetails>;
  /** Writes the pull request's summary comment: the removal, with its details when they were read. */
  summarize?:
    | ((repository: Repo, event: QueueEventOf<"left">, details: FailureDetails | null) => Promise<void>)
    | undefined;
  /** Delivers what is pending: the notices that waited, and the edits of those that did not. */
  deliver(): void;
  /** Counts a reading under way until it settles (the graceful stop waits for it). */
  track?: ((work: Promise<unknown>) => void) | undefined;
  owner: string;
  logger: Logger;
  waitMs?: number;
  claimMs?: number;
  inlineWaitMs?: number;
  /** The real clock, in ms: a wait and a claim are real time, whatever clock the notices run on. */
  clock?: () => number;
}

/** What a removal's notice shows: its details (null: without them), or nothing for `waitMs` more. */
export type RowDetails = { details: FailureDetails | null } | { waitMs: number };

/** What the deliverer asks of the details: what a row shows, and the messages to edit. */
export interface DeliveredDetails {
  forRow(event: QueueEvent): Promise<RowDetails | undefined>;
  edits(channelId?: string): Promise<DetailsEdit[]>;
  shown(channelId: string, eventId: number): Promise<void>;
}

/** What a reading's work item keeps: the removal to read the details of. */
interface ReadingPayload {
  repository: string;
  /** Null for a reading an upgrade copied in without its event (migration 042): nothing is read. */
  event: QueueEventOf<"left"> | null;
}

export class FailureDetailsKeeper implements DeliveredDetails {
  /** The readings this process is doing, by event id. */
  private readonly reading = new Map<number, Promise<unknown>>();

  constructor(private readonly deps: FailureDetailsDeps) {
    deps.work.register({
      kind: FAILURE_DETAILS_KIND,
      concurrency: DETAILS_CONCURRENCY,
      leaseMs: this.deps.claimMs ?? DETAILS_CLAIM_MS,
      now: () => new Date(this.clock()),
      run: (item, context) => this.run(item, context),
    });
  }

  private clock(): number {
    return this.deps.clock?.() ?? Date.now();
  }

  /** This replica's runner takes over the readings whose claim lapsed, from now until `stop`. */
  start(): void {
    this.deps.work.resume(FAILURE_DETAILS_KIND);
  }

  async stop(): Promise<void> {
    await this.deps.work.pause(FAILURE_DETAILS_KIND);
  }

  /** Runs the readings due now by hand (their claims lapsed), whether or not started (tests). */
  async takeOver(): Promise<number> {
    return (await this.deps.work.drain(FAILURE_DETAILS_KIND)).claimed;
  }

  /**
   * Starts the reading of a removal's details (not awaited), claimed by this replica, unless another
   * replica's is under way or one was made before. Never throws: the notices go without details when
   * it cannot start.
   */
  async begin(repository: Repo, event: QueueEvent): Promise<void> {
    if (!wantsFailureDetails(event)) return;
    const now = this.clock();
    try {
      const payload: ReadingPayload = { repository: repository.fullName, event };
      const made = await this.deps.work.scheduleClaimed({
        kind: FAILURE_DETAILS_KIND,
        key: String(event.id),
        dueAt: new Date(now),
        payload: payload as unknown as Record<string, unknown>,
      });
      if (!made) return;
      // Its notices wait for it (a record read before, its notices gone, is kept as it is).
      await this.deps.store.noteFailureDetails({
        eventId: event.id,
        repository,
        owner: this.deps.owner,
        now: new Date(now),
        until: made.item.claimedUntil ?? new Date(now),
        dueAt: new Date(now + (this.deps.waitMs ?? DETAILS_WAIT_MS)),
      });
      const reading = made.run.finally(() => this.reading.delete(event.id));
      this.reading.set(event.id, reading);
      this.deps.track?.(reading);
    } catch (error) {
      this.deps.logger.warn(
        { repository, err: error },
        "could not start reading a removal's details: its notices go without them",
      );
    }
  }

  /**
   * A reading's run (here, or taken over): read unless recorded before, and recorded if the claim is
   * still this replica's; then the notices are delivered and the summary comment written.
   */
  private async run(item: WorkItem, context: WorkContext): Promise<WorkNext> {
    const { repository: name, event } = item.payload as unknown as ReadingPayload;
    const repository = Repo.from(name);
    const eventId = Number(item.key);
    const record = await this.deps.store.getFailureDetails(eventId);
    if (record && record.status !== "reading") return null;
    const details = event ? await this.read(repository, event) : null;
    if (!(await context.renew())) return null;
    const now = new Date(this.clock());
    if (!(await this.deps.store.recordFailureDetails(eventId, repository, details, now)) || !event)
      return null;
    this.deps.deliver();
    await this.deps
      .summarize?.(repository, event, details)
      .catch((error: unknown) =>
        this.deps.logger.warn(
          { repository, pull: event.pull, err: error },
          "could not write the pull request's summary comment",
        ),
      );
    return null;
  }

  private async read(repository: Repo, event: QueueEventOf<"left">): Promise<FailureDetails | null> {
    try {
      return await this.deps.read(repository, event);
    } catch (error) {
      this.deps.logger.warn(
        { repository, pull: event.pull, err: error, status: (error as { status?: unknown }).status },
        "could not read why the checks failed: the removal's notices go without it",
      );
      return null;
    }
  }

  async forRow(event: QueueEvent): Promise<RowDetails | undefined> {
    if (!wantsFailureDetails(event)) return undefined;
    await this.inline(event.id);
    const record = await this.deps.store.getFailureDetails(event.id);
    if (!record || record.status === "none") return { details: null };
    if (record.status === "read") return { details: asDetails(record.details) };
    // Being read (by its reader, or by the replica that took the reading over at its claim's lapse).
    const waitMs = record.dueAt.getTime() - this.clock();
    return waitMs > 0 ? { waitMs } : { details: null };
  }

  /** Waits a moment (DETAILS_INLINE_WAIT_MS at most) for this process's own reading of them, if any. */
  private async inline(eventId: number): Promise<void> {
    const reading = this.reading.get(eventId);
    if (!reading) return;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.deps.inlineWaitMs ?? DETAILS_INLINE_WAIT_MS);
    });
    await Promise.race([reading, bound]);
    clearTimeout(timer);
  }

  edits(channelId?: string): Promise<DetailsEdit[]> {
    return this.deps.store.listDetailsEdits(channelId);
  }

  shown(channelId: string, eventId: number): Promise<void> {
    return this.deps.store.markDetailsShown(channelId, eventId);
  }
}

/** Details as recorded (this version's JSON); null when they are not of that shape. */
export function asDetails(value: unknown): FailureDetails | null {
  const d = value as Partial<FailureDetails> | null;
  return d && Array.isArray(d.checks) && typeof d.more === "number" ? (d as FailureDetails) : null;
}
