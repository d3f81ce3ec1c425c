import { LRUCache } from "lru-cache";
import pLimit from "p-limit";
import {
  type CheckAnnotation,
  type CheckFailure,
  FAILURE_LIMITS,
  type FailureDetails,
} from "../core/check-failures.js";
import type { ChecksRanOn, QueueCheck } from "../core/queue.js";
import type { Repo } from "../repo.js";
import type { GitHubWrites } from "./github-writes.js";
import type { Octokit } from "./octokit-gateway.js";

/**
 * Why a removal's checks failed, in their own words (docs/notifications.md, "Why a check failed"): GitHub's
 * check runs of the commit the checks ran on (`GET /repos/{o}/{r}/commits/{ref}/check-runs`), their
 * `output` (title, summary) and their failure annotations (`GET /repos/{o}/{r}/check-runs/{id}/annotations`,
 * 50 a page), as the repository's installation (`checks: read`). A batch's draft pull request names its
 * head (`GET /repos/{o}/{r}/pulls/{n}`). Each check run is read once (kept by its id); a commit's runs are
 * kept a minute (a batch's pull requests leave together, on one commit). A check GitHub does not list is a
 * commit status: its description is the backend's.
 */

/** Conclusions of a check run that failed (a merge group's failed checks, a removal's details). */
export const FAILED_CONCLUSIONS: ReadonlySet<string> = new Set([
  "failure",
  "timed_out",
  "cancelled",
  "action_required",
  "startup_failure",
  "stale",
]);
/** A commit's check runs, read 100 a page, this many pages at most. */
const RUN_PAGES = 3;
/** A run's annotations, read 50 a page (GitHub's limit per request is 50 for writes), this many pages at most. */
const ANNOTATION_PAGE = 50;
const ANNOTATION_PAGES = 4;
/** How long one removal's reading may take before it gives up (the notice went on without it). */
export const CHECK_READ_TIMEOUT_MS = 30_000;

export interface CheckRunReaderDeps {
  /** The repository's installation (src/github/installations.ts). */
  octokitFor(repo: Repo): Promise<Octokit>;
  /** e.g. "https://github.com": annotations link to files there. */
  githubWebUrl: string;
  /**
   * The app's shared pace (src/github/github-writes.ts): each read waits out a rate limit any replica met,
   * and one met here holds them all. Absent: reads go without it (no GitHub App writes, the tests).
   */
  pace?: Pick<GitHubWrites, "read">;
  /** Reads at once, across every removal of this process. Default 4. */
  concurrency?: number;
  timeoutMs?: number;
  /** The clock the caches' time to live is read on, in ms (tests move it). */
  cacheNow?: () => number;
}

/** A check run as GitHub lists it (the fields read). */
interface RunJson {
  id: number;
  name: string;
  head_sha: string;
  status: string;
  conclusion: string | null;
  html_url: string | null;
  details_url: string | null;
  output?: { title?: string | null; summary?: string | null; annotations_count?: number } | null;
}

interface AnnotationJson {
  path: string;
  start_line?: number | null;
  annotation_level?: string | null;
  message?: string | null;
  title?: string | null;
}

export class CheckRunReader {
  private readonly runs: LRUCache<string, Promise<RunJson[]>>;
  private readonly annotations: LRUCache<number, Promise<CheckAnnotation[]>>;
  private readonly limit: ReturnType<typeof pLimit>;

  constructor(private readonly deps: CheckRunReaderDeps) {
    const clock = deps.cacheNow ? { perf: { now: deps.cacheNow }, ttlResolution: 0 } : {};
    this.runs = new LRUCache({ max: 500, ttl: 60_000, ...clock });
    this.annotations = new LRUCache({ max: 2_000, ttl: 60 * 60_000, ...clock });
    this.limit = pLimit(deps.concurrency ?? 4);
  }

  /**
   * The removal's failed checks detailed (the first FAILURE_LIMITS.checks, the rest counted). Throws when
   * GitHub cannot say (403 without `checks: read`, 404, a timeout): the notice then goes as it is.
   */
  async failures(
    repo: Repo,
    ranOn: ChecksRanOn | null | undefined,
    checks: readonly QueueCheck[],
  ): Promise<FailureDetails> {
    const signal = AbortSignal.timeout(this.deps.timeoutMs ?? CHECK_READ_TIMEOUT_MS);
    const shown = checks.slice(0, FAILURE_LIMITS.checks);
    const octokit = await this.deps.octokitFor(repo);
    const sha = ranOn ? await this.headOf(octokit, repo, ranOn, signal) : null;
    const runs = sha ? await this.runsOf(octokit, repo, sha, signal) : [];
    const detailed = await Promise.all(
      shown.map(async (check): Promise<CheckFailure> => {
        const run = pick(runs, check.name);
        if (!run) return asStatus(check);
        const annotations = await this.annotationsOf(octokit, repo, run, signal);
        return {
          name: check.name,
          kind: "check-run",
          conclusion: run.conclusion ?? check.state,
          url: run.html_url ?? check.url,
          detailsUrl: run.details_url ?? null,
          title: run.output?.title?.trim() || null,
          summary: run.output?.summary ? run.output.summary.slice(0, FAILURE_LIMITS.summaryKept) : null,
          annotations,
          description: null,
        };
      }),
    );
    return { checks: detailed, more: Math.max(0, checks.length - shown.length) };
  }

  /**
   * A commit's check runs that failed (latest of each name), with their pages: why a merge group failed
   * (GitHub's merge queue). Read as a removal's details read them, so its details read them no more.
   */
  async failedChecks(repo: Repo, sha: string): Promise<{ name: string; conclusion: string; url: string }[]> {
    const signal = AbortSignal.timeout(this.deps.timeoutMs ?? CHECK_READ_TIMEOUT_MS);
    const runs = await this.runsOf(await this.deps.octokitFor(repo), repo, sha, signal);
    return runs.filter(failed).map((run) => ({
      name: run.name,
      conclusion: run.conclusion ?? "failure",
      url: run.html_url ?? run.details_url ?? "",
    }));
  }

  /** The commit the checks ran on: a draft pull request's head, else the commit named. */
  private async headOf(
    octokit: Octokit,
    repo: Repo,
    ranOn: ChecksRanOn,
    signal: AbortSignal,
  ): Promise<string | null> {
    if (ranOn.pull === null) return ranOn.sha;
    try {
      const { data } = await this.read(`pull request ${repo.fullName}#${ranOn.pull}`, signal, () =>
        octokit.rest.pulls.get({
          owner: repo.owner,
          repo: repo.name,
          pull_number: ranOn.pull as number,
          request: { signal },
        }),
      );
      return data.head.sha;
    } catch (error) {
      if (ranOn.sha && (error as { status?: number }).status === 404) return ranOn.sha;
      throw error;
    }
  }

  /** A commit's check runs, latest of each name (kept a minute). */
  private runsOf(octokit: Octokit, repo: Repo, sha: string, signal: AbortSignal): Promise<RunJson[]> {
    const key = `${repo.key}@${sha}`;
    const kept = this.runs.get(key);
    if (kept) return kept;
    const reading = (async () => {
      const all: RunJson[] = [];
      for (let page = 1; page <= RUN_PAGES; page++) {
        const { data } = await this.read(`check runs of ${repo.fullName}@${sha}`, signal, () =>
          octokit.request("GET /repos/{owner}/{repo}/commits/{ref}/check-runs", {
            owner: repo.owner,
            repo: repo.name,
            ref: sha,
            filter: "latest",
            per_page: 100,
            page,
            request: { signal },
          }),
        );
        all.push(...(data.check_runs as RunJson[]));
        if (data.check_runs.length < 100 || all.length >= data.total_count) break;
      }
      return all;
    })();
    this.runs.set(key, reading);
    reading.catch(() => this.runs.delete(key));
    return reading;
  }

  /** A run's first failure annotations, read once per run (by its id). */
  private annotationsOf(
    octokit: Octokit,
    repo: Repo,
    run: RunJson,
    signal: AbortSignal,
  ): Promise<CheckAnnotation[]> {
    if (!run.output?.annotations_count) return Promise.resolve([]);
    const kept = this.annotations.get(run.id);
    if (kept) return kept;
    const reading = (async () => {
      const found: CheckAnnotation[] = [];
      for (let page = 1; page <= ANNOTATION_PAGES && found.length < FAILURE_LIMITS.annotations; page++) {
        const { data } = await this.read(`annotations of ${repo.fullName} check run ${run.id}`, signal, () =>
          octokit.request("GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations", {
            owner: repo.owner,
            repo: repo.name,
            check_run_id: run.id,
            per_page: ANNOTATION_PAGE,
            page,
            request: { signal },
          }),
        );
        const list = data as AnnotationJson[];
        for (const a of list) {
          if (found.length >= FAILURE_LIMITS.annotations) break;
          if (a.annotation_level !== "failure") continue;
          found.push(this.annotation(repo, run.head_sha, a));
        }
        if (list.length < ANNOTATION_PAGE) break;
      }
      return found;
    })();
    this.annotations.set(run.id, reading);
    reading.catch(() => this.annotations.delete(run.id));
    return reading;
  }

  /** One GET: at most `concurrency` at once in this process, in turn with the app's shared pace. */
  private read<T>(what: string, signal: AbortSignal, send: () => Promise<T>): Promise<T> {
    const { pace } = this.deps;
    return this.limit(() => (pace ? pace.read(what, send, signal) : send()));
  }

  private annotation(repo: Repo, sha: string, a: AnnotationJson): CheckAnnotation {
    const line = typeof a.start_line === "number" && a.start_line > 0 ? a.start_line : null;
    const path = a.path.replace(/^\/+/, "");
    const encoded = path.split("/").map(encodeURIComponent).join("/");
    const base = this.deps.githubWebUrl.replace(/\/+$/, "");
    return {
      path,
      line,
      message: (a.message ?? a.title ?? "").trim(),
      url: `${base}/${repo.fullName}/blob/${encodeURIComponent(sha)}/${encoded}${line ? `#L${line}` : ""}`,
    };
  }
}

/** The run of a failed check: the failed one of its name, else the latest of its name. */
function pick(runs: readonly RunJson[], name: string): RunJson | undefined {
  const named = runs.filter((r) => r.name === name);
  return named.find(failed) ?? named[0];
}

/** Whether a run completed and failed. */
const failed = (run: RunJson) => run.status === "completed" && FAILED_CONCLUSIONS.has(run.conclusion ?? "");

/** A check GitHub did not list as a run: a commit status, with the backend's description. */
function asStatus(check: QueueCheck): CheckFailure {
  return {
    name: check.name,
    kind: "status",
    conclusion: check.state,
    url: check.url,
    detailsUrl: null,
    title: null,
    summary: null,
    annotations: [],
    description: check.description?.trim() || null,
  };
}
