import type { SetupLine } from "../core/setup-line.js";
import { CALL_TIMEOUT_MS, fail, listed, pass, reason, skip, warn } from "../core/setup-line.js";
import type { Settings } from "../settings/read-settings.js";
import type { SlackAppAsks } from "./manifests.js";

/**
 * The Slack bot token works (`auth.test`) and holds the scopes slack-manifest.yml asks for: Slack names
 * a token's scopes in the `x-oauth-scopes` header of every Web API answer. The scopes that only name
 * people and the workspace on the page after `/mq login`, or only unfurl links, are a warning when
 * missing (README, Deploy).
 */

/** The scopes whose lack turns one feature off, with what a person then sees (README, Deploy). */
const OPTIONAL_SCOPES: Readonly<Record<string, string>> = {
  "users:read": "the page after /mq login shows ids instead of names",
  "team:read": "the page after /mq login shows ids instead of names",
  "links:read": "pull-request links are not unfurled with their queue state",
  "links:write": "pull-request links are not unfurled with their queue state",
};
const CHECK = "Slack token";
const TOKEN_FIX =
  "copy the Bot User OAuth Token (xoxb-…) from the Slack app's OAuth & Permissions page into SLACK_BOT_TOKEN; reinstall the app to the workspace if it was revoked";

export async function checkSlackToken(
  slack: Settings["slack"],
  asks: SlackAppAsks | Error,
): Promise<SetupLine[]> {
  if (!slack)
    return [skip(CHECK, "the Slack app is not configured (SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET unset)")];
  if (!slack.botToken.startsWith("xoxb-"))
    return [fail(CHECK, "SLACK_BOT_TOKEN is not a bot token (xoxb-…)", TOKEN_FIX)];
  let response: Response;
  let body: { ok?: boolean; error?: string; user?: string; team?: string };
  try {
    response = await fetch(`${slack.apiUrl}auth.test`, {
      method: "POST",
      headers: { authorization: `Bearer ${slack.botToken}` },
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
    body = (await response.json()) as typeof body;
  } catch (error) {
    return [
      fail(
        CHECK,
        `Slack at ${slack.apiUrl} cannot be reached (${reason(error)})`,
        "check the network (and SLACK_API_URL, normally unset)",
      ),
    ];
  }
  if (body.ok !== true) {
    const error = String(body.error ?? `HTTP ${response.status}`).slice(0, 100);
    return [fail(CHECK, `Slack refused the token (${error})`, TOKEN_FIX)];
  }
  const lines = [pass(CHECK, `works: the bot ${body.user ?? "?"} in the workspace ${body.team ?? "?"}`)];
  const scopesCheck = "Slack scopes";
  if (asks instanceof Error) {
    lines.push(
      warn(
        scopesCheck,
        `slack-manifest.yml could not be read (${asks.message})`,
        "run from the directory that holds slack-manifest.yml",
      ),
    );
    return lines;
  }
  const header = response.headers.get("x-oauth-scopes");
  if (header === null) {
    lines.push(
      warn(
        scopesCheck,
        "Slack did not say which scopes the token has",
        "compare the token's scopes with slack-manifest.yml in the app's OAuth & Permissions page",
      ),
    );
    return lines;
  }
  const granted = new Set(header.split(",").map((s) => s.trim()));
  const missing = asks.botScopes.filter((s) => !granted.has(s));
  if (missing.length === 0) {
    lines.push(
      pass(scopesCheck, `the token has every scope slack-manifest.yml asks for (${asks.botScopes.length})`),
    );
    return lines;
  }
  const fix = `add ${listed(missing)} under OAuth & Permissions → Bot Token Scopes (or update the app from slack-manifest.yml), then reinstall the app to the workspace`;
  const message = `the token lacks ${listed(missing)}`;
  const effects = [...new Set(missing.map((s) => OPTIONAL_SCOPES[s]))];
  lines.push(
    effects.every((effect) => effect !== undefined)
      ? warn(scopesCheck, `${message}: ${effects.join("; ")}`, fix)
      : fail(scopesCheck, message, fix),
  );
  return lines;
}
