import type { KeyObject } from "node:crypto";
import type { Logger } from "pino";
import type { InstallationToken, InstallationTokens } from "./app-auth.js";
import { looksLikeJwt, verifyAppJwt } from "./app-auth.js";
import { badCredentials, HttpError, notFound, type RouteRequest, requiresAuthentication } from "./http.js";
import type { MergeQueueAnswers } from "./merge-queue-answers.js";
import type { MergeQueueForwarder } from "./merge-queue-forwarder.js";
import type { UserTokens } from "./oauth.js";
import type { AppInfo, Urls } from "./payloads.js";
import type { Account, GitHubState, Installation, Repository } from "./state.js";
import type { WebhookSender } from "./webhooks.js";

/** What every route handler shares. */
export interface StandInContext {
  state: GitHubState;
  app: AppInfo;
  urls: Urls;
  publicKey: KeyObject;
  installationTokens: InstallationTokens;
  userTokens: UserTokens;
  webhooks: WebhookSender;
  forwarder: MergeQueueForwarder | undefined;
  /** The merge queue's answer comments, edited as the pull requests move. */
  answers?: MergeQueueAnswers;
  oauth: { clientId: string; clientSecret: string } | undefined;
  /** Send webhooks for comments created, edited or deleted through the API (as GitHub does). */
  apiEvents: boolean;
  logger: Logger;
}

/**
 * Whether GitHub sends `event` about this repository to the app: only when the app is installed on it and
 * the installation is subscribed to the event.
 */
export function subscribed(ctx: StandInContext, repository: string, event: string): boolean {
  return ctx.state.installationOf(repository)?.events.includes(event) ?? false;
}

/** Who is calling a token-authenticated endpoint. */
export type Caller =
  | { kind: "installation"; actor: Account; installation: Installation; token: InstallationToken }
  | { kind: "user"; actor: Account };

/** `Authorization: <scheme> <credential>`, scheme lower-cased. */
function credentials(req: RouteRequest): { scheme: string; credential: string } | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const m = /^(\w+)\s+(\S+)\s*$/.exec(header);
  if (!m?.[1] || !m[2]) return { scheme: "", credential: "" };
  return { scheme: m[1].toLowerCase(), credential: m[2] };
}

/** App endpoints: `Authorization: Bearer <JWT>`. */
export function requireApp(ctx: StandInContext, req: RouteRequest): void {
  const auth = credentials(req);
  if (!auth) {
    req.auth = "none";
    throw requiresAuthentication();
  }
  req.auth = "invalid";
  if (auth.scheme !== "bearer" || !looksLikeJwt(auth.credential)) {
    throw new HttpError(401, "A JSON web token could not be decoded");
  }
  verifyAppJwt(auth.credential, ctx.publicKey, ctx.app.id);
  req.auth = "app";
}

/** Installation or user endpoints: `Authorization: token|Bearer ghs_...|ghu_...` this server issued. */
export function requireToken(ctx: StandInContext, req: RouteRequest): Caller {
  const auth = credentials(req);
  if (!auth) {
    req.auth = "none";
    throw requiresAuthentication();
  }
  req.auth = "invalid";
  if (auth.scheme !== "token" && auth.scheme !== "bearer") throw badCredentials();
  const installationToken = ctx.installationTokens.find(auth.credential);
  if (installationToken) {
    const installation = ctx.state.getInstallation(installationToken.installationId);
    if (!installation) throw badCredentials();
    req.auth = "installation";
    return { kind: "installation", actor: ctx.state.appBot, installation, token: installationToken };
  }
  const user = ctx.userTokens.userFor(auth.credential);
  if (user) {
    req.auth = "user";
    return { kind: "user", actor: user };
  }
  throw badCredentials();
}

/**
 * A repository the caller may see. An installation token sees its installation's repositories (or the
 * ones it was restricted to); anything else is 404, as GitHub hides what a token cannot reach.
 */
export function requireRepository(
  ctx: StandInContext,
  req: RouteRequest,
): { caller: Caller; repository: Repository } {
  const caller = requireToken(ctx, req);
  const repository = ctx.state.getRepository(`${req.params.owner}/${req.params.repo}`);
  if (!repository) throw notFound();
  if (caller.kind === "installation") {
    const sameAccount = repository.owner.id === caller.installation.account.id;
    const allowed = caller.token.repositoryIds === null || caller.token.repositoryIds.includes(repository.id);
    if (!sameAccount || !allowed) throw notFound();
  } else if (repository.private && ctx.state.roleOf(repository, caller.actor.login) === "none") {
    throw notFound();
  }
  return { caller, repository };
}

export function intParam(value: string | undefined): number {
  if (value === undefined || !/^\d+$/.test(value)) throw notFound();
  return Number.parseInt(value, 10);
}

/** The absolute URL of the request (for pagination links), with its query. */
export function selfUrl(ctx: StandInContext, req: RouteRequest): string {
  const query = req.query.toString();
  return `${ctx.urls.web}${req.path}${query ? `?${query}` : ""}`;
}
