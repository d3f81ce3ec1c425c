import { setTimeout as sleep } from "node:timers/promises";
import { CommandError } from "../commands/errors.js";
import type { GitHubGateway } from "../commands/ports.js";
import { wantsFailureDetails } from "../core/check-failures.js";
import type { MergeQueueBackend, MergeQueues } from "../core/merge-queue.js";
import type { QueueEvent } from "../core/queue.js";
import { QueueError } from "../core/queue-error.js";
import type { FreezeRecords } from "../core/record-ports.js";
import { windowAt } from "../freezes/schedule.js";
import type { Logger } from "../logger.js";
import type { Repo } from "../repo.js";
import type {
  FlakeShieldStore,
  OnceClaimStore,
  QueueHistory,
  QueueRequestStore,
  ShieldOutcome,
  ShieldRetry,
} from "../store/index.js";
import { SHIELD_RETRY_RETENTION_MS } from "../store/index.js";
import { clip } from "../wording/words.js";
import {
  endsShieldEntry,
  entriesUpTo,
  entryKeyOf,
  failingForEveryone,
  queuerOf,
  type Removal,
} from "./decide.js";
import { relayedBecause, type ShieldNote } from "./words.js";

const DAY_MS = 24 * 60 * 60 * 1000;
/** How far back a pull request's entries and the shield's re-queues of it are looked for. */
const LOOKBACK_MS = 30 * DAY_MS;
/**
 * How long a replica that sees another's claim waits for what came of it (then its notice goes without):
 * within GitHub's 10 s for a webhook's answer (a pushed notice is queued before it is answered).
 */
export const SHIELD_DECISION_WAIT_MS = 8_000;
const SHIELD_DECISION_POLL_MS = 250;
/** The once-claims' scope of the shield's re-queues, keyed by `<repository key>#<pull>#<entry key>`. */
const SCOPE = "flake-shield";
/** How long a replica's claim of a removal holds unrenewed (renewed while it decides); real time. */
export const SHIELD_CLAIM_MS = 60_000;

export interface FlakeShieldDeps {
  store: Pick<
    FlakeShieldStore,
    "getFlakeShield" | "recordShieldRetry" | "decideShieldRetry" | "getShieldRetry" | "listShieldRetries"
  > &
    Pick<OnceClaimStore, "claimOnce" | "renewOnce" | "finishOnce" | "readOnce"> &
    Pick<QueueHistory, "readPullQueueEvents"> &
    Pick<FreezeRecords, "listFreezes"> &
    Pick<QueueRequestStore, "rememberQueueRequest">;
  /** The merge queue serving a branch (its pause, its entry, how it takes `queue`). */
  queues: Pick<MergeQueues, "for">;
  /** The pull request (open, its head) and, for a queue that takes commands as comments, the relay. */
  github: Pick<GitHubGateway, "pullRequest" | "comment">;
  /** How relayed commands are addressed (MERGE_QUEUE_COMMAND_PREFIX). */
  commandPrefix: string;
  /**
   * Whether who turned the shield on may still do so (`retry`'s permission, asked of GitHub now); absent:
   * not asked. A shield whose owner lost it queues nothing again, and says so.
   */
  mayRetry?: (repository: Repo, login: string) => Promise<boolean>;
  /** Which replica this is, for claims. */
  owner: string;
  now: () => Date;
  logger: Logger;
  /** How long to wait for another replica's decision (default SHIELD_DECISION_WAIT_MS). */
  decisionWaitMs?: number;
}

type Decision = { outcome: Exclude<ShieldOutcome, "pending">; detail: string | null };
/** What a once-claim of a removal keeps when done (finishOnce's result). */
type Decided = Decision & { leftEventId: number; check: string };
type EntryKey = Pick<ShieldRetry, "repository" | "pull" | "entryKey">;

const onceKey = (key: EntryKey) => `${key.repository.key}#${key.pull}#${key.entryKey}`;

/**
 * The flake shield (docs/notifications.md, "The flake shield"): where it is on, a pull request that left
 * the queue for a check that also failed for at least two other pull requests within the hour is queued
 * again, once per queue entry, never while the queue is paused or frozen. The notifier hands it each
 * event before its notices are queued; what it did goes with them (`notes.shield`) and into the pull
 * request's summary comment (the removal's, src/github/removal-summary.ts, which says it with its details).
 * One replica acts: the entry is claimed first (a once-claim, scope `flake-shield`, its lease renewed
 * while the replica decides), recorded in `shield_retries` (the figures' 90 days), and done with what
 * came of it; a replica that finds it claimed shows what the claimant did. A replica that died holding
 * it leaves it to whichever takes the same removal after its lease lapsed.
 */
export class FlakeShield {
  constructor(private readonly deps: FlakeShieldDeps) {}

  /** The event, with what the shield did for it where it acted; as it is otherwise (never throws). */
  async consider(repository: Repo, event: QueueEvent): Promise<QueueEvent> {
    if (!wantsFailureDetails(event)) return event;
    const failing = failingForEveryone(event);
    if (!failing) return event;
    const removal: Removal = event;
    try {
      const note = await this.decide(repository, removal, failing);
      return note ? { ...event, notes: { ...event.notes, shield: note } } : event;
    } catch (error) {
      this.deps.logger.warn(
        { err: error, repository: repository.fullName, pull: removal.pull },
        "flake shield: could not consider a removal; its notice goes without",
      );
      return event;
    }
  }

  private async decide(
    repository: Repo,
    removal: Removal,
    failing: { check: string; pulls: number[] },
  ): Promise<ShieldNote | null> {
    const { store, owner } = this.deps;
    const setting = await store.getFlakeShield(repository);
    if (!setting?.enabled) return null;
    const at = Date.parse(removal.at);
    const now = this.deps.now();
    const entered = await store.readPullQueueEvents(
      repository,
      removal.pull,
      { from: new Date(at - LOOKBACK_MS), to: new Date(at + 1) },
      ["entered"],
    );
    const requeues = await store.listShieldRetries(repository, {
      from: new Date(Math.min(at, now.getTime()) - LOOKBACK_MS),
      to: new Date(now.getTime() + DAY_MS),
      pull: removal.pull,
    });
    // This removal taken on already by another replica (read after the entries: an entry its re-queue made
    // that is among them, at the removal's very time, is then known as its doing).
    // Its claim is then taken over only if its lease lapsed (its replica died before deciding).
    const taken = requeues.find((r) => r.leftEventId === removal.id);
    const entries = entriesUpTo(removal, entered);
    if (!taken && endsShieldEntry(removal, requeues, entries)) return null;
    const key = taken ?? { repository, pull: removal.pull, entryKey: entryKeyOf(removal, entries) };
    const claimed = await store.claimOnce(SCOPE, onceKey(key), {
      owner,
      now: new Date(),
      until: new Date(Date.now() + SHIELD_CLAIM_MS),
      keepMs: SHIELD_RETRY_RETENTION_MS,
    });
    // Another replica took this removal on (show what it did); or another removal of the same entry.
    if (claimed !== "claimed") return this.awaitDecision(repository, removal, key);
    const record = await store.recordShieldRetry({
      ...key,
      leftEventId: removal.id,
      leftAt: new Date(at),
      check: failing.check,
      owner,
      now,
    });
    const renewal = setInterval(
      () =>
        void store
          .renewOnce(SCOPE, onceKey(key), owner, new Date(Date.now() + SHIELD_CLAIM_MS))
          .catch(() => undefined),
      SHIELD_CLAIM_MS / 3,
    );
    renewal.unref();
    try {
      return await this.act(repository, removal, failing, { key, record, entries, by: setting.changedBy });
    } finally {
      clearInterval(renewal);
    }
  }

  /**
   * Decides a removal this replica claimed, records and finishes it. Its record may say it was done
   * already (a replica that died before finishing its claim, or another removal of the entry): then
   * that is finished again, nothing is done twice.
   */
  private async act(
    repository: Repo,
    removal: Removal,
    failing: { check: string; pulls: number[] },
    claim: { key: EntryKey; record: ShieldRetry; entries: QueueEvent[]; by: string },
  ): Promise<ShieldNote | null> {
    const { store, owner } = this.deps;
    const { key, record } = claim;
    const mine =
      record.leftEventId === removal.id && record.outcome === "pending" && record.claimedBy === owner;
    const decision: Decision = mine
      ? ((await this.ownerLost(repository, claim.by)) ??
        (await this.requeue(repository, removal, failing, queuerOf(claim.entries))))
      : { outcome: record.outcome === "pending" ? "skipped" : record.outcome, detail: record.detail };
    if (mine) await store.decideShieldRetry(key, owner, { ...decision, at: this.deps.now() });
    const decided: Decided = { ...decision, leftEventId: record.leftEventId, check: record.check };
    await store.finishOnce(SCOPE, onceKey(key), owner, new Date(), decided);
    if (record.leftEventId !== removal.id) return null;
    if (mine)
      this.deps.logger.info(
        {
          repository: repository.fullName,
          pull: removal.pull,
          check: failing.check,
          outcome: decision.outcome,
          detail: decision.detail,
        },
        `flake shield: ${decision.outcome === "requeued" ? "queued again" : decision.outcome === "failed" ? "could not queue again" : "left alone"} a pull request removed for a check failing for everyone`,
      );
    return noteOf(record.check, decision, await this.relays(repository, removal));
  }

  /**
   * What the replica that claimed the removal's entry did, once it says (its once-claim done, or, from
   * an older replica, its record decided); null: left alone, another removal of the entry, or not said
   * in time.
   */
  private async awaitDecision(repository: Repo, removal: Removal, key: EntryKey): Promise<ShieldNote | null> {
    const until = Date.now() + (this.deps.decisionWaitMs ?? SHIELD_DECISION_WAIT_MS);
    for (;;) {
      const decided = await this.decidedOf(key);
      if (decided === "other" || (decided && decided.leftEventId !== removal.id)) return null;
      if (decided) return noteOf(decided.check, decided, await this.relays(repository, removal));
      if (Date.now() >= until) return null;
      await sleep(SHIELD_DECISION_POLL_MS);
    }
  }

  /** What came of an entry's claim: decided, "other" (a removal other than the one awaited), or null: not yet. */
  private async decidedOf(key: EntryKey): Promise<Decided | "other" | null> {
    const once = await this.deps.store.readOnce(SCOPE, onceKey(key));
    if (once?.doneAt && once.result) return once.result as Decided;
    const record = await this.deps.store.getShieldRetry(key);
    if (!record || record.outcome === "pending") return null;
    return {
      outcome: record.outcome,
      detail: record.detail,
      leftEventId: record.leftEventId,
      check: record.check,
    };
  }

  /**
   * Whether the queue takes `queue` as a relayed comment (Mergify's): it is then asked, and takes it in
   * its own time (its answer and its `entered` event say it did), so the notice says it was asked.
   */
  private async relays(repository: Repo, removal: Removal): Promise<boolean> {
    const backend = await this.deps.queues.for(repository, removal.branch ?? undefined).catch(() => null);
    return backend?.commands.via === "comments";
  }

  /** Queues the pull request again, unless the queue is held or it needs not be; what came of it. */
  private async requeue(
    repository: Repo,
    removal: Removal,
    failing: { check: string; pulls: number[] },
    queuer: string | null,
  ): Promise<Decision> {
    const { github } = this.deps;
    try {
      const backend = await this.deps.queues.for(repository, removal.branch ?? undefined);
      const held = await this.heldBy(repository, removal, backend);
      if (held) return { outcome: "skipped", detail: held };
      const pull = await github.pullRequest(repository, removal.pull);
      if (!pull) return { outcome: "skipped", detail: "it is not a pull request any more" };
      if (pull.state !== "open")
        return { outcome: "skipped", detail: pull.merged ? "it is merged" : "it is closed" };
      const entry = await backend.entry(repository, removal.pull).catch(() => null);
      if (entry) return { outcome: "skipped", detail: "it is in the queue again already" };
      // Who queued the entry stays its queuer (the merge queue names the app's bot): they hear of it.
      if (queuer && !queuer.endsWith("[bot]"))
        await this.deps.store
          .rememberQueueRequest(repository, removal.pull, { login: queuer, at: this.deps.now() })
          .catch(() => undefined);
      if (backend.commands.via === "api") {
        await backend.commands.enqueue(
          repository,
          { number: removal.pull, headSha: pull.headSha },
          { jump: false },
        );
      } else {
        const name = removal.queue && /^[\w.\-/]{1,255}$/.test(removal.queue) ? ` ${removal.queue}` : "";
        const body = `${this.deps.commandPrefix} queue${name}\n\n${relayedBecause(failing.check, failing.pulls)}`;
        await github.comment(repository, removal.pull, body);
      }
      return { outcome: "requeued", detail: null };
    } catch (error) {
      return { outcome: "failed", detail: why(error) };
    }
  }

  /** A failure when who turned the shield on may no longer (asked of GitHub); null when they may. */
  private async ownerLost(repository: Repo, login: string): Promise<Decision | null> {
    const may = this.deps.mayRetry;
    if (!may) return null;
    try {
      if (await may(repository, login)) return null;
    } catch (error) {
      return {
        outcome: "failed",
        detail: `GitHub could not say whether ${login}, who turned the flake shield on, may still do so (${why(error)})`,
      };
    }
    return {
      outcome: "failed",
      detail: `${login}, who turned the flake shield on, may no longer do so (someone who may can turn it on again with retry on)`,
    };
  }

  /** Why the queue must be left alone now (paused, or a freeze window in progress); null when it runs. */
  private async heldBy(
    repository: Repo,
    removal: Removal,
    backend: MergeQueueBackend,
  ): Promise<string | null> {
    const pause = await backend.pauses?.current({ repo: repository, branch: removal.branch });
    if (pause) return `the merge queue is paused (${clip(pause.reason || "no reason given", 200)})`;
    const now = this.deps.now();
    const frozen = (await this.deps.store.listFreezes(repository)).find((freeze) => {
      const window = windowAt(freeze.schedule, freeze.zone, now);
      return window !== null && window.start.getTime() <= now.getTime();
    });
    return frozen ? `the freeze ${clip(frozen.name, 100)} is in progress` : null;
  }
}

/** What the notices say of a decision: queued again (or asked to be), or could not be; nothing when left alone. */
function noteOf(check: string, decision: Decision | ShieldRetry, relayed: boolean): ShieldNote | null {
  if (decision.outcome === "requeued")
    return { check, outcome: relayed ? "asked" : "requeued", detail: null };
  if (decision.outcome === "failed") return { check, outcome: "failed", detail: decision.detail };
  return null;
}

/** Why a re-queue failed, in plain words (shown escaped). */
function why(error: unknown): string {
  if (error instanceof QueueError)
    return clip(
      `the merge queue answered ${error.status ?? error.code}${error.detail ? ` (${error.detail})` : ""}`,
      300,
    );
  if (error instanceof CommandError)
    return clip(
      `${error.code.replace(/_/g, " ")}${error.details.detail ? ` (${error.details.detail})` : ""}`,
      300,
    );
  const status = (error as { status?: unknown }).status;
  if (typeof status === "number") return `GitHub answered ${status}`;
  return clip(error instanceof Error ? error.message : String(error), 300);
}
