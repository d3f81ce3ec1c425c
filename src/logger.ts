import { type DestinationStream, type Logger, pino } from "pino";
import { type LogLevel, SECRET_SETTING_NAMES } from "./settings/settings.js";

/**
 * Keys whose values are secrets wherever they appear in a log object (up to four levels deep): every
 * secret setting of the table by its variable name, and the generic names of tokens, keys, secrets and
 * headers that carry them (as Yardmaster's objects and its libraries' options name them).
 */
const SECRET_KEYS = [
  ...SECRET_SETTING_NAMES,
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
