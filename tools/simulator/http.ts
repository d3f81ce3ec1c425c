// Small HTTP helpers on node:http: replies, body reading, route matching.

import type { IncomingMessage, ServerResponse } from "node:http";
import type { ValidationErrorItem } from "./types.js";

export interface Reply {
  status: number;
  /** JSON body (omitted for 204). */
  body?: unknown;
  /** Raw text body, sent as is (takes precedence over `body`). */
  raw?: string;
  headers?: Record<string, string>;
}

export function json(status: number, body: unknown, headers?: Record<string, string>): Reply {
  return headers === undefined ? { status, body } : { status, body, headers };
}

export function detail(status: number, message: string): Reply {
  return { status, body: { detail: message } };
}

export function validationFailed(items: ValidationErrorItem[]): Reply {
  return { status: 422, body: { detail: items } };
}

export function send(res: ServerResponse, reply: Reply): void {
  const headers: Record<string, string> = { ...reply.headers };
  let payload: string | undefined;
  if (reply.raw !== undefined) {
    payload = reply.raw;
    headers["content-type"] ??= "application/json";
  } else if (reply.body !== undefined && reply.status !== 204) {
    payload = JSON.stringify(reply.body);
    headers["content-type"] = "application/json";
  }
  if (payload !== undefined) headers["content-length"] = String(Buffer.byteLength(payload));
  res.writeHead(reply.status, headers);
  res.end(payload);
}

export class BodyTooLargeError extends Error {}

export async function readBody(req: IncomingMessage, limit = 1024 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) throw new BodyTooLargeError("request body too large");
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export interface Route<Context> {
  method: string;
  /** Path segments; ":name" is a parameter. */
  segments: string[];
  /** Route name, e.g. "GET /v1/repos/{owner}/{repository}/logs". */
  name: string;
  handle: (context: Context, params: Record<string, string>) => Reply | Promise<Reply>;
}

export function route<Context>(
  method: string,
  path: string,
  handle: Route<Context>["handle"],
): Route<Context> {
  const segments = path.split("/").filter((segment) => segment.length > 0);
  const name = `${method} /${segments.map((segment) => (segment.startsWith(":") ? `{${segment.slice(1)}}` : segment)).join("/")}`;
  return { method, segments, name, handle };
}

export type RouteMatch<Context> =
  | { kind: "found"; route: Route<Context>; params: Record<string, string> }
  | { kind: "method-not-allowed"; allowed: string[] }
  | { kind: "not-found" };

/** Splits a URL path into decoded segments (empty segments kept, e.g. "/repos//x"); null if malformed. */
export function pathSegments(pathname: string): string[] | null {
  const parts = pathname.split("/").slice(1);
  if (parts.length > 0 && parts[parts.length - 1] === "") parts.pop();
  try {
    return parts.map((part) => decodeURIComponent(part));
  } catch {
    return null;
  }
}

export function matchRoute<Context>(
  routes: Route<Context>[],
  method: string,
  segments: string[],
): RouteMatch<Context> {
  const allowed: string[] = [];
  for (const candidate of routes) {
    if (candidate.segments.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let matches = true;
    for (let i = 0; i < segments.length; i++) {
      const pattern = candidate.segments[i] ?? "";
      const value = segments[i] ?? "";
      if (pattern.startsWith(":")) params[pattern.slice(1)] = value;
      else if (pattern !== value) {
        matches = false;
        break;
      }
    }
    if (!matches) continue;
    if (candidate.method === method) return { kind: "found", route: candidate, params };
    allowed.push(candidate.method);
  }
  return allowed.length > 0 ? { kind: "method-not-allowed", allowed } : { kind: "not-found" };
}
