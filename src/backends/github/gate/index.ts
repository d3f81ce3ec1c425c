import type { GitHubGateway } from "../../../core/github.js";
import type { QueueEvent } from "../../../core/queue.js";
import type { Logger } from "../../../logger.js";
import type { Repo } from "../../../repo.js";
import type { GateStore } from "../../../store/gates.js";
import type { GateWork } from "./checks.js";
import type { GateEntries } from "./decisions.js";
import { DEFAULT_GATE_CHECK_NAME, type GateTimes, GitHubGate } from "./gate.js";
import { type GateOctokit, type GateWrites, octokitGateGitHub } from "./github.js";

export { GATE_CHECK_KIND, GATE_COMPLETE_KIND, type GateWork, gateCheckItem, gateKey } from "./checks.js";
export type { GateEntries } from "./decisions.js";
export { DEFAULT_GATE_CHECK_NAME, type GateTimes, GitHubGate } from "./gate.js";
export { type BranchRule, type GateGitHub, octokitGateGitHub } from "./github.js";
export { GATE_RECONSIDER_KIND } from "./reconsider.js";
export { type GateSource, gateSource, requireFromAppHow } from "./required.js";
export { GATE_SWEEP_KIND, GATE_SWEEP_MS } from "./sweep.js";
export { registerGateWebhooks } from "./webhooks.js";

/** The gate as the composition root builds it: GitHub as the repository's installation, once started. */
export function createGitHubGate(options: {
  store: GateStore;
  checkName: string | undefined;
  /** The GitHub App's id: the gate's expected source in a branch's rules. */
  appId?: number;
  owner: string;
  now: () => Date;
  logger: Logger;
  /** This replica's runner of durable work (the gates' kinds `gate-check`, `gate-complete`, `gate-reconsider`, `gate-sweep`). */
  work: GateWork;
  /** The gates' claims' clock, first retry delay and sweep's interval (tests give theirs). */
  times?: GateTimes;
  /** The app's installation on a repository (throws while the GitHub App has not started). */
  octokitFor: (repo: Repo) => Promise<GateOctokit>;
  /** The app's write queue (read late: it exists once the GitHub App started). */
  writes?: () => GateWrites | null;
  /** The commands' GitHub gateway (read late: it exists once the GitHub App started). */
  gateway: () => GitHubGateway;
  /** Whether GitHub's merge queue serves a branch (absent: every branch). */
  onGitHubQueue?: (repo: Repo, branch: string) => Promise<boolean>;
  /** Tells the channels of a pause or resume (the notifier's pushed notices, once Slack is configured). */
  announce?: (repository: Repo, event: QueueEvent) => Promise<unknown>;
  enqueue: (
    repo: Repo,
    pull: { number: number; headSha: string },
    options: { jump: boolean },
  ) => Promise<unknown>;
  /** The pull requests in a branch's queue, in its order (absent: not read when pausing). */
  queued?: (repo: Repo, branch: string) => Promise<number[]>;
  /** A branch's queue with when each entry entered and its labels (absent: no drain, exemption or pass decided). */
  entries?: GateEntries;
}): GitHubGate {
  return new GitHubGate({
    store: options.store,
    github: octokitGateGitHub(options.octokitFor, options.writes),
    checkName: options.checkName ?? DEFAULT_GATE_CHECK_NAME,
    ...(options.appId !== undefined ? { appId: options.appId } : {}),
    owner: options.owner,
    now: options.now,
    work: options.work,
    ...options.times,
    logger: options.logger,
    ...(options.announce ? { announce: options.announce } : {}),
    ...(options.onGitHubQueue ? { onGitHubQueue: options.onGitHubQueue } : {}),
    ...(options.queued ? { queued: options.queued } : {}),
    ...(options.entries ? { entries: options.entries } : {}),
    putBack: {
      pullRequest: (repo, number) => options.gateway().pullRequest(repo, number),
      enqueue: options.enqueue,
      comment: (repo, number, body) => options.gateway().comment(repo, number, body),
    },
  });
}
