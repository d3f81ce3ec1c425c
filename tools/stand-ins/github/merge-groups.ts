import { createHash } from "node:crypto";
import type { Context } from "probot";
import { type CheckOutput, outputJson } from "./check-output.js";
import { nodeId, repositoryJson, type Urls, userJson } from "./payloads.js";
import { appJson, type CheckConclusion, type PublicApp, type WebhookTarget } from "./queue-payloads.js";
import type { Issue, Repository } from "./state.js";

/**
 * GitHub's merge groups (`gh-readonly-queue/<base>/pr-<number>-<head sha>`), the check runs CI reports on
 * their commits, and the `merge_group` and `check_run` webhooks about them. Payload types come from
 * Probot's (i.e. @octokit/webhooks'), so a field GitHub does not send, or one missing, fails to compile.
 */

export type MergeGroupChecksRequested = Context<"merge_group.checks_requested">["payload"];
export type MergeGroupDestroyed = Context<"merge_group.destroyed">["payload"];
/** `merge_group` of both payloads: `head_sha`, `head_ref`, `base_sha`, `base_ref`, `head_commit`. */
export type MergeGroupJson = MergeGroupChecksRequested["merge_group"];
export type MergeGroupDestroyedReason = NonNullable<MergeGroupDestroyed["reason"]>;

/** The CI that runs the required checks on merge-group commits (GitHub Actions' public app). */
export const CI_APP: PublicApp = {
  id: 15_368,
  slug: "github-actions",
  name: "GitHub Actions",
  owner: { login: "github", id: 9_919, type: "Organization" },
  createdAt: "2018-07-30T09:30:17Z",
  nodePrefix: "MDM6QXBw",
  description: "Automate your workflow from idea to production (GitHub stand-in)",
  externalUrl: "https://help.github.com/en/actions",
  permissions: { checks: "write", contents: "write", metadata: "read", pull_requests: "write" },
  events: ["check_run", "check_suite", "merge_group", "pull_request", "push"],
};

/** What a test (or the sandbox) may report for a required check. */
export type GroupCheckConclusion = Extract<
  CheckConclusion,
  "success" | "failure" | "timed_out" | "cancelled" | "neutral" | "skipped"
>;

export interface GroupCheckRun {
  id: number;
  suiteId: number;
  name: string;
  headSha: string;
  status: "in_progress" | "completed";
  conclusion: GroupCheckConclusion | null;
  startedAt: string;
  completedAt: string | null;
  /** What CI's run says (ci-check-runs.ts `failWith`): set when it fails; null otherwise. */
  output?: CheckOutput | null;
}

export interface MergeGroup {
  repository: Repository;
  pull: Issue;
  /** The branch the group merges into, e.g. "main". */
  baseBranch: string;
  /** "gh-readonly-queue/main/pr-12-<pr head sha>" (without refs/heads/). */
  headBranch: string;
  headSha: string;
  treeSha: string;
  /** The parent commit: the base branch's head, or the group ahead's commit. */
  baseSha: string;
  message: string;
  createdAt: string;
  checkRuns: GroupCheckRun[];
  /** Set when GitHub destroyed the group. */
  destroyed: MergeGroupDestroyedReason | null;
}

/** A fake, deterministic 40-hex sha (sha1 of the parts). */
export function fakeSha(...parts: Array<string | number>): string {
  return createHash("sha1").update(parts.join("\n")).digest("hex");
}

const PASSING: ReadonlySet<GroupCheckConclusion> = new Set(["success", "neutral", "skipped"]);

export function passing(conclusion: GroupCheckConclusion | null): boolean {
  return conclusion !== null && PASSING.has(conclusion);
}

export function mergeGroupJson(group: MergeGroup): MergeGroupJson {
  const bot = {
    name: "github-merge-queue[bot]",
    email: "118344674+github-merge-queue[bot]@users.noreply.github.com",
  };
  return {
    head_sha: group.headSha,
    head_ref: `refs/heads/${group.headBranch}`,
    base_sha: group.baseSha,
    base_ref: `refs/heads/${group.baseBranch}`,
    head_commit: {
      id: group.headSha,
      tree_id: group.treeSha,
      message: group.message,
      timestamp: group.createdAt,
      author: bot,
      committer: { name: "GitHub", email: "noreply@github.com" },
    },
  };
}

function envelope(urls: Urls, target: WebhookTarget) {
  const owner = target.repository.owner;
  return {
    repository: repositoryJson(urls, target.repository) as unknown as MergeGroupChecksRequested["repository"],
    ...(owner.type === "Organization"
      ? {
          organization: {
            login: owner.login,
            id: owner.id,
            node_id: nodeId("O", owner.id),
            url: `${urls.api}/orgs/${owner.login}`,
            repos_url: `${urls.api}/orgs/${owner.login}/repos`,
            events_url: `${urls.api}/orgs/${owner.login}/events`,
            hooks_url: `${urls.api}/orgs/${owner.login}/hooks`,
            issues_url: `${urls.api}/orgs/${owner.login}/issues`,
            members_url: `${urls.api}/orgs/${owner.login}/members{/member}`,
            public_members_url: `${urls.api}/orgs/${owner.login}/public_members{/member}`,
            avatar_url: `${urls.web}/${owner.login}.png`,
            description: null,
          },
        }
      : {}),
    sender: userJson(urls, target.sender) as unknown as NonNullable<MergeGroupChecksRequested["sender"]>,
    installation: { id: target.installationId, node_id: nodeId("MDIz", target.installationId) },
  };
}

/** `merge_group.checks_requested`: GitHub made the group; CI should test its commit. */
export function checksRequestedEventJson(
  urls: Urls,
  target: WebhookTarget,
  group: MergeGroup,
): MergeGroupChecksRequested {
  return { action: "checks_requested", merge_group: mergeGroupJson(group), ...envelope(urls, target) };
}

/** `merge_group.destroyed`, with why: merged, dequeued, or invalidated (an entry ahead left). */
export function destroyedEventJson(
  urls: Urls,
  target: WebhookTarget,
  group: MergeGroup,
  reason: MergeGroupDestroyedReason,
): MergeGroupDestroyed {
  return { action: "destroyed", reason, merge_group: mergeGroupJson(group), ...envelope(urls, target) };
}

/** One check run as `GET .../commits/{ref}/check-runs` lists it and `check_run` webhooks carry it. */
export function groupCheckRunJson(
  urls: Urls,
  group: MergeGroup,
  run: GroupCheckRun,
): Record<string, unknown> {
  const fullName = group.repository.fullName;
  const api = `${urls.api}/repos/${fullName}`;
  return {
    id: run.id,
    name: run.name,
    node_id: nodeId("CR", run.id),
    head_sha: run.headSha,
    external_id: "",
    url: `${api}/check-runs/${run.id}`,
    html_url: `${urls.web}/${fullName}/runs/${run.id}`,
    details_url: `${urls.web}/${fullName}/actions/runs/${run.suiteId}/job/${run.id}`,
    status: run.status,
    conclusion: run.conclusion,
    started_at: run.startedAt,
    completed_at: run.completedAt,
    output: outputJson(urls, fullName, run.id, run.output ?? null),
    check_suite: { id: run.suiteId },
    app: appJson(urls, CI_APP),
    pull_requests: [],
  };
}

/** `check_run` (`created` or `completed`) for a required check on a merge group's commit. */
export function groupCheckRunEventJson(
  urls: Urls,
  target: WebhookTarget,
  action: "created" | "completed",
  group: MergeGroup,
  run: GroupCheckRun,
): Record<string, unknown> {
  const fullName = group.repository.fullName;
  const allDone = group.checkRuns.every((r) => r.status === "completed");
  return {
    action,
    check_run: {
      ...groupCheckRunJson(urls, group, run),
      check_suite: {
        id: run.suiteId,
        node_id: nodeId("CS", run.suiteId),
        head_branch: group.headBranch,
        head_sha: group.headSha,
        status: allDone ? "completed" : "in_progress",
        conclusion: null,
        url: `${urls.api}/repos/${fullName}/check-suites/${run.suiteId}`,
        before: group.baseSha,
        after: group.headSha,
        pull_requests: [],
        app: appJson(urls, CI_APP),
        created_at: group.createdAt,
        updated_at: run.completedAt ?? run.startedAt,
      },
    },
    ...envelope(urls, target),
  };
}
