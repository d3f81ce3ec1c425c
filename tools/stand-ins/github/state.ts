import { randomBytes } from "node:crypto";
import { readGitHubAppAsks } from "../../../src/doctor/manifests.js";

/** A repository role as GitHub names it (`role_name`), weakest first. */
export const REPO_ROLES = ["none", "read", "triage", "write", "maintain", "admin"] as const;
export type RepoRole = (typeof REPO_ROLES)[number];

/** GitHub's collapsed, legacy `permission` value: maintain counts as write, triage as read. */
export type LegacyPermission = "admin" | "write" | "read" | "none";

export const REACTION_CONTENTS = [
  "+1",
  "-1",
  "laugh",
  "confused",
  "heart",
  "hooray",
  "rocket",
  "eyes",
] as const;
export type ReactionContent = (typeof REACTION_CONTENTS)[number];

export type AccountType = "User" | "Bot" | "Organization";

export interface Account {
  login: string;
  id: number;
  type: AccountType;
}

const APP_ASKS = readGitHubAppAsks();

/** The webhook events an installation is subscribed to by default: app.yml's. */
export const DEFAULT_INSTALLATION_EVENTS: readonly string[] = APP_ASKS.events;

/** GitHub asks for these permissions to send these events: without the events, they are not granted. */
const EVENT_PERMISSIONS: Record<string, readonly string[]> = {
  checks: ["check_run", "check_suite"],
  statuses: ["status"],
};

/** The permissions every installation has, whatever its events: app.yml's others, and members: read. */
const BASE_PERMISSIONS: Record<string, string> = {
  ...Object.fromEntries(
    Object.entries(APP_ASKS.permissions).filter(([name]) => !(name in EVENT_PERMISSIONS)),
  ),
  members: "read",
};

/**
 * The permissions an installation subscribed to `events` has granted: the base ones, and app.yml's
 * `checks` with `check_run`/`check_suite`, `statuses` with `status` (GitHub asks for them to deliver those).
 */
export function installationPermissions(events: readonly string[]): Record<string, string> {
  const permissions = { ...BASE_PERMISSIONS };
  for (const [name, needs] of Object.entries(EVENT_PERMISSIONS)) {
    const level = APP_ASKS.permissions[name];
    if (level && needs.some((e) => events.includes(e))) permissions[name] = level;
  }
  return permissions;
}

export interface Installation {
  id: number;
  account: Account;
  createdAt: string;
  /** The webhook events it is subscribed to: GitHub sends it no others. */
  events: string[];
  /** What it granted the app (`installationPermissions(events)`). */
  permissions: Record<string, string>;
}

export interface Repository {
  id: number;
  name: string;
  fullName: string;
  owner: Account;
  defaultBranch: string;
  private: boolean;
  description: string | null;
  createdAt: string;
  /** Explicit roles by lower-cased login. */
  roles: Map<string, RepoRole>;
  nextNumber: number;
}

export interface PullRequestInfo {
  baseRef: string;
  baseSha: string;
  headRef: string;
  headSha: string;
  draft: boolean;
  merged: boolean;
  mergedAt: string | null;
}

/** An issue or a pull request (they share one number space, like on GitHub). */
export interface Issue {
  id: number;
  repository: Repository;
  number: number;
  title: string;
  body: string | null;
  user: Account;
  state: "open" | "closed";
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  /** Present when this issue is a pull request. */
  pull: PullRequestInfo | null;
  /** Its labels' names, in the order added (absent: none). */
  labels?: string[];
}

export interface Comment {
  id: number;
  repository: Repository;
  issueNumber: number;
  body: string;
  user: Account;
  createdAt: string;
  updatedAt: string;
  /** Created through an installation token, i.e. `performed_via_github_app` is the app. */
  viaApp: boolean;
}

export interface Reaction {
  id: number;
  commentId: number;
  content: ReactionContent;
  user: Account;
  createdAt: string;
}

export interface AddPullRequestInput {
  repository: string;
  number?: number;
  title?: string;
  body?: string | null;
  author: string;
  base?: string;
  head?: string;
  headSha?: string;
  draft?: boolean;
  state?: "open" | "closed";
  merged?: boolean;
  /** Its labels' names. */
  labels?: string[];
}

export interface AddIssueInput {
  repository: string;
  number?: number;
  title?: string;
  body?: string | null;
  author: string;
  state?: "open" | "closed";
}

export interface AddRepositoryOptions {
  defaultBranch?: string;
  /** Default true. On a public repository every existing user reads (GitHub answers "read" for them). */
  private?: boolean;
  description?: string;
  /**
   * Default true: the app is installed on the owner account (all its repositories). False: the owner gets
   * no installation (a StateError if it already has one): no token, no webhooks for its repositories.
   */
  installed?: boolean;
}

/** GitHub timestamps have no milliseconds: 2024-05-01T12:00:00Z. */
export function timestamp(date: Date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

export function legacyPermission(role: RepoRole): LegacyPermission {
  switch (role) {
    case "admin":
      return "admin";
    case "maintain":
    case "write":
      return "write";
    case "triage":
    case "read":
      return "read";
    default:
      return "none";
  }
}

export class StateError extends Error {
  override name = "StateError";
}

const key = (s: string): string => s.toLowerCase();

/**
 * The stand-in's world: accounts, the app's installations, repositories with their collaborators,
 * issues and pull requests, comments and reactions. In memory; ids are small deterministic counters.
 */
export class GitHubState {
  readonly appBot: Account;
  /** Mergify's bot: the merge queue's acts (comments, merges) on the simulator's repositories. */
  readonly mergeQueueBot: Account;
  /** GitHub's own merge queue's bot: it removes pull requests whose merge group failed its checks. */
  readonly githubMergeQueueBot: Account;

  private readonly accounts = new Map<string, Account>();
  private readonly installations = new Map<string, Installation>(); // by account login
  private readonly repositories = new Map<string, Repository>();
  private readonly issues = new Map<string, Issue>(); // `${repo}#${n}`
  private readonly commentsById = new Map<number, Comment>();
  private readonly reactionsById = new Map<number, Reaction>();

  private nextAccountId = 1001;
  private nextInstallationId = 40001;
  private nextRepositoryId = 700001;
  private nextIssueId = 2_000_001;
  private nextCommentId = 3_000_001;
  private nextReactionId = 5_000_001;

  /** The events of installations made from now on. */
  installationEvents: string[];
  /** The clock of what it stamps (comments, reactions, pull requests, merge queue), epoch ms. */
  private clock: () => number = Date.now;

  constructor(
    readonly appSlug: string,
    options: { installationEvents?: readonly string[] } = {},
  ) {
    this.installationEvents = [...(options.installationEvents ?? DEFAULT_INSTALLATION_EVENTS)];
    this.appBot = this.putAccount({ login: `${appSlug}[bot]`, id: 41_000_001, type: "Bot" });
    // Mergify's real bot account id.
    this.mergeQueueBot = this.putAccount({ login: "mergify[bot]", id: 37_929_162, type: "Bot" });
    // GitHub's real github-merge-queue[bot] id.
    this.githubMergeQueueBot = this.putAccount({
      login: "github-merge-queue[bot]",
      id: 118_344_674,
      type: "Bot",
    });
  }

  /**
   * Stamps follow this clock from now on instead of the wall clock: a world whose Yardmaster runs on the
   * simulator's time gives GitHub the same, as GitHub, the merge queue and Yardmaster share one in life.
   * (Tokens, JWTs and rate limits stay on the wall clock, as Yardmaster's signing does.)
   */
  useClock(now: () => number): void {
    this.clock = now;
  }

  /** Now on its clock, as GitHub writes times (to the second). */
  timestamp(): string {
    return timestamp(new Date(this.clock()));
  }

  // ---- accounts ----

  addUser(input: { login: string; id?: number; type?: "User" | "Bot" }): Account {
    const existing = this.accounts.get(key(input.login));
    if (existing) {
      if (input.id !== undefined && input.id !== existing.id) {
        throw new StateError(`user ${input.login} already exists with id ${existing.id}`);
      }
      return existing;
    }
    return this.putAccount({
      login: input.login,
      id: input.id ?? this.nextAccountId++,
      type: input.type ?? "User",
    });
  }

  getUser(login: string): Account | undefined {
    return this.accounts.get(key(login));
  }

  /** Users (type User), in creation order: the accounts the OAuth page offers. */
  humanUsers(): Account[] {
    return [...this.accounts.values()].filter((a) => a.type === "User");
  }

  private putAccount(account: Account): Account {
    for (const a of this.accounts.values()) {
      if (a.id === account.id) throw new StateError(`account id ${account.id} is already used by ${a.login}`);
    }
    this.accounts.set(key(account.login), account);
    return account;
  }

  private requireUser(login: string): Account {
    const user = this.getUser(login);
    if (!user) throw new StateError(`unknown user ${login}: add it with addUser first`);
    return user;
  }

  // ---- installations and repositories ----

  /**
   * Adds `owner/name`. The owner account is created as an Organization when unknown; the app gets
   * installed on the owner account (one installation per account, all its repositories).
   */
  addRepository(fullName: string, options: AddRepositoryOptions = {}): Repository {
    const [ownerLogin, name, ...rest] = fullName.split("/");
    if (!ownerLogin || !name || rest.length > 0) throw new StateError(`not owner/name: ${fullName}`);
    const existing = this.repositories.get(key(fullName));
    if (existing) return existing;
    const owner =
      this.getUser(ownerLogin) ??
      this.putAccount({ login: ownerLogin, id: this.nextAccountId++, type: "Organization" });
    if (options.installed === false) {
      if (this.installations.has(key(owner.login))) {
        throw new StateError(`${owner.login} has the app installed on all its repositories`);
      }
    } else {
      this.installOn(owner);
    }
    const repository: Repository = {
      id: this.nextRepositoryId++,
      name,
      fullName: `${owner.login}/${name}`,
      owner,
      defaultBranch: options.defaultBranch ?? "main",
      private: options.private ?? true,
      description: options.description ?? null,
      createdAt: this.timestamp(),
      roles: new Map(),
      nextNumber: 1,
    };
    this.repositories.set(key(fullName), repository);
    return repository;
  }

  getRepository(fullName: string): Repository | undefined {
    return this.repositories.get(key(fullName));
  }

  requireRepository(fullName: string): Repository {
    const repository = this.getRepository(fullName);
    if (!repository) throw new StateError(`unknown repository ${fullName}: add it with addRepository first`);
    return repository;
  }

  repositoriesOf(installation: Installation): Repository[] {
    return [...this.repositories.values()].filter((r) => r.owner.id === installation.account.id);
  }

  listInstallations(): Installation[] {
    return [...this.installations.values()];
  }

  getInstallation(id: number): Installation | undefined {
    return this.listInstallations().find((i) => i.id === id);
  }

  installationForAccount(login: string): Installation | undefined {
    return this.installations.get(key(login));
  }

  installationFor(fullName: string): Installation {
    const installation = this.installationOf(fullName);
    if (!installation) throw new StateError(`no installation for ${fullName}`);
    return installation;
  }

  /** The installation covering a repository; undefined when the repository or the installation is unknown. */
  installationOf(fullName: string): Installation | undefined {
    const repository = this.getRepository(fullName);
    return repository ? this.installations.get(key(repository.owner.login)) : undefined;
  }

  /** Installs the app on an existing account (e.g. one added with `installed: false`); idempotent. */
  install(login: string, options: { events?: readonly string[] } = {}): Installation {
    const account = this.requireUser(login);
    const installation = this.installOn(account);
    if (options.events) this.setInstallationEvents(login, options.events);
    return installation;
  }

  /**
   * Changes what an installation is subscribed to (and so has granted), as when an organization accepts,
   * or has not yet accepted, an app's new permissions and events.
   */
  setInstallationEvents(login: string, events: readonly string[]): Installation {
    const installation = this.installations.get(key(login));
    if (!installation) throw new StateError(`the app is not installed on ${login}`);
    installation.events = [...events];
    installation.permissions = installationPermissions(events);
    return installation;
  }

  /**
   * Changes what an installation granted, whatever its events: `permissions` replaces the set (an
   * installation that has not accepted the app's new permissions, or had one removed).
   */
  setInstallationPermissions(login: string, permissions: Record<string, string>): Installation {
    const installation = this.installations.get(key(login));
    if (!installation) throw new StateError(`the app is not installed on ${login}`);
    installation.permissions = { ...permissions };
    return installation;
  }

  private installOn(account: Account): Installation {
    const existing = this.installations.get(key(account.login));
    if (existing) return existing;
    const events = [...this.installationEvents];
    const installation: Installation = {
      id: this.nextInstallationId++,
      account,
      createdAt: this.timestamp(),
      events,
      permissions: installationPermissions(events),
    };
    this.installations.set(key(account.login), installation);
    return installation;
  }

  // ---- permissions ----

  /** Sets a collaborator's role; "none" removes it. An unknown login is added as a User. */
  setPermission(fullName: string, login: string, role: RepoRole): void {
    if (!REPO_ROLES.includes(role)) throw new StateError(`unknown role ${role}`);
    const repository = this.requireRepository(fullName);
    const user = this.getUser(login) ?? this.addUser({ login });
    if (role === "none") repository.roles.delete(key(user.login));
    else repository.roles.set(key(user.login), role);
  }

  /**
   * The role GitHub reports for `login`: an explicit one, else admin for the owner of a user-owned
   * repository, else read on a public repository, else none. Undefined when the user does not exist.
   */
  roleOf(repository: Repository, login: string): RepoRole | undefined {
    const user = this.getUser(login);
    if (!user) return undefined;
    const explicit = repository.roles.get(key(user.login));
    if (explicit) return explicit;
    if (repository.owner.id === user.id) return "admin";
    return repository.private ? "none" : "read";
  }

  /** What GitHub puts in `author_association` for this account on this repository. */
  associationOf(repository: Repository, account: Account): string {
    if (account.type === "Bot") return "NONE";
    if (repository.owner.id === account.id) return "OWNER";
    if (repository.roles.has(key(account.login))) return "COLLABORATOR";
    return "NONE";
  }

  // ---- issues and pull requests ----

  addPullRequest(input: AddPullRequestInput): Issue {
    const repository = this.requireRepository(input.repository);
    const number = this.takeNumber(repository, input.number);
    const merged = input.merged ?? false;
    const state = merged ? "closed" : (input.state ?? "open");
    const now = this.timestamp();
    return this.putIssue({
      id: this.nextIssueId++,
      repository,
      number,
      title: input.title ?? `Pull request ${number}`,
      body: input.body ?? null,
      user: this.requireUser(input.author),
      state,
      createdAt: now,
      updatedAt: now,
      closedAt: state === "closed" ? now : null,
      pull: {
        baseRef: input.base ?? repository.defaultBranch,
        baseSha: randomSha(),
        headRef: input.head ?? `feature-${number}`,
        headSha: input.headSha ?? randomSha(),
        draft: input.draft ?? false,
        merged,
        mergedAt: merged ? now : null,
      },
      ...(input.labels ? { labels: [...input.labels] } : {}),
    });
  }

  addIssue(input: AddIssueInput): Issue {
    const repository = this.requireRepository(input.repository);
    const number = this.takeNumber(repository, input.number);
    const state = input.state ?? "open";
    const now = this.timestamp();
    return this.putIssue({
      id: this.nextIssueId++,
      repository,
      number,
      title: input.title ?? `Issue ${number}`,
      body: input.body ?? null,
      user: this.requireUser(input.author),
      state,
      createdAt: now,
      updatedAt: now,
      closedAt: state === "closed" ? now : null,
      pull: null,
    });
  }

  /** Changes a pull request in place (e.g. new head sha, merged), as later GitHub activity would. */
  /** Sets an issue's or pull request's labels (as someone adding or removing them on GitHub would). */
  setLabels(fullName: string, number: number, labels: readonly string[]): Issue {
    const issue = this.getIssue(fullName, number);
    if (!issue) throw new StateError(`no issue ${fullName}#${number}`);
    issue.labels = [...labels];
    issue.updatedAt = this.timestamp();
    return issue;
  }

  updatePullRequest(
    fullName: string,
    number: number,
    patch: Partial<Pick<PullRequestInfo, "headSha" | "baseRef" | "draft" | "merged">> & {
      title?: string;
      state?: "open" | "closed";
    },
  ): Issue {
    const issue = this.getIssue(fullName, number);
    if (!issue?.pull) throw new StateError(`no pull request ${fullName}#${number}`);
    const now = this.timestamp();
    if (patch.title !== undefined) issue.title = patch.title;
    if (patch.headSha !== undefined) issue.pull.headSha = patch.headSha;
    if (patch.baseRef !== undefined) issue.pull.baseRef = patch.baseRef;
    if (patch.draft !== undefined) issue.pull.draft = patch.draft;
    if (patch.merged) {
      issue.pull.merged = true;
      issue.pull.mergedAt = now;
      issue.state = "closed";
    }
    if (patch.state !== undefined) issue.state = patch.state;
    issue.closedAt = issue.state === "closed" ? (issue.closedAt ?? now) : null;
    issue.updatedAt = now;
    return issue;
  }

  getIssue(fullName: string, number: number): Issue | undefined {
    return this.issues.get(`${key(fullName)}#${number}`);
  }

  pullRequests(fullName: string): Issue[] {
    const repository = this.requireRepository(fullName);
    return [...this.issues.values()].filter((i) => i.repository === repository && i.pull !== null);
  }

  private takeNumber(repository: Repository, wanted: number | undefined): number {
    const number = wanted ?? repository.nextNumber;
    if (!Number.isInteger(number) || number < 1) throw new StateError(`bad issue number ${number}`);
    if (this.getIssue(repository.fullName, number)) {
      throw new StateError(`${repository.fullName}#${number} already exists`);
    }
    repository.nextNumber = Math.max(repository.nextNumber, number + 1);
    return number;
  }

  private putIssue(issue: Issue): Issue {
    this.issues.set(`${key(issue.repository.fullName)}#${issue.number}`, issue);
    return issue;
  }

  // ---- comments ----

  createComment(issue: Issue, user: Account, body: string, viaApp: boolean): Comment {
    const now = this.timestamp();
    const comment: Comment = {
      id: this.nextCommentId++,
      repository: issue.repository,
      issueNumber: issue.number,
      body,
      user,
      createdAt: now,
      updatedAt: now,
      viaApp,
    };
    this.commentsById.set(comment.id, comment);
    issue.updatedAt = now;
    return comment;
  }

  updateComment(comment: Comment, body: string): Comment {
    comment.body = body;
    comment.updatedAt = this.timestamp();
    return comment;
  }

  deleteComment(comment: Comment): void {
    this.commentsById.delete(comment.id);
    for (const reaction of this.reactions(comment.id)) this.reactionsById.delete(reaction.id);
  }

  getComment(id: number): Comment | undefined {
    return this.commentsById.get(id);
  }

  /** The comments of an issue or pull request, oldest first. */
  comments(fullName: string, number: number): Comment[] {
    const repository = this.getRepository(fullName);
    return [...this.commentsById.values()].filter(
      (c) => c.repository === repository && c.issueNumber === number,
    );
  }

  issueOf(comment: Comment): Issue {
    const issue = this.getIssue(comment.repository.fullName, comment.issueNumber);
    if (!issue) throw new StateError(`comment ${comment.id} has no issue`);
    return issue;
  }

  // ---- reactions ----

  /** Adds a reaction; `created` is false when this user already reacted with this content. */
  react(comment: Comment, user: Account, content: ReactionContent): { reaction: Reaction; created: boolean } {
    const existing = this.reactions(comment.id).find((r) => r.user.id === user.id && r.content === content);
    if (existing) return { reaction: existing, created: false };
    const reaction: Reaction = {
      id: this.nextReactionId++,
      commentId: comment.id,
      content,
      user,
      createdAt: this.timestamp(),
    };
    this.reactionsById.set(reaction.id, reaction);
    return { reaction, created: true };
  }

  removeReaction(commentId: number, reactionId: number): boolean {
    const reaction = this.reactionsById.get(reactionId);
    if (!reaction || reaction.commentId !== commentId) return false;
    this.reactionsById.delete(reactionId);
    return true;
  }

  /** The reactions on a comment, oldest first. */
  reactions(commentId: number): Reaction[] {
    return [...this.reactionsById.values()].filter((r) => r.commentId === commentId);
  }
}

function randomSha(): string {
  return randomBytes(20).toString("hex");
}
