import { exchangeWebFlowCode } from "@octokit/oauth-methods";
import { ProbotOctokit } from "probot";
import type { Logger } from "../logger.js";
import { type Handler, pathOf, sendText } from "../server/http-server.js";
import type { SlackNames, SlackNamesLookup } from "../slack/names.js";
import type { IdentityLinkStore, OAuthStateStore } from "../store/index.js";

/** The linking confirmation says once that personal notices are on (docs/notifications.md). */
const PERSONAL_NOTICES_ON =
  "Yardmaster will now send you a direct message when one of your pull requests enters a merge queue, merges or leaves it (`/mq notify` shows and changes this; `/mq notify off` stops it).";

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
  store: Pick<OAuthStateStore, "consumeOAuthState"> & Pick<IdentityLinkStore, "putLink">;
  logger: Logger;
  /** What the linked Slack user and workspace are called (Slack's Web API); their ids without it. */
  slackNames?: SlackNamesLookup;
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

// Hand-written: five characters, and no HTML-escaping package is a dependency.
const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );

function page(res: Parameters<Handler>[1], status: number, title: string, message: string): true {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · Yardmaster</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1f2328}</style></head>
<body><h1>${escapeHtml(title)}</h1><p>${message}</p></body></html>`;
  return sendText(res, status, html, "text/html; charset=utf-8");
}

/**
 * GET /github/oauth/callback: checks the single-use `state`, exchanges the code for a user token,
 * reads the GitHub login, stores the Slack user → GitHub login link, and says what happened.
 */
export function oauthCallbackHandler(options: IdentityLinkingOptions): Handler {
  // Octokit's request, pointed at the API: exchangeWebFlowCode finds the web host (/login/oauth) from it.
  const { request } = new ProbotOctokit({
    baseUrl: options.apiUrl,
    retry: { enabled: false },
    throttle: { enabled: false },
  });
  return async (req, res) => {
    if (req.method !== "GET" || pathOf(req) !== OAUTH_CALLBACK_PATH) return false;
    const query = new URL(req.url ?? "/", "http://localhost").searchParams;
    const code = query.get("code");
    const stateValue = query.get("state");
    if (query.get("error")) {
      return page(
        res,
        400,
        "Not linked",
        "GitHub sign-in was cancelled. Run <code>/mq login</code> in Slack to try again.",
      );
    }
    if (!code || !stateValue) {
      return page(
        res,
        400,
        "Not linked",
        "This link is incomplete. Run <code>/mq login</code> in Slack for a new one.",
      );
    }
    const now = options.now?.() ?? new Date();
    const state = await options.store.consumeOAuthState(stateValue, now);
    if (!state) {
      return page(
        res,
        400,
        "Link expired",
        "This sign-in link was already used or has expired (links last 10 minutes). Run <code>/mq login</code> in Slack for a new one.",
      );
    }
    try {
      const user = await signedInUser(options, request, code);
      return await link(options, res, state, user, now);
    } catch (error) {
      options.logger.warn({ err: error }, "identity linking failed");
      return page(
        res,
        502,
        "Not linked",
        `${escapeHtml((error as Error).message)}. Run <code>/mq login</code> in Slack to try again.`,
      );
    }
  };
}

type OAuthState = NonNullable<Awaited<ReturnType<OAuthStateStore["consumeOAuthState"]>>>;

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
  res: Parameters<Handler>[1],
  state: OAuthState,
  user: { login: string; id: number },
  now: Date,
): Promise<true> {
  await options.store.putLink({
    teamId: state.teamId,
    slackUserId: state.slackUserId,
    githubLogin: user.login,
    githubId: user.id,
    linkedAt: now,
  });
  options.logger.info({ slackUser: state.slackUserId, githubLogin: user.login }, "identity linked");
  options.onLinked?.({ teamId: state.teamId, slackUserId: state.slackUserId });
  if (state.responseUrl) {
    await fetch(state.responseUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        response_type: "ephemeral",
        replace_original: false,
        text: `You are linked to GitHub as ${user.login.replace(/[&<>]/g, "")}. ${PERSONAL_NOTICES_ON}`,
      }),
      signal: AbortSignal.timeout(5_000),
    }).catch((error: unknown) => options.logger.warn({ err: error }, "could not tell Slack about the link"));
  }
  const names: SlackNames = options.slackNames
    ? await options.slackNames(state.teamId, state.slackUserId)
    : { user: state.slackUserId, team: state.teamId };
  return page(
    res,
    200,
    "Linked",
    `Slack user <strong>${escapeHtml(names.user)}</strong> in workspace <strong>${escapeHtml(names.team)}</strong> is now linked to GitHub account <strong>${escapeHtml(user.login)}</strong>. You can close this tab and go back to Slack.</p>
<p>Not your Slack account? Then someone sent you their own sign-in link, and that account can now act with your GitHub permissions in Yardmaster: tell your Slack workspace's administrators.`,
  );
}

/** An answer GitHub refused, named by its OAuth error code or else its HTTP status; other errors as they are. */
function refused(what: string, error: unknown): unknown {
  const e = error as { status?: number; response?: { data?: { error?: unknown } } };
  const code = e.response?.data?.error;
  if (typeof code === "string") return new Error(`${what} (${code})`);
  return typeof e.status === "number" ? new Error(`${what} (${e.status})`) : error;
}
