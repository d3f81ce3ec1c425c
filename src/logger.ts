import { type DestinationStream, type Logger, pino } from "pino";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Keys whose values are secrets wherever they appear in a log object (up to four levels deep). */
const SECRET_KEYS = [
  "authorization",
  "Authorization",
  "token",
  "accessToken",
  "access_token",
  "botToken",
  "privateKey",
  "private_key",
  "secret",
  "webhookSecret",
  "signingSecret",
  "clientSecret",
  "client_secret",
  "password",
  "cookie",
  "oauthCode",
  "x-slack-signature",
  "x-hub-signature",
  "x-hub-signature-256",
  "PRIVATE_KEY",
  "WEBHOOK_SECRET",
  "GITHUB_CLIENT_SECRET",
  "SLACK_BOT_TOKEN",
  "SLACK_SIGNING_SECRET",
  "MERGE_QUEUE_API_TOKEN",
];

function redactPaths(): string[] {
  const paths: string[] = [];
  for (const key of SECRET_KEYS) {
    const k = /^[A-Za-z_$][\w$]*$/.test(key) ? key : `["${key}"]`;
    const dot = k.startsWith("[") ? "" : ".";
    paths.push(k, `*${dot}${k}`, `*.*${dot}${k}`, `*.*.*${dot}${k}`);
  }
  return paths;
}

export const REDACTED = "[redacted]";

export function createLogger(
  options: { level?: LogLevel; name?: string } = {},
  destination?: DestinationStream,
): Logger {
  return pino(
    {
      name: options.name ?? "yardmaster",
      level: options.level ?? "info",
      redact: { paths: redactPaths(), censor: REDACTED },
      serializers: { err: pino.stdSerializers.err },
    },
    destination,
  );
}

export type { Logger };
