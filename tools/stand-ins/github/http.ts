import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

export const DOCS_URL = "https://docs.github.com/enterprise-server@3.14/rest";

/** An error answered the way GitHub answers: `{message, documentation_url, ...extra}`, with `headers`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  toJSON(): Record<string, unknown> {
    return { message: this.message, documentation_url: DOCS_URL, ...this.extra };
  }
}

export const notFound = (): HttpError => new HttpError(404, "Not Found");
export const badCredentials = (): HttpError => new HttpError(401, "Bad credentials");
export const requiresAuthentication = (): HttpError => new HttpError(401, "Requires authentication");

/** 422 like GitHub: `{"message": "Validation Failed", "errors": [...]}`. */
export function validationFailed(...errors: Array<Record<string, unknown>>): HttpError {
  return new HttpError(422, "Validation Failed", { errors });
}

export interface ParsedBody {
  /** The body as received. */
  raw: string;
  /** JSON or form fields when the body is either; otherwise the raw string (undefined when empty). */
  value: unknown;
}

const MAX_BODY = 5 * 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<ParsedBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY) throw new HttpError(413, "Request body too large");
    chunks.push(buf);
  }
  const raw = Buffer.concat(chunks).toString("utf8");
  if (raw.length === 0) return { raw, value: undefined };
  const type = (req.headers["content-type"] ?? "").toLowerCase();
  if (type.includes("application/x-www-form-urlencoded")) {
    return { raw, value: Object.fromEntries(new URLSearchParams(raw)) };
  }
  try {
    return { raw, value: JSON.parse(raw) as unknown };
  } catch {
    if (type.includes("json")) throw new HttpError(400, "Problems parsing JSON");
    return { raw, value: raw };
  }
}

/** The body as an object of fields (`{}` when absent); a JSON array or scalar is refused as GitHub does. */
export function bodyFields(body: ParsedBody): Record<string, unknown> {
  if (body.value === undefined) return {};
  if (typeof body.value === "object" && body.value !== null && !Array.isArray(body.value)) {
    return body.value as Record<string, unknown>;
  }
  throw new HttpError(400, "Problems parsing JSON");
}

function commonHeaders(): Record<string, string> {
  return {
    "x-github-request-id": randomBytes(8).toString("hex").toUpperCase(),
    "x-github-media-type": "github.v3; format=json",
    "x-github-enterprise-version": "3.14.0",
    "x-ratelimit-limit": "5000",
    "x-ratelimit-remaining": "4999",
    "x-ratelimit-used": "1",
    "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + 3600),
    "x-ratelimit-resource": "core",
  };
}

export function sendJson(
  res: ServerResponse,
  status: number,
  data: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(data);
  res.writeHead(status, {
    ...commonHeaders(),
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

export function sendEmpty(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...commonHeaders(), ...headers });
  res.end();
}

export function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "content-length": String(Buffer.byteLength(html)),
  });
  res.end(html);
}

export function sendRedirect(res: ServerResponse, location: string): void {
  res.writeHead(302, { location, "content-length": "0" });
  res.end();
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Everything a handler gets about one request. */
export interface RouteRequest {
  method: string;
  /** The path without the query, e.g. "/api/v3/repos/acme/widgets". */
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  body: ParsedBody;
  /** Set by the authentication step: who made the request (for the request log). */
  auth: RecordedAuth;
}

export type RecordedAuth = "none" | "app" | "installation" | "user" | "invalid";

export type RouteHandler = (req: RouteRequest, res: ServerResponse) => Promise<void> | void;

interface Route {
  method: string;
  regex: RegExp;
  names: string[];
  handler: RouteHandler;
}

/** Matches `/repos/{owner}/{repo}`-style templates; parameters never span a slash. */
export class Router {
  private readonly routes: Route[] = [];

  add(method: string, template: string, handler: RouteHandler): this {
    const names: string[] = [];
    const pattern = template
      .split("/")
      .map((part) => {
        const m = /^\{(\w+)\}$/.exec(part);
        if (!m?.[1]) return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        names.push(m[1]);
        return "([^/]+)";
      })
      .join("/");
    this.routes.push({ method, regex: new RegExp(`^${pattern}/?$`), names, handler });
    return this;
  }

  match(method: string, path: string): { handler: RouteHandler; params: Record<string, string> } | undefined {
    for (const route of this.routes) {
      if (route.method !== method) continue;
      const m = route.regex.exec(path);
      if (!m) continue;
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => {
        params[name] = decodeURIComponent(m[i + 1] ?? "");
      });
      return { handler: route.handler, params };
    }
    return undefined;
  }
}

/** `per_page` (default 30, at most 100) and `page` (from 1) like GitHub. */
export function paginate<T>(
  items: T[],
  query: URLSearchParams,
  selfUrl: string,
): { page: T[]; headers: Record<string, string> } {
  const perPage = clampInt(query.get("per_page"), 30, 1, 100);
  const page = clampInt(query.get("page"), 1, 1, Number.MAX_SAFE_INTEGER);
  const lastPage = Math.max(1, Math.ceil(items.length / perPage));
  const slice = items.slice((page - 1) * perPage, page * perPage);
  const link = (p: number): string => {
    const url = new URL(selfUrl);
    url.searchParams.set("per_page", String(perPage));
    url.searchParams.set("page", String(p));
    return url.toString();
  };
  const rels: string[] = [];
  if (page > 1) rels.push(`<${link(Math.min(page - 1, lastPage))}>; rel="prev"`);
  if (page < lastPage) rels.push(`<${link(page + 1)}>; rel="next"`, `<${link(lastPage)}>; rel="last"`);
  if (page > 1) rels.push(`<${link(1)}>; rel="first"`);
  return { page: slice, headers: rels.length > 0 ? { link: rels.join(", ") } : {} };
}

function clampInt(value: string | null, fallback: number, min: number, max: number): number {
  if (value === null || value.trim() === "") return fallback;
  const n = Number.parseInt(value, 10);
  if (!Number.isFinite(n)) return fallback;
  return Math.min(max, Math.max(min, n));
}
