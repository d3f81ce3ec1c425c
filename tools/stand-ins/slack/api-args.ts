/** Web API arguments as `@slack/web-api` (or anything else) sends them, and their coercion. */

/** Form fields that carry JSON (the WebClient JSON-encodes every non-scalar argument). */
const JSON_FIELDS = new Set(["blocks", "attachments", "metadata", "view"]);

export interface ParsedApiRequest {
  args: Record<string, unknown>;
  /** A `token` argument, from a form body or the query string (Slack ignores it in JSON bodies). */
  token?: string;
}

export class MalformedRequestError extends Error {}

export function parseApiRequest(
  rawBody: string,
  mediaType: string,
  query: URLSearchParams,
): ParsedApiRequest {
  const args: Record<string, unknown> = {};
  let token: string | undefined;
  const takeForm = (params: URLSearchParams) => {
    for (const [key, value] of params) {
      if (key === "token") {
        token = value;
        continue;
      }
      args[key] = JSON_FIELDS.has(key) ? tryJson(value) : value;
    }
  };
  takeForm(query);
  if (rawBody.length > 0) {
    if (mediaType === "application/json") {
      let parsed: unknown;
      try {
        parsed = JSON.parse(rawBody);
      } catch {
        throw new MalformedRequestError("invalid_json");
      }
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
        throw new MalformedRequestError("invalid_json");
      }
      for (const [key, value] of Object.entries(parsed)) {
        if (key === "token") continue;
        args[key] = typeof value === "string" && JSON_FIELDS.has(key) ? tryJson(value) : value;
      }
    } else {
      takeForm(new URLSearchParams(rawBody));
    }
  }
  return token === undefined ? { args } : { args, token };
}

function tryJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

export function argString(args: Record<string, unknown>, key: string): string | undefined {
  const value = args[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

/** A non-empty string argument. */
export function argText(args: Record<string, unknown>, key: string): string | undefined {
  const value = argString(args, key);
  return value === undefined || value === "" ? undefined : value;
}

export function argBool(args: Record<string, unknown>, key: string): boolean | undefined {
  const value = args[key];
  if (typeof value === "boolean") return value;
  if (value === "true" || value === "1" || value === 1) return true;
  if (value === "false" || value === "0" || value === 0) return false;
  return undefined;
}

export function argInt(args: Record<string, unknown>, key: string): number | undefined {
  const value = args[key];
  const n = typeof value === "number" ? value : typeof value === "string" ? Number(value) : Number.NaN;
  return Number.isFinite(n) ? Math.trunc(n) : undefined;
}
