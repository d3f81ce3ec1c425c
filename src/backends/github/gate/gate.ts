import { randomUUID } from "node:crypto";
import { CommandError, CommandErrorCode } from "../../../core/errors.js";
import {
  type HeldPause,
  type LetThrough,
  labelKey,
  type PauseRequest,
  type PauseTarget,
  type QueuePause,
  type QueuePauses,
  type QueueResume,
} from "../../../core/pause.js";
import type { QueueEvent, QueueEventBody } from "../../../core/queue.js";
import type { Logger } from "../../../logger.js";
import type { Repo } from "../../../repo.js";
import type { GateDrain, GatePass, GatePauseRecord, GateStore } from "../../../store/gates.js";
import type { WorkItem } from "../../../store/index.js";
import { pushedEventId } from "../queue-events.js";
import { checkOf, GateChecks, type GateHead, type GateWork } from "./checks.js";

import { GateDecisions, type GateEntries } from "./decisions.js";
import type { GateGitHub } from "./github.js";
import { type PutBack, putBackTimedOut } from "./put-back.js";
import { GateReconsiders } from "./reconsider.js";
import { gateWarning } from "./required.js";
import { passedRun } from "./runs.js";
import { GATE_SWEEP_KIND, gateSweepKind } from "./sweep.js";

/** Completed gates and pull requests' gates older than this are deleted by the sweep. */
const GATE_CHECK_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** How many held gates one sweep completes at most. */
const SWEEP_BATCH = 100;

/** The gate check's name when GATE_CHECK_NAME is not set. */
export const DEFAULT_GATE_CHECK_NAME = "yardmaster/gate";

/** The gate's times, which tests give their own of. */
export interface GateTimes {
  /** The clock of the gates' claims and retries: the real time (GitHub's), unless a test gives its own. */
  claimsNow?: () => Date;
  /** The first retry's delay after GitHub refused a gate (5 s), doubling. */
  retryBaseMs?: number;
  /** How often the sweep comes (GATE_SWEEP_MS), on the claims' clock. */
  sweepMs?: number;
}

export interface GateDeps extends GateTimes {
  store: GateStore;
  github: GateGitHub;
  /** GATE_CHECK_NAME. */
  checkName: string;
  /** The GitHub App's id: the source a branch's rules should require the gate from (absent: any app's id counts). */
  appId?: number;
  /** This process, as the holder of claims in the store. */
  owner: string;
  /** The gate's business clock (a pause's start, a hold, a record's age). */
  now: () => Date;
  /** This replica's runner of durable work: the gates' check runs and completions are its kinds. */
  work: GateWork;
  logger: Logger;
  /** Puts back the pull requests GitHub removed for its check timeout while paused; absent: not done. */
  putBack?: PutBack;
  /**
   * Whether GitHub's merge queue serves a branch (MERGE_QUEUE_PROVIDER auto: elsewhere Mergify does, and
   * its pull requests get no gate); absent: every branch.
   */
  onGitHubQueue?: (repo: Repo, branch: string) => Promise<boolean>;
  /** Tells the channels (the notifier's pushed notices) that a branch paused or resumed; absent: nobody. */
  announce?: (repository: Repo, event: QueueEvent) => Promise<unknown>;
  /**
   * The pull requests in the branch's queue, in its order (GitHub's `mergeQueue`): a new pause holds them
   * in that order, so what GitHub times out is put back in it; absent: only the groups made while paused.
   */
  queued?: (repo: Repo, branch: string) => Promise<number[]>;
  /**
   * The branch's queue by position, with when each entry entered and its labels (GitHub's `mergeQueue`),
   * null where the branch has none: what drains, exemptions and pull requests let through are decided on.
   * Absent: none of them can be decided, and every merge group of a held branch is held.
   */
  entries?: GateEntries;
}

/** What the gate decided for a merge group of a held branch. */
type GateDecision = Awaited<ReturnType<GateDecisions["decide"]>>;

/** The events the gate tells the channels of. */
type GateAnnouncement = Extract<QueueEventBody, { kind: "paused" | "resumed" | "drained" | "let-through" }>;

/** A merge group GitHub asks checks of (`merge_group` `checks_requested`). */
export interface MergeGroupHead {
  repository: Repo;
  baseRef: string;
  headSha: string;
  /** The pull request the group was made for (its last entry), and its head commit. */
  pullNumber: number;
  pullHeadSha: string;
}

/** A pull request's new head (`pull_request` opened, reopened, synchronize). */
export interface PullHead {
  repository: Repo;
  baseRef: string;
  headSha: string;
  pullNumber: number;
}

/**
 * GitHub's merge queue held by a required check Yardmaster's GitHub App owns (docs/backends.md, "The
 * gate"): the gate check on every merge group's head and pull request's head. Not paused, it succeeds at
 * once; paused, a merge group's stays queued until the branch is resumed. Each gate's check run is made
 * as durable work (one per repository, commit and name across replicas and redeliveries, its record in
 * the store), and completed once. The pause itself is Yardmaster's, per repository and branch.
 */
export class GitHubGate implements QueuePauses {
  readonly scope = "branch" as const;
  readonly exemptions = "labels" as const;
  private readonly decisions: GateDecisions;
  private readonly checks: GateChecks;
  private readonly reconsiders: GateReconsiders;
  /** What this replica decided for the gates it is about to make (their run reads it, not GitHub again). */
  private readonly decided = new Map<
    string,
    { pause: GatePauseRecord | null; decided: GateDecision | null }
  >();

  constructor(private readonly deps: GateDeps) {
    this.decisions = new GateDecisions(deps);
    this.checks = new GateChecks(deps, (item) => this.makeCheck(item));
    const claimsNow = () => deps.claimsNow?.() ?? new Date();
    this.reconsiders = new GateReconsiders({ ...deps, claimsNow }, this.decisions, this.checks);
    const sweepTimes = { now: claimsNow, ...(deps.sweepMs ? { everyMs: deps.sweepMs } : {}) };
    deps.work.register(gateSweepKind(() => this.sweep(), sweepTimes));
  }

  /**
   * This replica's runner makes and completes the gates left to it (lapsed, or due again), and takes its
   * turns at the sweep, until `stop`.
   */
  start(): void {
    this.checks.start();
    this.reconsiders.start();
    this.deps.work.resume(GATE_SWEEP_KIND);
  }

  async stop(): Promise<void> {
    await Promise.all([this.checks.stop(), this.reconsiders.stop(), this.deps.work.pause(GATE_SWEEP_KIND)]);
  }

  /** The branch a target names: its own, or the repository's default branch (read from GitHub). */
  private async branchOf(target: PauseTarget): Promise<string> {
    return target.branch ?? (await this.deps.github.defaultBranch(target.repo));
  }

  async current(target: PauseTarget): Promise<QueuePause | null> {
    const branch = await this.branchOf(target);
    const pause = await this.deps.store.getGatePause(target.repo, branch);
    return pause ? toQueuePause(pause) : null;
  }

  /** Each branch's pause, from the gate's own record (however long ago it began). */
  async held(repo: Repo): Promise<HeldPause[]> {
    const pauses = await this.deps.store.listGatePauses(repo);
    return pauses.map((p) => ({ ...toQueuePause(p), branch: p.branch }));
  }

  async pause(target: PauseTarget, pause: PauseRequest): Promise<QueuePause> {
    const except = [...new Set((pause.except ?? []).map(labelKey))];
    const key = `${pause.reason}${except.length ? `:except:${except.join(",")}` : ""}`;
    return this.hold(target, pause, { except }, (pauseId) => `gate-pause:${pauseId}:${key}`);
  }

  /**
   * Drains the branch (docs/backends.md, "The gate"): what its queue holds now (read from GitHub; refused
   * when it cannot be read whole) merges, what is queued later waits; a pause in force becomes the drain,
   * and the groups it held that hold only entries queued now pass at once.
   */
  async drain(target: PauseTarget, drain: { reason: string; by: string }): Promise<QueuePause> {
    const branch = await this.branchOf(target);
    const read = await this.queueToDrain(target.repo, branch);
    const kept: GateDrain = {
      id: randomUUID(),
      by: drain.by,
      startedAt: this.deps.now(),
      entries: read.map(({ number, enteredAt }) => ({ number, enteredAt })),
    };
    // The queue read once for the drain: what it holds, what a new pause holds, and whether it is drained.
    const known: GateEntries = async () => ({ entries: read, complete: true });
    return this.hold({ ...target, branch }, drain, { drain: kept }, () => `gate-drain:${kept.id}`, known);
  }

  /** What the branch's queue holds, for a drain: refused when GitHub cannot list all of it. */
  private async queueToDrain(repo: Repo, branch: string) {
    const entries = this.deps.entries;
    if (!entries) {
      throw new CommandError(CommandErrorCode.Unavailable, {
        command: "drain",
        detail: "draining GitHub's merge queue",
      });
    }
    const read = await entries(repo, branch);
    if (read && !read.complete) {
      throw new CommandError(CommandErrorCode.NotOnThisQueue, {
        command: "drain",
        repository: repo.fullName,
        detail: `GitHub's merge queue of ${branch} holds more pull requests than Yardmaster reads at once (${read.entries.length}): pause it instead`,
      });
    }
    return read?.entries ?? [];
  }

  /**
   * Pauses or drains the branch (or changes the pause in force), tells the channels, and decides again
   * the groups a pause in force held; a drain of a queue with nothing queued before it is drained at once.
   */
  private async hold(
    target: PauseTarget,
    who: { reason: string; by: string },
    how: { drain?: GateDrain; except?: readonly string[] },
    key: (pauseId: string) => string,
    known?: GateEntries,
  ): Promise<QueuePause> {
    const branch = await this.branchOf(target);
    // Read first: the pause's notice then follows as closely as before the command's own record of it.
    const { github, checkName, appId } = this.deps;
    const warning = await gateWarning(github, target.repo, branch, checkName, appId);
    const { updated, ...record } = await this.deps.store.putGatePause({
      repository: target.repo,
      branch,
      reason: who.reason,
      by: who.by,
      pausedAt: this.deps.now(),
      ...how,
    });
    if (!updated) await this.holdQueued(target.repo, branch, record.pauseId, known);
    // One branch's pause: its notice's Unpause names the branch.
    await this.announce(target.repo, branch, key(record.pauseId), {
      kind: "paused",
      reason: who.reason,
      by: who.by,
      update: updated,
      scope: "branch",
      ...(how.drain ? { drain: true as const } : {}),
      ...(how.except?.length ? { except: [...how.except] } : {}),
    });
    if (updated && (record.drain || record.except.length)) {
      await this.reconsiders.flag({ repository: target.repo, branch });
      await this.reconsiders.now({ repository: target.repo, branch });
    }
    const now = record.drain ? ((await this.checkDrained(record, undefined, known)) ?? record) : record;
    return { ...toQueuePause(now), ...(warning ? { warning } : {}) };
  }

  /**
   * Best effort: the entries queued when the pause begins, held in the queue's order (their merge groups
   * may have passed the gate already, and still time out on other checks while the queue waits).
   */
  private async holdQueued(repo: Repo, branch: string, pauseId: string, known?: GateEntries): Promise<void> {
    const { queued, store, now, logger } = this.deps;
    const read = known
      ? async () => ((await known(repo, branch))?.entries ?? []).map((e) => e.number)
      : queued && (() => queued(repo, branch));
    if (!read) return;
    try {
      for (const pullNumber of await read()) {
        await store.holdGateEntry({
          repository: repo,
          branch,
          pauseId,
          pullNumber,
          pullHeadSha: "",
          at: now(),
        });
      }
    } catch (error) {
      logger.warn(
        { err: error, repository: repo.fullName, branch },
        "could not read the merge queue when pausing it: what GitHub times out is put back in the order it is heard",
      );
    }
  }

  /**
   * Tells the channels (best effort: what happened happened whether or not they hear of it); false when
   * they could not be told. The same key makes the same event (once per channel, whoever tells it).
   */
  private async announce(repo: Repo, branch: string, key: string, body: GateAnnouncement): Promise<boolean> {
    const event = {
      id: pushedEventId(key),
      at: this.deps.now().toISOString(),
      repository: repo.fullName,
      pull: null,
      branch,
      queue: branch,
      origin: `gate.${body.kind}`,
      ...body,
    } as QueueEvent;
    try {
      await this.deps.announce?.(repo, event);
      return true;
    } catch (error) {
      this.deps.logger.warn(
        { err: error, repository: repo.fullName },
        `could not announce the gate's ${body.kind} event`,
      );
      return false;
    }
  }

  /**
   * Resumes the branch: the replica that ends the pause completes every held gate (oldest group first)
   * and puts back what GitHub removed for its check timeout meanwhile. Held gates GitHub would not
   * complete stay held for the sweep, and the answer's warning says so.
   */
  async resume(target: PauseTarget, by: string): Promise<false | QueueResume> {
    const branch = await this.branchOf(target);
    const pause = await this.deps.store.takeGatePause(target.repo, branch);
    if (!pause) return false;
    await this.announce(target.repo, branch, `gate-resume:${pause.pauseId}`, {
      kind: "resumed",
      by,
      scope: "branch",
    });
    let refused = 0;
    for (const gate of await this.deps.store.pendingGateChecks(target.repo, branch)) {
      if (!(await this.checks.complete(gate, `Resumed by ${by}`))) refused += 1;
    }
    if (this.deps.putBack) {
      const holds = await this.deps.store.takeGateHolds(target.repo, branch, pause.pauseId);
      const { putBack, logger } = this.deps;
      await putBackTimedOut(putBack, target.repo, branch, holds, by, logger).catch((error: unknown) =>
        this.deps.logger.error(
          { err: error, repository: target.repo.fullName, branch },
          "could not put back the pull requests GitHub removed while the queue was paused",
        ),
      );
    }
    return refused === 0 ? { branch } : { branch, warning: stillHeldWarning(branch, refused) };
  }

  /**
   * A merge group to test: its gate, held while its base branch is paused, unless the pause lets it
   * through (a drain's earlier entries, exempt labels, a pull request let through: decide.ts).
   */
  async onMergeGroup(group: MergeGroupHead): Promise<void> {
    const { store, checkName: name, now } = this.deps;
    const where = { repository: group.repository, branch: group.baseRef, pullNumber: group.pullNumber };
    const pause = await store.getGatePause(group.repository, group.baseRef);
    const decided = pause ? await this.decisions.decide(pause, where) : null;
    if (pause && !decided?.pass) {
      await store.holdGateEntry({
        repository: group.repository,
        branch: group.baseRef,
        pauseId: pause.pauseId,
        pullNumber: group.pullNumber,
        pullHeadSha: group.pullHeadSha,
        at: now(),
      });
    }
    await this.report({ ...group, kind: "group" }, name, { pause, decided });
  }

  /** Makes the gate of a head, claimed by this replica, at once (what was decided for it kept for its run). */
  private async report(
    head: GateHead,
    name: string,
    known: { pause: GatePauseRecord | null; decided: GateDecision | null },
  ): Promise<void> {
    let key: string | undefined;
    await this.checks.report(head, name, (k) => {
      key = k;
      this.decided.set(k, known);
    });
    if (key) this.decided.delete(key);
  }

  /** A pull request's head: its gate always succeeds (people may queue during a pause). */
  async onPullHead(pull: PullHead): Promise<void> {
    // When GitHub cannot say, the gate is reported: a success is harmless where nothing requires it.
    const check = this.deps.onGitHubQueue;
    const served = check ? await check(pull.repository, pull.baseRef).catch(() => true) : true;
    if (!served) return;
    await this.report({ ...pull, kind: "pull" }, this.deps.checkName, { pause: null, decided: null });
  }

  /**
   * GitHub removed a pull request from its queue: remembered, at the head it had, when its check timeout
   * removed it while the branch is paused (whether or not its merge group was made during the pause).
   */
  async onDequeued(removed: {
    repository: Repo;
    baseRef: string;
    pullNumber: number;
    headSha: string;
    reason: string;
  }): Promise<void> {
    const { store, now } = this.deps;
    const pause = await store.getGatePause(removed.repository, removed.baseRef);
    if (!pause) return;
    // A drain may have lost its last earlier entry (merged, or removed): best effort, the sweep checks too.
    if (pause.drain && !pause.drainedAt) {
      await this.checkDrained(pause, removed.pullNumber).catch((error: unknown) =>
        this.deps.logger.warn(
          { err: error, repository: removed.repository.fullName, branch: removed.baseRef },
          "could not tell whether the merge queue is drained: the sweep looks again shortly",
        ),
      );
    }
    if (removed.reason !== "CI_TIMEOUT") return;
    await store.holdTimedOutEntry({
      repository: removed.repository,
      branch: removed.baseRef,
      pauseId: pause.pauseId,
      pullNumber: removed.pullNumber,
      pullHeadSha: removed.headSha,
      at: now(),
    });
  }

  /**
   * The sweep (docs/backends.md, "The gate"), every few seconds by one replica: completes the held gates
   * of branches no longer paused (a resume that stopped half way; each completion a work item, made by
   * one replica), asks for a decision of the held gates flagged with none asked for, and deletes old
   * finished rows. Claims whose replica died, and gates GitHub refused, are the runner's (durable work:
   * `GateChecks`, `GateReconsiders`).
   */
  async sweep(): Promise<void> {
    const { store, now, logger } = this.deps;
    for (const gate of await store.unpausedHeldGates(SWEEP_BATCH)) {
      await this.checks.complete(gate, "Resumed", "later");
    }
    await this.reconsiders.sweep();
    // One read of GitHub's queue per draining branch each sweep, while a drain lasts. A removal from the
    // queue looks too (on the replica that heard it): the channels hear a drain's end once all the same
    // (its event's key), and one replica marks it (markGateDrained).
    for (const pause of await store.listDrainingGatePauses()) {
      await this.checkDrained(pause).catch((error: unknown) =>
        logger.warn(
          { err: error, repository: pause.repository.fullName, branch: pause.branch },
          "could not tell whether the merge queue is drained: Yardmaster looks again shortly",
        ),
      );
    }
    await store.deleteOldGateChecks(new Date(now().getTime() - GATE_CHECK_RETENTION_MS));
  }

  /**
   * Whether the drain is done: nothing queued before it is left in the queue (`left`: a pull request GitHub
   * just removed, which it may still list). Then the channels hear it once, and it is marked drained (the
   * record, drained), held until resumed. Throws when GitHub cannot be read.
   */
  private async checkDrained(
    pause: GatePauseRecord,
    left?: number,
    known?: GateEntries,
  ): Promise<GatePauseRecord | null> {
    const drain = pause.drain;
    if (!drain || pause.drainedAt) return null;
    const remaining = await this.decisions.earlierLeft(pause, left, known);
    if (remaining === null || remaining > 0) return null;
    // Still this drain, undrained: not one an unpause or a new pause ended while GitHub was read.
    const { store } = this.deps;
    const current = await store.getGatePause(pause.repository, pause.branch);
    if (current?.drain?.id !== drain.id || current.drainedAt) return null;
    // Told first (the same event whoever tells it), then marked: a replica that dies between the two
    // leaves it to the next sweep, and the channels still hear it once.
    const told = await this.announce(pause.repository, pause.branch, `gate-drained:${drain.id}`, {
      kind: "drained",
      by: drain.by,
      reason: pause.reason,
      scope: "branch",
    });
    if (!told) return null;
    return store.markGateDrained(pause.repository, pause.branch, drain.id, this.deps.now());
  }

  /**
   * Lets a pull request's merge group through the branch's pause (docs/backends.md, "The gate"): refused
   * (`others`) while the group holds others ahead of it unless confirmed; then kept for the pause (a group
   * GitHub makes again for it passes too, as long as it holds no one else), told to the channels, and its
   * held gates completed at once.
   */
  async letThrough(
    target: { repo: Repo; branch: string; pull: number },
    options: { by: string; confirm: boolean },
  ): Promise<LetThrough> {
    const { store, now } = this.deps;
    const { repo, branch, pull } = target;
    const pause = await store.getGatePause(repo, branch);
    if (!pause) return { kind: "not-held", branch };
    const group = await this.decisions.groupToLet(repo, branch, pull);
    if (!group) return { kind: "not-queued", branch };
    const others = group.filter((n) => n !== pull);
    if (others.length > 0 && !options.confirm) return { kind: "others", branch, others };
    // Each pull request of the group passes with those ahead of it: GitHub merges the group once the
    // groups ahead of it within it have passed too.
    let pass: GatePass | undefined;
    for (const [i, number] of group.entries()) {
      const pulls = group.slice(0, i + 1);
      pass = await store.putGatePass({
        repository: repo,
        branch,
        pauseId: pause.pauseId,
        pullNumber: number,
        pulls,
        by: options.by,
        at: now(),
      });
      await this.reconsiders.flag({ repository: repo, branch }, { pull: number });
    }
    await this.announce(repo, branch, `gate-let:${pass?.passId ?? pull}:${group.join(",")}`, {
      kind: "let-through",
      by: options.by,
      pulls: group,
      scope: "branch",
    });
    const passed = await this.reconsiders.now({ repository: repo, branch });
    return { kind: "passed", branch, pulls: group, passedNow: passed.some((g) => g.pullNumber === pull) };
  }

  /**
   * A `gate-check` item's run (this replica's, just heard of; or taken over, or due again after GitHub
   * refused it): the gate's record made (once), then its check run (queued if its branch is paused now
   * and the pause holds it, else a success), unless one was made; throws when GitHub refused.
   */
  private async makeCheck(item: WorkItem): Promise<void> {
    const { store, owner, now } = this.deps;
    const { head, name } = checkOf(item);
    const { repository, baseRef: branch, headSha, pullNumber } = head;
    const gate = await store.recordGateCheck({ ...head, branch, name, owner, at: now() });
    if (gate.checkRunId !== null || gate.state !== "claimed") return;
    const known = this.decided.get(item.key);
    const group = head.kind === "group";
    const pause = known ? known.pause : group ? await store.getGatePause(repository, branch) : null;
    const decided = known ? known.decided : pause ? await this.decisions.decide(pause, gate) : null;
    const open = group ? "The merge queue is running" : "Pull requests may be queued at any time";
    const reported = await this.checks.makeRun(head, decided?.run ?? passedRun(name, open));
    if (!pause || decided?.pass) return;
    if (decided?.undecided) await this.reconsiders.flag({ repository, branch }, { headSha });
    const after = await store.getGatePause(repository, branch);
    // Resumed while the check run was being made: the resume may not have seen it, so it is done here.
    if (!after) {
      await this.checks.complete(reported, "Resumed");
      return;
    }
    // Changed meanwhile (a drain, exemptions, a pull request let through): decided again on what holds now.
    if (await this.decisions.changed(pause, after, pullNumber)) {
      await this.reconsiders.flag({ repository, branch }, { headSha });
      await this.reconsiders.now({ repository, branch });
    }
  }
}

function toQueuePause(pause: GatePauseRecord): QueuePause {
  return {
    reason: pause.reason,
    pausedAt: pause.pausedAt.toISOString(),
    by: pause.drain?.by ?? pause.by,
    branch: pause.branch,
    ...(pause.drain
      ? { drain: { drainedAt: pause.drainedAt?.toISOString() ?? null, entries: pause.drain.entries.length } }
      : {}),
    ...(pause.except.length ? { except: [...pause.except] } : {}),
  };
}

/** What a resume says when GitHub would not complete some of the branch's held gates. */
export function stillHeldWarning(branch: string, refused: number): string {
  const gates = refused === 1 ? "1 merge group's gate check" : `${refused} merge groups' gate checks`;
  return `Not running yet: GitHub refused to complete ${gates} on ${branch}, so GitHub's merge queue still holds them. Yardmaster tries again by itself, each time a little later; if it keeps failing, check that the GitHub App has the checks: write permission (/mq doctor says).`;
}
