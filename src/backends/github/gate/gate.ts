import type { PauseTarget, QueuePause, QueuePauses } from "../../../core/pause.js";
import type { QueueEvent, QueueEventBody } from "../../../core/queue.js";
import { codeSpan, escapeMarkdown } from "../../../github/markdown.js";
import type { Logger } from "../../../logger.js";
import type { Repo } from "../../../repo.js";
import type { GateCheckRecord, GatePauseRecord, GateStore } from "../../../store/gates.js";
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
    const pause = await this.deps.store.getGatePause(target.repo, await this.branchOf(target));
    return pause ? toQueuePause(pause) : null;
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
   * and puts back what GitHub removed for its check timeout meanwhile.
   */
  async resume(target: PauseTarget, by: string): Promise<boolean> {
    const branch = await this.branchOf(target);
    const pause = await this.deps.store.takeGatePause(target.repo, branch);
    if (!pause) return false;
    await this.announce(target.repo, branch, `gate-resume:${pause.pauseId}`, { kind: "resumed", by });
    for (const gate of await this.deps.store.pendingGateChecks(target.repo, branch)) {
      await this.complete(gate, `Resumed by ${by}`);
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
    return true;
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

  /** GitHub removed a pull request from its queue: remembered when its check timeout removed a held one. */
  async onDequeued(repository: Repo, baseRef: string, pullNumber: number, reason: string): Promise<void> {
    if (reason !== "CI_TIMEOUT") return;
    const pause = await this.deps.store.getGatePause(repository, baseRef);
    if (!pause) return;
    await this.deps.store.markGateTimedOut(repository, baseRef, pause.pauseId, pullNumber);
  }

  /**
   * Claims the gate of a commit, then makes its check run; null when another replica or an earlier
   * delivery claimed it. A check run that could not be made gives the claim up (a redelivery retries).
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
    return this.makeRun(head, run);
  }

  private staleBefore(): Date {
    return new Date(this.deps.now().getTime() - GATE_CLAIM_LEASE_MS);
  }

  /**
   * Makes the check run of a gate this replica claimed; a failure throws, giving the claim up when
   * `release` (a redelivery retries; else the sweep takes it over once its lease lapses).
   */
  private async makeRun(
    head: { repository: Repo; baseRef: string; headSha: string; pullNumber: number; kind: "group" | "pull" },
    run: GateRun,
    release = true,
  ): Promise<GateCheckRecord> {
    const { store, github, now } = this.deps;
    const key = { repository: head.repository, headSha: head.headSha, name: run.name };
    let id: number;
    try {
      id = await github.createCheckRun(head.repository, { ...run, headSha: head.headSha });
    } catch (error) {
      if (release)
        await store.releaseGateCheck(head.repository, head.headSha, run.name).catch(() => undefined);
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
    };
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
    for (const gate of await store.unpausedHeldGates(SWEEP_BATCH)) {
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
      false,
    );
    if (pause && !(await store.getGatePause(gate.repository, gate.branch))) {
      await this.complete(reported, "Resumed");
    }
  }

  /** Completes a held gate, once across replicas (a completion GitHub did not hear stays to retry). */
  private async complete(gate: GateCheckRecord, title: string): Promise<void> {
    const { store, github, now, checkName } = this.deps;
    const { repository, headSha, name } = gate;
    const id = await store.claimGateCompletion(repository, headSha, name, now(), this.staleBefore());
    if (id === null) return;
    try {
      await github.updateCheckRun(repository, id, passedRun(checkName, title));
    } catch (error) {
      // Still held: the gate's sweep completes it again shortly.
      await store.releaseGateCompletion(repository, headSha, name).catch(() => undefined);
      this.deps.logger.error(
        { err: error, repository: repository.fullName, sha: headSha },
        "could not complete a held gate check: Yardmaster tries again shortly",
      );
      return;
    }
    await store.gateCompleted(repository, headSha, name, now());
  }
}

function toQueuePause(pause: GatePauseRecord): QueuePause {
  return { reason: pause.reason, pausedAt: pause.pausedAt.toISOString(), by: pause.by };
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
