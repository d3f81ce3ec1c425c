import type { Account, Comment, GitHubState, Installation, Issue, Reaction, Repository } from "./state.js";
import { DEFAULT_INSTALLATION_EVENTS, installationPermissions, REACTION_CONTENTS } from "./state.js";

/** GitHub-shaped JSON for the stand-in's objects. All links point at the stand-in. */

export interface Urls {
  /** Web root, e.g. "http://127.0.0.1:1234". */
  web: string;
  /** REST root, e.g. "http://127.0.0.1:1234/api/v3". */
  api: string;
}

export interface AppInfo {
  id: number;
  slug: string;
  name: string;
  owner: Account;
  clientId: string | null;
  createdAt: string;
}

/** The events the app subscribes to (app.yml): an installation may have accepted fewer. */
export const APP_EVENTS: string[] = [...DEFAULT_INSTALLATION_EVENTS];

/** The permissions the app asks for (app.yml): an installation may have granted fewer. */
export const APP_PERMISSIONS: Record<string, string> = installationPermissions(APP_EVENTS);

export function nodeId(prefix: string, id: number): string {
  return `${prefix}_${Buffer.from(`0:${id}`).toString("base64url")}`;
}

export function userJson(urls: Urls, user: Account): Record<string, unknown> {
  return {
    login: user.login,
    id: user.id,
    node_id: nodeId(user.type === "Bot" ? "BOT" : user.type === "Organization" ? "O" : "U", user.id),
    avatar_url: `${urls.web}/avatars/u/${user.id}`,
    gravatar_id: "",
    url: `${urls.api}/users/${encodeURIComponent(user.login)}`,
    html_url:
      user.type === "Bot"
        ? `${urls.web}/apps/${encodeURIComponent(user.login.replace(/\[bot\]$/, ""))}`
        : `${urls.web}/${encodeURIComponent(user.login)}`,
    type: user.type,
    site_admin: false,
  };
}

export function appJson(urls: Urls, app: AppInfo, installationsCount: number): Record<string, unknown> {
  return {
    id: app.id,
    slug: app.slug,
    node_id: nodeId("A", app.id),
    client_id: app.clientId,
    owner: userJson(urls, app.owner),
    name: app.name,
    description: "Chat-ops for merge queues (GitHub stand-in)",
    external_url: urls.web,
    html_url: `${urls.web}/apps/${app.slug}`,
    created_at: app.createdAt,
    updated_at: app.createdAt,
    permissions: APP_PERMISSIONS,
    events: APP_EVENTS,
    installations_count: installationsCount,
  };
}

export function installationJson(
  urls: Urls,
  app: AppInfo,
  installation: Installation,
): Record<string, unknown> {
  const account = installation.account;
  return {
    id: installation.id,
    client_id: app.clientId,
    account: userJson(urls, account),
    repository_selection: "all",
    access_tokens_url: `${urls.api}/app/installations/${installation.id}/access_tokens`,
    repositories_url: `${urls.api}/installation/repositories`,
    html_url: `${urls.web}/organizations/${encodeURIComponent(account.login)}/settings/installations/${installation.id}`,
    app_id: app.id,
    app_slug: app.slug,
    target_id: account.id,
    target_type: account.type,
    permissions: installation.permissions,
    events: installation.events,
    created_at: installation.createdAt,
    updated_at: installation.createdAt,
    single_file_name: null,
    has_multiple_single_files: false,
    single_file_paths: [],
    suspended_by: null,
    suspended_at: null,
  };
}

export function repositoryJson(urls: Urls, repository: Repository): Record<string, unknown> {
  const api = `${urls.api}/repos/${repository.fullName}`;
  return {
    id: repository.id,
    node_id: nodeId("R", repository.id),
    name: repository.name,
    full_name: repository.fullName,
    private: repository.private,
    owner: userJson(urls, repository.owner),
    html_url: `${urls.web}/${repository.fullName}`,
    description: repository.description,
    fork: false,
    url: api,
    issues_url: `${api}/issues{/number}`,
    pulls_url: `${api}/pulls{/number}`,
    created_at: repository.createdAt,
    updated_at: repository.createdAt,
    pushed_at: repository.createdAt,
    clone_url: `${urls.web}/${repository.fullName}.git`,
    visibility: repository.private ? "private" : "public",
    archived: false,
    disabled: false,
    default_branch: repository.defaultBranch,
  };
}

/** An issue's labels as GitHub's payloads carry them. */
function labelsJson(urls: Urls, issue: Issue): Record<string, unknown>[] {
  return (issue.labels ?? []).map((name, i) => ({
    id: issue.id * 100 + i,
    node_id: nodeId("LA", issue.id * 100 + i),
    url: `${urls.api}/repos/${issue.repository.fullName}/labels/${encodeURIComponent(name)}`,
    name,
    color: "ededed",
    default: false,
    description: null,
  }));
}

function issueUrls(urls: Urls, issue: Issue): { api: string; html: string; pullApi: string } {
  const repo = issue.repository.fullName;
  return {
    api: `${urls.api}/repos/${repo}/issues/${issue.number}`,
    html: `${urls.web}/${repo}/${issue.pull ? "pull" : "issues"}/${issue.number}`,
    pullApi: `${urls.api}/repos/${repo}/pulls/${issue.number}`,
  };
}

export function issueJson(urls: Urls, state: GitHubState, issue: Issue): Record<string, unknown> {
  const u = issueUrls(urls, issue);
  const json: Record<string, unknown> = {
    url: u.api,
    repository_url: `${urls.api}/repos/${issue.repository.fullName}`,
    comments_url: `${u.api}/comments`,
    html_url: u.html,
    id: issue.id,
    node_id: nodeId(issue.pull ? "PR" : "I", issue.id),
    number: issue.number,
    title: issue.title,
    user: userJson(urls, issue.user),
    labels: labelsJson(urls, issue),
    state: issue.state,
    locked: false,
    assignee: null,
    assignees: [],
    milestone: null,
    comments: state.comments(issue.repository.fullName, issue.number).length,
    created_at: issue.createdAt,
    updated_at: issue.updatedAt,
    closed_at: issue.closedAt,
    author_association: state.associationOf(issue.repository, issue.user),
    body: issue.body,
  };
  if (issue.pull) {
    json.draft = issue.pull.draft;
    json.pull_request = {
      url: u.pullApi,
      html_url: u.html,
      diff_url: `${u.html}.diff`,
      patch_url: `${u.html}.patch`,
      merged_at: issue.pull.mergedAt,
    };
  }
  return json;
}

export function pullRequestJson(urls: Urls, state: GitHubState, issue: Issue): Record<string, unknown> {
  const pull = issue.pull;
  if (!pull) throw new Error(`${issue.repository.fullName}#${issue.number} is not a pull request`);
  const u = issueUrls(urls, issue);
  const repository = issue.repository;
  const repo = repositoryJson(urls, repository);
  const ownerLogin = repository.owner.login;
  return {
    url: u.pullApi,
    id: issue.id,
    node_id: nodeId("PR", issue.id),
    html_url: u.html,
    diff_url: `${u.html}.diff`,
    patch_url: `${u.html}.patch`,
    issue_url: u.api,
    comments_url: `${u.api}/comments`,
    number: issue.number,
    state: issue.state,
    locked: false,
    title: issue.title,
    user: userJson(urls, issue.user),
    body: issue.body,
    labels: labelsJson(urls, issue),
    milestone: null,
    created_at: issue.createdAt,
    updated_at: issue.updatedAt,
    closed_at: issue.closedAt,
    merged_at: pull.mergedAt,
    merge_commit_sha: null,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    draft: pull.draft,
    head: {
      label: `${ownerLogin}:${pull.headRef}`,
      ref: pull.headRef,
      sha: pull.headSha,
      user: userJson(urls, repository.owner),
      repo,
    },
    base: {
      label: `${ownerLogin}:${pull.baseRef}`,
      ref: pull.baseRef,
      sha: pull.baseSha,
      user: userJson(urls, repository.owner),
      repo,
    },
    author_association: state.associationOf(repository, issue.user),
    merged: pull.merged,
    mergeable: pull.merged ? null : true,
    mergeable_state: pull.merged ? "unknown" : "clean",
    merged_by: null,
    comments: state.comments(repository.fullName, issue.number).length,
  };
}

export function commentJson(
  urls: Urls,
  state: GitHubState,
  app: AppInfo,
  comment: Comment,
): Record<string, unknown> {
  const issue = state.issueOf(comment);
  const u = issueUrls(urls, issue);
  const url = `${urls.api}/repos/${comment.repository.fullName}/issues/comments/${comment.id}`;
  return {
    id: comment.id,
    node_id: nodeId("IC", comment.id),
    url,
    html_url: `${u.html}#issuecomment-${comment.id}`,
    issue_url: u.api,
    body: comment.body,
    user: userJson(urls, comment.user),
    created_at: comment.createdAt,
    updated_at: comment.updatedAt,
    author_association: state.associationOf(comment.repository, comment.user),
    performed_via_github_app: comment.viaApp ? appJson(urls, app, state.listInstallations().length) : null,
    reactions: reactionRollup(`${url}/reactions`, state.reactions(comment.id)),
  };
}

function reactionRollup(url: string, reactions: Reaction[]): Record<string, unknown> {
  const rollup: Record<string, unknown> = { url, total_count: reactions.length };
  for (const content of REACTION_CONTENTS) {
    rollup[content] = reactions.filter((r) => r.content === content).length;
  }
  return rollup;
}

export function reactionJson(urls: Urls, reaction: Reaction): Record<string, unknown> {
  return {
    id: reaction.id,
    node_id: nodeId("REA", reaction.id),
    user: userJson(urls, reaction.user),
    content: reaction.content,
    created_at: reaction.createdAt,
  };
}

/** `issue_comment` webhook payload (`created`, `edited` with `changes`, `deleted`). */
export function issueCommentEventJson(
  urls: Urls,
  state: GitHubState,
  app: AppInfo,
  args: {
    action: "created" | "edited" | "deleted";
    comment: Comment;
    sender: Account;
    installationId: number;
    changes?: Record<string, unknown>;
  },
): Record<string, unknown> {
  const issue = state.issueOf(args.comment);
  return {
    action: args.action,
    ...(args.changes ? { changes: args.changes } : {}),
    issue: issueJson(urls, state, issue),
    comment: commentJson(urls, state, app, args.comment),
    repository: repositoryJson(urls, issue.repository),
    ...(issue.repository.owner.type === "Organization"
      ? { organization: { login: issue.repository.owner.login, id: issue.repository.owner.id } }
      : {}),
    sender: userJson(urls, args.sender),
    installation: { id: args.installationId, node_id: nodeId("MDIz", args.installationId) },
  };
}
