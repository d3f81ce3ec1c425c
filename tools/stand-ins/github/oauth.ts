import { randomBytes, timingSafeEqual } from "node:crypto";
import type { ServerResponse } from "node:http";
import { newToken } from "./app-auth.js";
import type { StandInContext } from "./context.js";
import { requireToken } from "./context.js";
import {
  bodyFields,
  escapeHtml,
  HttpError,
  type RouteRequest,
  type Router,
  sendHtml,
  sendJson,
  sendRedirect,
} from "./http.js";
import { userJson } from "./payloads.js";
import type { Account, GitHubState } from "./state.js";

/** GitHub's authorization codes live 10 minutes and work once. */
const CODE_TTL_MS = 10 * 60_000;

interface PendingCode {
  clientId: string;
  redirectUri: string;
  login: string;
  expiresAt: number;
}

/** User access tokens (`ghu_...`) issued by the OAuth flow, and the codes that lead to them. */
export class UserTokens {
  private readonly codes = new Map<string, PendingCode>();
  private readonly tokens = new Map<string, string>(); // token -> login

  constructor(private readonly state: GitHubState) {}

  newCode(pending: Omit<PendingCode, "expiresAt">): string {
    const code = randomBytes(10).toString("hex");
    this.codes.set(code, { ...pending, expiresAt: Date.now() + CODE_TTL_MS });
    return code;
  }

  /** The pending code, removed: a code is single use, even when the exchange then fails. */
  takeCode(code: string): PendingCode | undefined {
    const pending = this.codes.get(code);
    this.codes.delete(code);
    if (!pending || pending.expiresAt <= Date.now()) return undefined;
    return pending;
  }

  /** Issues a user access token without the web flow (for tests acting as a person). */
  issue(login: string): string {
    const user = this.state.getUser(login);
    if (!user) throw new Error(`unknown user ${login}`);
    const token = newToken("ghu_");
    this.tokens.set(token, user.login);
    return token;
  }

  userFor(token: string): Account | undefined {
    const login = this.tokens.get(token);
    return login === undefined ? undefined : this.state.getUser(login);
  }
}

const ERROR_DOCS =
  "https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors";

function oauthError(error: string, description: string): Record<string, string> {
  return { error, error_description: description, error_uri: `${ERROR_DOCS}/#${error.replace(/_/g, "-")}` };
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function normalizeUrl(url: string): string {
  try {
    return new URL(url).toString();
  } catch {
    return url;
  }
}

function page(title: string, content: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body><main><h1>${escapeHtml(title)}</h1>
${content}
</main></body></html>
`;
}

function authorize(ctx: StandInContext, req: RouteRequest, res: ServerResponse): void {
  const oauth = ctx.oauth;
  const clientId = req.query.get("client_id") ?? "";
  if (!oauth || !safeEqual(clientId, oauth.clientId)) {
    sendHtml(res, 404, page("Not Found", "<p>No application with this client_id.</p>"));
    return;
  }
  const redirectUri = req.query.get("redirect_uri");
  let redirect: URL;
  try {
    redirect = new URL(redirectUri ?? "");
  } catch {
    sendHtml(res, 400, page("Bad redirect_uri", "<p>A redirect_uri (absolute URL) is required.</p>"));
    return;
  }
  const login = req.query.get("login");
  if (login) {
    const user = ctx.state.getUser(login);
    if (user?.type !== "User") {
      sendHtml(res, 404, page("Unknown user", `<p>No user ${escapeHtml(login)}.</p>`));
      return;
    }
    const code = ctx.userTokens.newCode({ clientId, redirectUri: redirect.toString(), login: user.login });
    redirect.searchParams.set("code", code);
    const state = req.query.get("state");
    if (state !== null) redirect.searchParams.set("state", state);
    sendRedirect(res, redirect.toString());
    return;
  }
  const links = ctx.state
    .humanUsers()
    .map((user) => {
      const params = new URLSearchParams(req.query);
      params.set("login", user.login);
      return `<li><a href="/login/oauth/authorize?${escapeHtml(params.toString())}">Sign in as ${escapeHtml(user.login)}</a></li>`;
    })
    .join("\n");
  sendHtml(
    res,
    200,
    page(
      `Authorize ${ctx.app.name}`,
      links ? `<ul>\n${links}\n</ul>` : "<p>No users yet: add some with state.addUser.</p>",
    ),
  );
}

function accessToken(ctx: StandInContext, req: RouteRequest, res: ServerResponse): void {
  const fields = bodyFields(req.body);
  const str = (name: string): string => {
    const value = fields[name] ?? req.query.get(name);
    return typeof value === "string" ? value : "";
  };
  let clientId = str("client_id");
  let clientSecret = str("client_secret");
  const basic = /^basic\s+(\S+)$/i.exec(req.headers.authorization ?? "");
  if (basic?.[1]) {
    const [id, secret] = Buffer.from(basic[1], "base64").toString("utf8").split(":");
    clientId = id ?? "";
    clientSecret = secret ?? "";
  }
  const wantsJson = (req.headers.accept ?? "").includes("json");
  const answer = (data: Record<string, string>): void => {
    if (wantsJson) sendJson(res, 200, data);
    else {
      const text = new URLSearchParams(data).toString();
      res.writeHead(200, { "content-type": "application/x-www-form-urlencoded; charset=utf-8" });
      res.end(text);
    }
  };
  const oauth = ctx.oauth;
  if (!oauth) throw new HttpError(404, "Not Found");
  if (!safeEqual(clientId, oauth.clientId) || !safeEqual(clientSecret, oauth.clientSecret)) {
    answer(
      oauthError("incorrect_client_credentials", "The client_id and/or client_secret passed are incorrect."),
    );
    return;
  }
  const pending = ctx.userTokens.takeCode(str("code"));
  if (!pending || pending.clientId !== clientId) {
    answer(oauthError("bad_verification_code", "The code passed is incorrect or expired."));
    return;
  }
  const redirectUri = str("redirect_uri");
  if (redirectUri && normalizeUrl(redirectUri) !== pending.redirectUri) {
    answer(
      oauthError(
        "redirect_uri_mismatch",
        "The redirect_uri MUST match the registered callback URL for this application.",
      ),
    );
    return;
  }
  answer({ access_token: ctx.userTokens.issue(pending.login), token_type: "bearer", scope: "" });
}

function currentUser(ctx: StandInContext, req: RouteRequest, res: ServerResponse): void {
  const caller = requireToken(ctx, req);
  if (caller.kind !== "user") throw new HttpError(403, "Resource not accessible by integration");
  sendJson(res, 200, { ...userJson(ctx.urls, caller.actor), name: null, email: null });
}

/** Web routes (no /api/v3): the authorize page and the code exchange. */
export function addOAuthWebRoutes(router: Router, ctx: StandInContext): void {
  router
    .add("GET", "/login/oauth/authorize", (req, res) => authorize(ctx, req, res))
    .add("POST", "/login/oauth/access_token", (req, res) => accessToken(ctx, req, res));
}

/** REST route `GET /user` (mounted under /api/v3). */
export function addUserRoutes(router: Router, ctx: StandInContext): void {
  router.add("GET", "/user", (req, res) => currentUser(ctx, req, res));
}
