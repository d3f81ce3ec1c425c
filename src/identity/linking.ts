import { randomBytes } from "node:crypto";
import { exchangeWebFlowCode } from "@octokit/oauth-methods";
import { ProbotOctokit } from "probot";
import type { Logger } from "../logger.js";
import { type Handler, pathOf, readBody } from "../server/http-server.js";
import type { IdentityLinkStore, OAuthStateStore } from "../store/index.js";
import type { ChatMessage } from "../wording/message.js";
import { type ChatNames, confirmationPage, escapeHtml, linkedPage, notice } from "./pages.js";

export type ChatNamesLookup = (teamId: string, userId: string) => Promise<ChatNames>;

/** The chat's answer to a `/mq login`, where the person ran it (Slack: its response_url). */
export interface ChatReply {
  /** Whether a `/mq login`'s reply address is the chat's own (Slack: src/slack/response-url.ts): only then is it told. */
  accepts(url: string): boolean;
  /** Says the message to the person alone at that address. */
  send(url: string, message: ChatMessage): Promise<void>;
}

/** The linking confirmation, which says once that personal notices are on (docs/notifications.md). */
function linkedMessage(githubLogin: string): ChatMessage {
  return {
    summary: [
      "You are linked to GitHub as ",
      { text: githubLogin },
      ". Yardmaster will now send you a direct message when one of your pull requests enters a merge queue, merges or leaves it (",
      { code: "/mq notify" },
      " shows and changes this; ",
      { code: "/mq notify off" },
      " stops it).",
    ],
  };
}

export const OAUTH_CALLBACK_PATH = "/github/oauth/callback";

export interface IdentityLinkingOptions {
  clientId: string;
  clientSecret: string;
  /** github.com or the GHE host: where /login/oauth/... lives. */
  webUrl: string;
  /** GitHub's API (github.com's, or GHE_HOST's /api/v3): GET /user, and the code exchange beside it. */
  apiUrl: string;
  /** Yardmaster's PUBLIC_URL: the callback is PUBLIC_URL/github/oauth/callback. */
  publicUrl: string;
  store: Pick<OAuthStateStore, "consumeOAuthState" | "createOAuthState"> & Pick<IdentityLinkStore, "putLink">;
  /** Where the person who ran `/mq login` is told once linked; null: nobody is told (no chat). */
  reply: ChatReply | null;
  logger: Logger;
  /** What the linked Slack user and workspace are called (Slack's Web API); their ids without it. */
  slackNames?: ChatNamesLookup;
  /** A Slack user was linked (their Home tab is refreshed). */
  onLinked?: (person: { teamId: string; slackUserId: string }) => void;
  now?: () => Date;
}

function callbackUrl(publicUrl: string): string {
  return `${publicUrl}${OAUTH_CALLBACK_PATH}`;
}

/**
 * The GitHub App's user-authorization URL for a `state`. Written here rather than with
 * getWebFlowAuthorizationUrl, which always adds allow_signup and needs a request object for the host.
 */
export function loginUrl(
  options: Pick<IdentityLinkingOptions, "clientId" | "webUrl" | "publicUrl">,
  state: string,
) {
  const query = new URLSearchParams({
    client_id: options.clientId,
    redirect_uri: callbackUrl(options.publicUrl),
    state,
  });
  return `${options.webUrl}/login/oauth/authorize?${query}`;
}

/** How long the confirmation after GitHub's sign-in waits for the person (its state is good once). */
const CONFIRMATION_TTL_MINUTES = 10;
/** The most a confirmation form's body may be (its state and the button pressed). */
export const CONFIRMATION_MAX_BODY_BYTES = 2048;

type Response = Parameters<Handler>[1];
type OAuthState = NonNullable<Awaited<ReturnType<OAuthStateStore["consumeOAuthState"]>>>;
type SignedIn = NonNullable<OAuthState["signedIn"]>;

const EXPIRED =
  "This sign-in link was already used or has expired (links last 10 minutes). Run <code>/mq login</code> in Slack for a new one.";

/**
 * GitHub's OAuth callback (docs/security.md, "Signing in"). GET, after GitHub's sign-in: checks the
 * single-use `state` of `/mq login`, exchanges the code, asks GitHub who signed in, and shows a page that
 * names the Slack user and workspace it would link, with a form holding a new one-time state. POST, that
 * form: links them only when the person confirmed, once, within 10 minutes. Nothing is linked before.
 */
export function oauthCallbackHandler(options: IdentityLinkingOptions): Handler {
  // Octokit's request, pointed at the API: exchangeWebFlowCode finds the web host (/login/oauth) from it.
  const { request } = new ProbotOctokit({
    baseUrl: options.apiUrl,
    retry: { enabled: false },
    throttle: { enabled: false },
  });
  return async (req, res) => {
    if (pathOf(req) !== OAUTH_CALLBACK_PATH) return false;
    if (req.method === "GET") return signedInOnGitHub(options, request, req, res);
    if (req.method === "POST") return confirmed(options, req, res);
    res.setHeader("allow", "GET, POST");
    return notice(res, 405, "Not linked", "Open the sign-in link from <code>/mq login</code> in Slack.");
  };
}

/** GET: GitHub's sign-in came back; the confirmation page, or why not. */
async function signedInOnGitHub(
  options: IdentityLinkingOptions,
  request: InstanceType<typeof ProbotOctokit>["request"],
  req: Parameters<Handler>[0],
  res: Response,
): Promise<true> {
  const query = new URL(req.url ?? "/", "http://localhost").searchParams;
  const code = query.get("code");
  const stateValue = query.get("state");
  if (query.get("error")) {
    return notice(
      res,
      400,
      "Not linked",
      "GitHub sign-in was cancelled. Run <code>/mq login</code> in Slack to try again.",
    );
  }
  if (!code || !stateValue) {
    return notice(
      res,
      400,
      "Not linked",
      "This link is incomplete. Run <code>/mq login</code> in Slack for a new one.",
    );
  }
  const now = options.now?.() ?? new Date();
  const state = await options.store.consumeOAuthState(stateValue, now);
  // A confirmation's state is no sign-in link's.
  if (!state || state.signedIn) return notice(res, 400, "Link expired", EXPIRED);
  let user: { login: string; id: number };
  try {
    user = await signedInUser(options, request, code);
  } catch (error) {
    options.logger.warn({ err: error }, "identity linking failed");
    return notice(
      res,
      502,
      "Not linked",
      `${escapeHtml((error as Error).message)}. Run <code>/mq login</code> in Slack to try again.`,
    );
  }
  // A new state, known only to the browser that signed in (the sender of a forwarded link knows the first).
  const confirmation = randomBytes(24).toString("base64url");
  await options.store.createOAuthState({
    ...state,
    state: confirmation,
    expiresAt: new Date(now.getTime() + CONFIRMATION_TTL_MINUTES * 60_000),
    signedIn: { githubLogin: user.login, githubId: user.id },
  });
  return confirmationPage(res, {
    names: await namesOf(options, state),
    githubLogin: user.login,
    state: confirmation,
    action: OAUTH_CALLBACK_PATH,
    expiresInMinutes: CONFIRMATION_TTL_MINUTES,
  });
}

/** POST: the confirmation form; links when the person chose to, once. */
async function confirmed(
  options: IdentityLinkingOptions,
  req: Parameters<Handler>[0],
  res: Response,
): Promise<true> {
  const form = await readForm(req);
  const stateValue = form?.get("state");
  const decision = form?.get("decision");
  if (!form || !stateValue || (decision !== "link" && decision !== "cancel")) {
    return notice(
      res,
      400,
      "Not linked",
      "This form is incomplete. Run <code>/mq login</code> in Slack for a new link.",
    );
  }
  const now = options.now?.() ?? new Date();
  const state = await options.store.consumeOAuthState(stateValue, now);
  // Only a confirmation's state, which names who signed in: a sign-in link's would link nobody known.
  if (!state?.signedIn) return notice(res, 400, "Link expired", EXPIRED);
  if (decision === "cancel") {
    options.logger.info(
      { slackUser: state.slackUserId },
      "identity linking declined on its confirmation page",
    );
    return notice(res, 200, "Not linked", "Nothing was linked. You can close this tab.");
  }
  return link(options, res, state, state.signedIn, now);
}

/** The urlencoded body of a form (the server refused a larger one before it was read), or null. */
async function readForm(req: Parameters<Handler>[0]): Promise<URLSearchParams | null> {
  const type = req.headers["content-type"] ?? "";
  if (!type.toLowerCase().startsWith("application/x-www-form-urlencoded")) return null;
  const body = await readBody(req, CONFIRMATION_MAX_BODY_BYTES);
  return body ? new URLSearchParams(body.toString("utf8")) : null;
}

async function namesOf(options: IdentityLinkingOptions, state: OAuthState): Promise<ChatNames> {
  return options.slackNames
    ? await options.slackNames(state.teamId, state.slackUserId)
    : { user: state.slackUserId, team: state.teamId };
}

/** Exchanges the code for a user token and asks GitHub who that is. */
async function signedInUser(
  options: IdentityLinkingOptions,
  request: InstanceType<typeof ProbotOctokit>["request"],
  code: string,
): Promise<{ login: string; id: number }> {
  const token = await exchangeWebFlowCode({
    clientType: "github-app",
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    code,
    redirectUrl: callbackUrl(options.publicUrl),
    request: request.defaults({ request: { signal: AbortSignal.timeout(10_000) } }),
  }).catch((error: unknown) => {
    throw refused("GitHub refused the code", error);
  });
  const { data: user } = await request("GET /user", {
    headers: { authorization: `Bearer ${token.authentication.token}` },
    request: { signal: AbortSignal.timeout(10_000) },
  }).catch((error: unknown) => {
    throw refused("GitHub did not say who signed in", error);
  });
  if (!user.login || typeof user.id !== "number") throw new Error("GitHub's answer had no login");
  return { login: user.login, id: user.id };
}

/** Stores the link, tells Slack, and says so on the page. */
async function link(
  options: IdentityLinkingOptions,
  res: Response,
  state: OAuthState,
  user: SignedIn,
  now: Date,
): Promise<true> {
  await options.store.putLink({
    teamId: state.teamId,
    slackUserId: state.slackUserId,
    githubLogin: user.githubLogin,
    githubId: user.githubId,
    linkedAt: now,
  });
  options.logger.info({ slackUser: state.slackUserId, githubLogin: user.githubLogin }, "identity linked");
  options.onLinked?.({ teamId: state.teamId, slackUserId: state.slackUserId });
  const reply = options.reply;
  if (state.responseUrl && reply?.accepts(state.responseUrl)) {
    await reply
      .send(state.responseUrl, linkedMessage(user.githubLogin))
      .catch((error: unknown) => options.logger.warn({ err: error }, "could not tell Slack about the link"));
  }
  return linkedPage(res, await namesOf(options, state), user.githubLogin);
}

/** An answer GitHub refused, named by its OAuth error code or else its HTTP status; other errors as they are. */
function refused(what: string, error: unknown): unknown {
  const e = error as { status?: number; response?: { data?: { error?: unknown } } };
  const code = e.response?.data?.error;
  if (typeof code === "string") return new Error(`${what} (${code})`);
  return typeof e.status === "number" ? new Error(`${what} (${e.status})`) : error;
}
