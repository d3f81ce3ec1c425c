import type { SetupLine } from "../core/setup-line.js";
import { fail, pass, skip, warn } from "../core/setup-line.js";
import type { Settings } from "../settings/read-settings.js";

/** Probot's default webhook secret, which a deployment must never keep. */
const DEVELOPMENT_WEBHOOK_SECRET = "development";
/** Shorter than this, a webhook secret is easy to guess (GitHub asks for a random string of high entropy). */
const SHORTEST_WEBHOOK_SECRET = 16;

export function checkWebhookSecret(github: Settings["github"]): SetupLine[] {
  const check = "webhook secret";
  if (!github) return [skip(check, "the GitHub App is not configured")];
  const secret = github.webhookSecret;
  const fix =
    "generate a random secret (openssl rand -hex 32), set it as WEBHOOK_SECRET and in the GitHub App's settings (Webhook secret)";
  if (!secret) return [fail(check, "WEBHOOK_SECRET is not set", fix)];
  if (secret === DEVELOPMENT_WEBHOOK_SECRET)
    return [fail(check, `WEBHOOK_SECRET is the development default "${DEVELOPMENT_WEBHOOK_SECRET}"`, fix)];
  if (secret.length < SHORTEST_WEBHOOK_SECRET)
    return [warn(check, `WEBHOOK_SECRET is set but only ${secret.length} characters long`, fix)];
  return [pass(check, "WEBHOOK_SECRET is set and not the development default")];
}

/** Slack's signing secrets are 32 hexadecimal characters (Basic Information → App Credentials). */
const SLACK_SIGNING_SECRET = /^[0-9a-f]{32}$/;

export function checkSlackSigningSecret(slack: Settings["slack"]): SetupLine[] {
  const check = "Slack signing secret";
  if (!slack) return [skip(check, "the Slack app is not configured")];
  const fix =
    "copy the Signing Secret from the Slack app's Basic Information → App Credentials into SLACK_SIGNING_SECRET (not the Verification Token or Client Secret)";
  if (!slack.signingSecret && slack.appToken)
    return [pass(check, "not needed: Slack sends everything over Socket Mode (SLACK_APP_TOKEN)")];
  if (!slack.signingSecret) return [fail(check, "SLACK_SIGNING_SECRET is not set", fix)];
  if (!SLACK_SIGNING_SECRET.test(slack.signingSecret))
    return [
      warn(check, "SLACK_SIGNING_SECRET is set but does not look like one (32 hexadecimal characters)", fix),
    ];
  return [pass(check, "SLACK_SIGNING_SECRET is set")];
}
