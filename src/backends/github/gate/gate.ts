import type { HeldPause, PauseTarget, QueuePause, QueuePauses, QueueResume } from "../../../core/pause.js";
import type { QueueEvent, QueueEventBody } from "../../../core/queue.js";
import type { Logger } from "../../../logger.js";
import type { Repo } from "../../../repo.js";
import type { GateCheckRecord, GatePauseRecord, GateStore } from "../../../store/gates.js";
import { codeSpan, escapeMarkdown } from "../../../wording/markdown.js";
import { withoutBidiControls } from "../../../wording/words.js";
import { pushedEventId } from "../queue-events.js";
import type { GateGitHub, GateRun } from "./github.js";
import { type PutBack, putBackTimedOut } from "./put-back.js";
import { gateWarning } from "./required.js";

/** A claim (of a check run to make, or of a held gate to complete) older than this may be taken over. */
const GATE_CLAIM_LEASE_MS = 60_000;

/** Completed gates and pull requests' gates older than this are deleted by the sweep. */
const GATE_CHECK_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** How many held gates one sweep completes at most. */
const SWEEP_BATCH = 100;

/** After GitHub refused a gate's check run or completion `attempts` times before: when to try again. */
export function gateRetryDelayMs(attempts: number): number {
  return Math.min(5 * 60_000, 5_000 * 2 ** Math.min(attempts, 10));
}

/** The gate check's name when GATE_CHECK_NAME is not set. */
export const DEFAULT_GATE_CHECK_NAME = "yardmaster/gate";

export interface GateDeps {
  store: GateStore;
  github: GateGitHub;
  /** GATE_CHECK_NAME. */
  checkName: string;
  /** The GitHub App's id: the source a branch's rules should require the gate from (absent: any app's id counts). */
  appId?: number;
  /** This process, as the holder of claims in the store. */
  owner: string;
  now: () => Date;
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
}

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
 * once; paused, a merge group's stays queued until the branch is resumed. Each gate is claimed in the
 * store before its check run is made (one per repository, commit and name across replicas and
 * redeliveries), and completed once. The pause itself is Yardmaster's, per repository and branch.
 */
export class GitHubGate implements QueuePauses {
  readonly scope = "branch" as const;

  constructor(private readonly deps: GateDeps) {}

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

  async pause(target: PauseTarget, pause: { reason: string; by: string }): Promise<QueuePause> {
    const branch = await this.branchOf(target);
    // Read first: the pause's notice then follows as closely as before the command's own record of it.
    const { github, checkName, appId } = this.deps;
    const warning = await gateWarning(github, target.repo, branch, checkName, appId);
    const { updated, ...record } = await this.deps.store.putGatePause({
      repository: target.repo,
      branch,
      reason: pause.reason,
      by: pause.by,
      pausedAt: this.deps.now(),
    });
    if (!updated) await this.holdQueued(target.repo, branch, record.pauseId);
    await this.announce(target.repo, branch, `gate-pause:${record.pauseId}:${pause.reason}`, {
      kind: "paused",
      reason: pause.reason,
      by: pause.by,
      update: updated,
      // One branch's pause: its notice's Unpause names the branch.
      scope: "branch",
    });
    return { ...toQueuePause(record), ...(warning ? { warning } : {}) };
  }

  /**
   * Best effort: the entries queued when the pause begins, held in the queue's order (their merge groups
   * may have passed the gate already, and still time out on other checks while the queue waits).
   */
  private async holdQueued(repo: Repo, branch: string, pauseId: string): Promise<void> {
    const { queued, store, now, logger } = this.deps;
    if (!queued) return;
    try {
      for (const pullNumber of await queued(repo, branch)) {
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

  /** Best effort: the pause or resume happened whether or not the channels hear of it. */
  private async announce(
    repo: Repo,
    branch: string,
    key: string,
    body: Extract<QueueEventBody, { kind: "paused" | "resumed" }>,
  ): Promise<void> {
    const event: QueueEvent = {
      id: pushedEventId(key),
      at: this.deps.now().toISOString(),
      repository: repo.fullName,
      pull: null,
      branch,
      queue: branch,
      origin: `gate.${body.kind}`,
      ...body,
    };
    await this.deps
      .announce?.(repo, event)
      .catch((error: unknown) =>
        this.deps.logger.warn(
          { err: error, repository: repo.fullName },
          "could not announce the gate's pause",
        ),
      );
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
      if (!(await this.complete(gate, `Resumed by ${by}`))) refused += 1;
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

  /** A merge group to test: its gate, held while its base branch is paused. */
  async onMergeGroup(group: MergeGroupHead): Promise<void> {
    const { store, checkName: name, now } = this.deps;
    const pause = await store.getGatePause(group.repository, group.baseRef);
    if (pause) {
      await store.holdGateEntry({
        repository: group.repository,
        branch: group.baseRef,
        pauseId: pause.pauseId,
        pullNumber: group.pullNumber,
        pullHeadSha: group.pullHeadSha,
        at: now(),
      });
    }
    const reported = await this.report(
      { ...group, kind: "group" },
      pause ? heldRun(name, pause) : passedRun(name, "The merge queue is running"),
    );
    if (!reported || !pause) return;
    // Resumed while the check run was being made: the resume may not have seen it, so it is done here.
    if (!(await store.getGatePause(group.repository, group.baseRef))) {
      await this.complete(reported, "Resumed");
    }
  }

  /** A pull request's head: its gate always succeeds (people may queue during a pause). */
  async onPullHead(pull: PullHead): Promise<void> {
    // When GitHub cannot say, the gate is reported: a success is harmless where nothing requires it.
    const check = this.deps.onGitHubQueue;
    const served = check ? await check(pull.repository, pull.baseRef).catch(() => true) : true;
    if (!served) return;
    await this.report(
      { ...pull, kind: "pull" },
      passedRun(this.deps.checkName, "Pull requests may be queued at any time"),
    );
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
    if (removed.reason !== "CI_TIMEOUT") return;
    const { store, now } = this.deps;
    const pause = await store.getGatePause(removed.repository, removed.baseRef);
    if (!pause) return;
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
   * Claims the gate of a commit, then makes its check run; null when another replica or an earlier
   * delivery claimed it, or when GitHub refused the check run: the claim is kept then, and the sweep
   * makes it again later (GitHub never redelivers a webhook by itself).
   */
  private async report(
    head: { repository: Repo; baseRef: string; headSha: string; pullNumber: number; kind: "group" | "pull" },
    run: GateRun,
  ): Promise<GateCheckRecord | null> {
    const { store, now } = this.deps;
    const key = { repository: head.repository, headSha: head.headSha, name: run.name };
    const claimed = await store.claimGateCheck({
      ...key,
      branch: head.baseRef,
      kind: head.kind,
      pullNumber: head.pullNumber,
      owner: this.deps.owner,
      at: now(),
      staleBefore: this.staleBefore(),
    });
    if (!claimed) return null;
    return this.makeRun(head, run, 0).catch((error: unknown) => {
      this.deps.logger.warn(
        { err: error, repository: head.repository.fullName, sha: head.headSha },
        "GitHub refused the gate check: Yardmaster makes it again shortly",
      );
      return null;
    });
  }

  private staleBefore(): Date {
    return new Date(this.deps.now().getTime() - GATE_CLAIM_LEASE_MS);
  }

  /**
   * Makes the check run of a gate this replica claimed; a failure keeps the claim, to be made again by the
   * sweep after a backoff (`attempts`: GitHub's refusals so far), and throws.
   */
  private async makeRun(
    head: { repository: Repo; baseRef: string; headSha: string; pullNumber: number; kind: "group" | "pull" },
    run: GateRun,
    attempts: number,
  ): Promise<GateCheckRecord> {
    const { store, github, now } = this.deps;
    const key = { repository: head.repository, headSha: head.headSha, name: run.name };
    let id: number;
    try {
      id = await github.createCheckRun(head.repository, { ...run, headSha: head.headSha });
    } catch (error) {
      await this.defer(head.repository, head.headSha, run.name, attempts);
      throw error;
    }
    const state = run.status === "queued" ? "queued" : "success";
    await store.gateCheckReported(head.repository, head.headSha, run.name, id, state, now());
    return {
      ...key,
      branch: head.baseRef,
      kind: head.kind,
      pullNumber: head.pullNumber,
      checkRunId: id,
      state,
      createdAt: now(),
      attempts: 0,
    };
  }

  /** GitHub refused a gate's check run or completion: tried again after the backoff. */
  private async defer(repository: Repo, headSha: string, name: string, attempts: number): Promise<void> {
    const retryAt = new Date(this.deps.now().getTime() + gateRetryDelayMs(attempts));
    await this.deps.store.deferGateCheck(repository, headSha, name, retryAt).catch(() => undefined);
  }

  /**
   * The sweep (docs/backends.md, "The gate"), every few seconds on each replica: takes over the claims
   * whose replica died before making their check run and makes it (queued if the branch is paused now,
   * else a success), completes the held gates of branches no longer paused (a resume that stopped half
   * way, or a completion GitHub did not hear), and deletes old finished rows. Each gate is taken by one
   * replica (its claim is one statement).
   */
  async sweep(): Promise<void> {
    const { store, owner, now, logger } = this.deps;
    for (const gate of await store.takeStaleGateClaims(owner, now(), this.staleBefore())) {
      await this.reportTakenOver(gate).catch((error: unknown) =>
        logger.warn(
          { err: error, repository: gate.repository.fullName, sha: gate.headSha },
          "could not make a gate check another replica had claimed: Yardmaster tries again shortly",
        ),
      );
    }
    for (const gate of await store.unpausedHeldGates(SWEEP_BATCH, now())) {
      await this.complete(gate, "Resumed");
    }
    await store.deleteOldGateChecks(new Date(now().getTime() - GATE_CHECK_RETENTION_MS));
  }

  /** Makes the check run of a gate whose claim this replica took over. */
  private async reportTakenOver(gate: GateCheckRecord): Promise<void> {
    const { store } = this.deps;
    const pause = gate.kind === "group" ? await store.getGatePause(gate.repository, gate.branch) : null;
    const open =
      gate.kind === "group" ? "The merge queue is running" : "Pull requests may be queued at any time";
    const head = { ...gate, baseRef: gate.branch };
    const reported = await this.makeRun(
      head,
      pause ? heldRun(gate.name, pause) : passedRun(gate.name, open),
      gate.attempts,
    );
    if (pause && !(await store.getGatePause(gate.repository, gate.branch))) {
      await this.complete(reported, "Resumed");
    }
  }

  /**
   * Completes a held gate, once across replicas: false when GitHub refused (it stays held, and the sweep
   * completes it again after a backoff).
   */
  private async complete(gate: GateCheckRecord, title: string): Promise<boolean> {
    const { store, github, now, checkName } = this.deps;
    const { repository, headSha, name } = gate;
    const id = await store.claimGateCompletion(repository, headSha, name, now(), this.staleBefore());
    if (id === null) return true;
    try {
      await github.updateCheckRun(repository, id, passedRun(checkName, title));
    } catch (error) {
      await this.defer(repository, headSha, name, gate.attempts);
      this.deps.logger.error(
        { err: error, repository: repository.fullName, sha: headSha },
        "could not complete a held gate check: Yardmaster tries again shortly",
      );
      return false;
    }
    await store.gateCompleted(repository, headSha, name, now());
    return true;
  }
}

function toQueuePause(pause: GatePauseRecord): QueuePause {
  return { reason: pause.reason, pausedAt: pause.pausedAt.toISOString(), by: pause.by, branch: pause.branch };
}

/** What a resume says when GitHub would not complete some of the branch's held gates. */
export function stillHeldWarning(branch: string, refused: number): string {
  const gates = refused === 1 ? "1 merge group's gate check" : `${refused} merge groups' gate checks`;
  return `Not running yet: GitHub refused to complete ${gates} on ${branch}, so GitHub's merge queue still holds them. Yardmaster tries again by itself, each time a little later; if it keeps failing, check that the GitHub App has the checks: write permission (/mq doctor says).`;
}

/** A check run's title from what people typed: one line, no bidirectional controls, at most 200 characters. */
function checkRunTitle(text: string): string {
  return withoutBidiControls(text)
    .replace(/\s*[\r\n\u2028\u2029]+\s*/g, " ")
    .slice(0, 200);
}

function passedRun(name: string, title: string): GateRun {
  return {
    name,
    status: "completed",
    title: checkRunTitle(title),
    summary: "Yardmaster does not hold this branch's merge queue: the gate is open.",
  };
}

function heldRun(name: string, pause: GatePauseRecord): GateRun {
  return {
    name,
    status: "queued",
    title: checkRunTitle(`Paused by ${pause.by}: ${pause.reason}`),
    summary: [
      `Yardmaster holds the merge queue of ${codeSpan(pause.branch)}: paused by ${escapeMarkdown(pause.by)} since ${pause.pausedAt.toISOString()}.`,
      "",
      `Reason: ${escapeMarkdown(pause.reason)}`,
      "",
      "This check completes when the queue is unpaused (`/mq unpause` in Slack, or `@yardmaster unpause` on a pull request).",
    ].join("\n"),
  };
}
