import type { Repo } from "../../../repo.js";
import { repositoryError } from "../repository-error.js";

/**
 * What the gate asks of GitHub's REST API, as the repository's installation: its check runs (the app's
 * `checks: write`), the default branch, and the branch's rules (for the doctor).
 */
export interface GateGitHub {
  /** Makes a check run on a commit; its id. */
  createCheckRun(repo: Repo, run: GateRun & { headSha: string }): Promise<number>;
  /** Completes (or retitles) a check run. */
  updateCheckRun(repo: Repo, id: number, run: GateRun): Promise<void>;
  defaultBranch(repo: Repo): Promise<string>;
  /** `GET /repos/{owner}/{repo}/rules/branches/{branch}`: the rules of rulesets that apply to the branch. */
  branchRules(repo: Repo, branch: string): Promise<BranchRule[]>;
}

export interface GateRun {
  name: string;
  status: "queued" | "completed";
  title: string;
  summary: string;
}

/** One rule as GitHub lists it (only what is read here). */
export interface BranchRule {
  type: string;
  parameters?: {
    required_status_checks?: Array<{ context: string; integration_id?: number }>;
    check_response_timeout_minutes?: number;
  };
}

/** The Octokit calls the gate makes (a ProbotOctokit fits). */
export interface GateOctokit {
  request(route: string, parameters?: Record<string, unknown>): Promise<{ data: unknown }>;
}

/** Octokit's per-request options the write queue gives each write: no retries of its own, a time limit. */
export interface GateWriteRequest {
  retries: 0;
  signal: AbortSignal;
}

/** A write as the gate hands it to the app's write queue: what it is, for the log, and the request. */
export interface GateWrite<T> {
  kind: "comment" | "edit";
  priority: "answer";
  what: string;
  send: (request: GateWriteRequest) => Promise<T>;
}

/**
 * The app's write queue, GitHub's pace and retries for every write: the gate's port on it, implemented
 * by src/github/github-writes.ts (GitHubWrites) and given by the composition root.
 */
export interface GateWrites {
  run<T>(write: GateWrite<T>): Promise<T>;
}

/**
 * GateGitHub over Octokit as the repository's installation; its writes go through the app's write
 * queue when there is one (GitHub's secondary limits count check runs as content created).
 */
export function octokitGateGitHub(
  octokitFor: (repo: Repo) => Promise<GateOctokit>,
  writes?: () => GateWrites | null,
): GateGitHub {
  const where = (repo: Repo) => ({ owner: repo.owner, repo: repo.name });
  const output = (run: GateRun) => ({ title: run.title, summary: run.summary });
  const write = <T>(
    kind: "comment" | "edit",
    what: string,
    send: (request?: GateWriteRequest) => Promise<T>,
  ) => {
    const queue = writes?.();
    return queue ? queue.run({ kind, priority: "answer", what, send: (request) => send(request) }) : send();
  };
  return {
    async createCheckRun(repo, run) {
      const octokit = await octokitFor(repo);
      const { data } = await write(
        "comment",
        `gate check on ${repo.fullName}@${run.headSha.slice(0, 7)}`,
        (request) =>
          octokit.request("POST /repos/{owner}/{repo}/check-runs", {
            ...(request ? { request } : {}),
            ...where(repo),
            name: run.name,
            head_sha: run.headSha,
            status: run.status,
            ...(run.status === "completed" ? { conclusion: "success" } : {}),
            output: output(run),
          }),
      );
      return (data as { id: number }).id;
    },
    async updateCheckRun(repo, id, run) {
      const octokit = await octokitFor(repo);
      await write("edit", `gate check ${id} on ${repo.fullName}`, (request) =>
        octokit.request("PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}", {
          ...(request ? { request } : {}),
          ...where(repo),
          check_run_id: id,
          status: run.status,
          ...(run.status === "completed" ? { conclusion: "success" } : {}),
          output: output(run),
        }),
      );
    },
    async defaultBranch(repo) {
      try {
        const octokit = await octokitFor(repo);
        const { data } = await octokit.request("GET /repos/{owner}/{repo}", where(repo));
        return (data as { default_branch: string }).default_branch;
      } catch (error) {
        // A repository GitHub does not know, or refuses the app: an answer that says what to do.
        throw repositoryError(repo, error);
      }
    },
    async branchRules(repo, branch) {
      const octokit = await octokitFor(repo);
      const { data } = await octokit.request("GET /repos/{owner}/{repo}/rules/branches/{branch}", {
        ...where(repo),
        branch,
        per_page: 100,
      });
      return data as BranchRule[];
    },
  };
}
