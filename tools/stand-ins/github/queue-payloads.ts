import { nodeId, pullRequestJson, repositoryJson, type Urls, userJson } from "./payloads.js";
import type { Account, GitHubState, Issue, Repository } from "./state.js";

/** GitHub-shaped `check_run`, `check_suite` and `pull_request` webhook payloads, for the merge queue's acts. */

/** The merge queue's GitHub App, as `app` of its check runs and suites (Mergify's public app). */
export const MERGE_QUEUE_APP: PublicApp = {
  id: 10_562,
  slug: "mergify",
  name: "Mergify",
  owner: { login: "Mergifyio", id: 18_445_244, type: "Organization" },
  createdAt: "2018-04-06T12:00:00Z",
  nodePrefix: "A",
  description: "Merge queue (GitHub stand-in)",
  externalUrl: "https://mergify.com",
  permissions: { checks: "write", contents: "write", issues: "write", pull_requests: "write" },
  events: ["check_run", "check_suite", "issue_comment", "pull_request", "push", "status"],
};

export type CheckConclusion = "success" | "failure" | "neutral" | "cancelled" | "skipped" | "timed_out";

export interface CheckRun {
  id: number;
  suiteId: number;
  name: string;
  headSha: string;
  status: "queued" | "in_progress" | "completed";
  conclusion: CheckConclusion | null;
  startedAt: string;
  completedAt: string | null;
  title: string;
  summary: string;
}

export interface WebhookTarget {
  repository: Repository;
  installationId: number;
  sender: Account;
}

/** A public GitHub App as the `app` of its check runs and suites. */
export interface PublicApp {
  id: number;
  slug: string;
  name: string;
  owner: Account;
  createdAt: string;
  /** The prefix of its node id. */
  nodePrefix: string;
  description: string;
  externalUrl: string;
  permissions: Record<string, string>;
  events: string[];
}

export function appJson(urls: Urls, app: PublicApp): Record<string, unknown> {
  return {
    id: app.id,
    slug: app.slug,
    node_id: nodeId(app.nodePrefix, app.id),
    owner: userJson(urls, app.owner),
    name: app.name,
    description: app.description,
    external_url: app.externalUrl,
    html_url: `${urls.web}/apps/${app.slug}`,
    created_at: app.createdAt,
    updated_at: app.createdAt,
    permissions: app.permissions,
    events: app.events,
  };
}

/** A pull request as `check_run.pull_requests[]` and `check_suite.pull_requests[]` list it. */
function pullRefJson(urls: Urls, pull: Issue): Record<string, unknown> {
  const repository = pull.repository;
  const repo = { id: repository.id, url: `${urls.api}/repos/${repository.fullName}`, name: repository.name };
  return {
    url: `${urls.api}/repos/${repository.fullName}/pulls/${pull.number}`,
    id: pull.id,
    number: pull.number,
    head: { ref: pull.pull?.headRef, sha: pull.pull?.headSha, repo },
    base: { ref: pull.pull?.baseRef, sha: pull.pull?.baseSha, repo },
  };
}

function envelope(urls: Urls, target: WebhookTarget): Record<string, unknown> {
  const owner = target.repository.owner;
  return {
    repository: repositoryJson(urls, target.repository),
    ...(owner.type === "Organization" ? { organization: { login: owner.login, id: owner.id } } : {}),
    sender: userJson(urls, target.sender),
    installation: { id: target.installationId, node_id: nodeId("MDIz", target.installationId) },
  };
}

function suiteJson(
  urls: Urls,
  run: { suiteId: number; headSha: string; status: string; conclusion: string | null; at: string },
  pull: Issue,
): Record<string, unknown> {
  const repository = pull.repository;
  return {
    id: run.suiteId,
    node_id: nodeId("CS", run.suiteId),
    head_branch: pull.pull?.headRef ?? null,
    head_sha: run.headSha,
    status: run.status,
    conclusion: run.conclusion,
    url: `${urls.api}/repos/${repository.fullName}/check-suites/${run.suiteId}`,
    before: null,
    after: run.headSha,
    pull_requests: [pullRefJson(urls, pull)],
    app: appJson(urls, MERGE_QUEUE_APP),
    created_at: run.at,
    updated_at: run.at,
  };
}

/** `check_run` (`created` or `completed`) for one of the merge queue's check runs on a pull request. */
export function checkRunEventJson(
  urls: Urls,
  target: WebhookTarget,
  action: "created" | "completed",
  run: CheckRun,
  pull: Issue,
): Record<string, unknown> {
  const api = `${urls.api}/repos/${target.repository.fullName}`;
  const html = `${urls.web}/${target.repository.fullName}/runs/${run.id}`;
  return {
    action,
    check_run: {
      id: run.id,
      name: run.name,
      node_id: nodeId("CR", run.id),
      head_sha: run.headSha,
      external_id: "",
      url: `${api}/check-runs/${run.id}`,
      html_url: html,
      details_url: `https://dashboard.mergify.com/github/${target.repository.fullName}/queues`,
      status: run.status,
      conclusion: run.conclusion,
      started_at: run.startedAt,
      completed_at: run.completedAt,
      output: {
        title: run.title,
        summary: run.summary,
        text: null,
        annotations_count: 0,
        annotations_url: `${api}/check-runs/${run.id}/annotations`,
      },
      check_suite: suiteJson(
        urls,
        {
          suiteId: run.suiteId,
          headSha: run.headSha,
          status: run.status === "completed" ? "completed" : "in_progress",
          conclusion: null,
          at: run.startedAt,
        },
        pull,
      ),
      app: appJson(urls, MERGE_QUEUE_APP),
      pull_requests: [pullRefJson(urls, pull)],
    },
    ...envelope(urls, target),
  };
}

/** `check_suite.completed` for the merge queue's suite on a pull request's head. */
export function checkSuiteEventJson(
  urls: Urls,
  target: WebhookTarget,
  suite: { id: number; headSha: string; conclusion: CheckConclusion; at: string },
  pull: Issue,
): Record<string, unknown> {
  return {
    action: "completed",
    check_suite: suiteJson(
      urls,
      {
        suiteId: suite.id,
        headSha: suite.headSha,
        status: "completed",
        conclusion: suite.conclusion,
        at: suite.at,
      },
      pull,
    ),
    ...envelope(urls, target),
  };
}

/**
 * `pull_request` (`opened`, `closed`, ...) for a pull request as it is now; GitHub's own merge queue
 * sends `enqueued` and `dequeued` (with GitHub's `reason`, e.g. MERGE, MANUAL, CI_FAILURE).
 */
export function pullRequestEventJson(
  urls: Urls,
  state: GitHubState,
  target: WebhookTarget,
  action: "opened" | "closed" | "synchronize" | "enqueued" | "dequeued",
  pull: Issue,
  extra: { mergedBy?: Account; mergeCommitSha?: string; reason?: string } = {},
): Record<string, unknown> {
  const json = pullRequestJson(urls, state, pull);
  if (extra.mergedBy) json.merged_by = userJson(urls, extra.mergedBy);
  if (extra.mergeCommitSha) json.merge_commit_sha = extra.mergeCommitSha;
  return {
    action,
    number: pull.number,
    pull_request: json,
    ...(extra.reason ? { reason: extra.reason } : {}),
    ...envelope(urls, target),
  };
}
