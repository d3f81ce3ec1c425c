import type { FailureDetails } from "../core/check-failures.js";
import { wantsFailureDetails } from "../core/check-failures.js";
import type { QueueEvent, QueueEventOf } from "../core/queue.js";
import type { Logger } from "../logger.js";
import type { Repo } from "../repo.js";
import type { DetailsEdit, FailureDetailsStore } from "../store/index.js";

/**
 * Why a removal's checks failed, in the notices (docs/notifications.md, "Why a check failed"): when a
 * pull request leaves the queue for failed checks, the replica that hands the event to the outbox claims
 * the reading of its details in the store (`failure_details`, one row per event) and reads them from
 * GitHub in the background (src/github/check-runs.ts); its notices (channels and direct messages) wait
 * for them at most `waitMs` (10 s), then go without them and are edited in place once they are read
 * (the deliverer: delivery-details.ts). A replica that dies while reading leaves a claim that lapses:
 * the next delivery of one of its notices takes the reading over. Details that cannot be read (no
 * `checks: read`, a 404, a timeout) leave the notices as they are; nothing fails for them. The one that
 * read them also writes the pull request's summary comment on GitHub.
 */

/** How long a removal's notices wait for its details at most. */
export const DETAILS_WAIT_MS = 10_000;
/** How long a replica's claim on reading them lasts; past it, another reads them. */
export const DETAILS_CLAIM_MS = 60_000;
/**
 * How long the replica reading them waits for them within its delivery pass (the rest of the wait holds
 * the channel, its pass over): a read that takes a moment posts the notice with them in the same pass.
 */
export const DETAILS_INLINE_WAIT_MS = 3_000;

export interface FailureDetailsDeps {
  store: FailureDetailsStore;
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
  /** The real clock, in ms: a wait is real time, whatever clock the notices run on. */
  clock?: () => number;
}

/** What a removal's notice shows: its details (null: without them), or nothing for `waitMs` more. */
export type RowDetails = { details: FailureDetails | null } | { waitMs: number };

/** What the deliverer asks of the details: what a row shows, and the messages to edit. */
export interface DeliveredDetails {
  forRow(repository: Repo, event: QueueEvent): Promise<RowDetails | undefined>;
  edits(channelId?: string): Promise<DetailsEdit[]>;
  shown(channelId: string, eventId: number): Promise<void>;
}

export class FailureDetailsKeeper implements DeliveredDetails {
  /** The readings this process is doing, by event id. */
  private readonly reading = new Map<number, Promise<void>>();

  constructor(private readonly deps: FailureDetailsDeps) {}

  private clock(): number {
    return this.deps.clock?.() ?? Date.now();
  }

  /**
   * Claims the reading of a removal's details and starts it (not awaited), unless another replica holds
   * it or it was done. Never throws: the notices go without details when it cannot start.
   */
  async begin(repository: Repo, event: QueueEvent): Promise<void> {
    if (!wantsFailureDetails(event)) return;
    const now = this.clock();
    let claimed = false;
    try {
      claimed = await this.deps.store.claimFailureDetails({
        eventId: event.id,
        repository,
        owner: this.deps.owner,
        now: new Date(now),
        until: new Date(now + (this.deps.claimMs ?? DETAILS_CLAIM_MS)),
        dueAt: new Date(now + (this.deps.waitMs ?? DETAILS_WAIT_MS)),
      });
    } catch (error) {
      this.deps.logger.warn(
        { repository, err: error },
        "could not claim a removal's details: its notices go without them",
      );
      return;
    }
    if (!claimed) return;
    const reading = this.readAndRecord(repository, event).finally(() => this.reading.delete(event.id));
    this.reading.set(event.id, reading);
    this.deps.track?.(reading);
  }

  private async readAndRecord(repository: Repo, event: QueueEventOf<"left">): Promise<void> {
    const { logger, store, owner } = this.deps;
    let details: FailureDetails | null = null;
    try {
      details = await this.deps.read(repository, event);
    } catch (error) {
      logger.warn(
        { repository, pull: event.pull, err: error, status: (error as { status?: unknown }).status },
        "could not read why the checks failed: the removal's notices go without it",
      );
    }
    try {
      if (!(await store.recordFailureDetails(event.id, owner, details, new Date(this.clock())))) return;
    } catch (error) {
      logger.warn({ repository, err: error }, "could not record why the checks failed");
      return;
    }
    this.deps.deliver();
    await this.deps
      .summarize?.(repository, event, details)
      .catch((error: unknown) =>
        logger.warn(
          { repository, pull: event.pull, err: error },
          "could not write the pull request's summary comment",
        ),
      );
  }

  async forRow(repository: Repo, event: QueueEvent): Promise<RowDetails | undefined> {
    if (!wantsFailureDetails(event)) return undefined;
    await this.inline(event.id);
    const record = await this.deps.store.getFailureDetails(event.id);
    if (!record || record.status === "none") return { details: null };
    if (record.status === "read") return { details: asDetails(record.details) };
    const now = this.clock();
    // Its reader died: this replica reads them now (the notice waits no longer than it would have).
    if (record.claimedUntil.getTime() < now) await this.begin(repository, event);
    const waitMs = record.dueAt.getTime() - now;
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
