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

/** The longest text an error's field keeps in a log line; a longer one is replaced by its length. */
const MAX_FIELD_CHARS = 4096;

/**
 * Errors as pino's standard serializer writes them, without what a request carried. @octokit/webhooks
 * hangs the whole webhook (body and signature) on a signature error as `event`: a line keeps its
 * delivery id, event name and size. Any other long text an error carries becomes its length.
 */
export function errSerializer(error: unknown): unknown {
  return bounded(pino.stdSerializers.err(error as Error));
}

function bounded(serialized: unknown): unknown {
  if (typeof serialized !== "object" || serialized === null) return serialized;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(serialized)) {
    if (key === "event") out.event = describeEvent(value);
    else if (key === "aggregateErrors" && Array.isArray(value)) out.aggregateErrors = value.map(bounded);
    else if (key === "stack" || typeof value !== "string" || value.length <= MAX_FIELD_CHARS)
      out[key] = value;
    else if (key === "message")
      out.message = `${value.slice(0, MAX_FIELD_CHARS)}… (${value.length} characters)`;
    else out[key] = `[${value.length} characters]`;
  }
  return out;
}

function describeEvent(event: unknown): unknown {
  if (typeof event !== "object" || event === null)
    return typeof event === "string" ? `[${event.length} characters]` : event;
  const { id, name, payload } = event as { id?: unknown; name?: unknown; payload?: unknown };
  return {
    ...(typeof id === "string" ? { id: id.slice(0, 100) } : {}),
    ...(typeof name === "string" ? { name: name.slice(0, 100) } : {}),
    ...(typeof payload === "string" ? { bytes: Buffer.byteLength(payload) } : {}),
  };
}

export function createLogger(
  options: { level?: LogLevel; name?: string } = {},
  destination?: DestinationStream,
): Logger {
  return pino(
    {
      name: options.name ?? "yardmaster",
      level: options.level ?? "info",
      redact: { paths: redactPaths(), censor: REDACTED },
      serializers: { err: errSerializer },
    },
    destination,
  );
}

export type { Logger };
