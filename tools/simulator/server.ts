// HTTP layer: routing of /v1 (the served interface) and /__sim (control), Bearer authentication,
// request counting and fault injection.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import { type ApiContext, apiRoutes } from "./api.js";
import { type ControlContext, controlRoutes } from "./control.js";
import type { FaultAction, Faults } from "./faults.js";
import {
  BodyTooLargeError,
  detail,
  json,
  matchRoute,
  pathSegments,
  type Reply,
  readBody,
  send,
} from "./http.js";
import type { RequestStats } from "./request-stats.js";
import type { SimState } from "./state.js";
import type { SimTokens, TokenAccess } from "./tokens.js";

export interface ServerDependencies {
  state: SimState;
  faults: Faults;
  stats: RequestStats;
  tokens: SimTokens;
  logger: Logger;
}

/** The token's access, or the 403 reply. */
function authenticate(req: IncomingMessage, tokens: SimTokens): TokenAccess | Reply {
  const header = req.headers.authorization;
  if (header === undefined || header.trim() === "") return detail(403, "Not authenticated");
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  const access = match === null ? null : tokens.access(match[1] ?? "");
  return access ?? detail(403, "Invalid token");
}

/** null when the token may call this route of this repository (the control endpoints: its own only). */
function authorize(
  req: IncomingMessage,
  tokens: SimTokens,
  target: { repository: string; route: string } | "control",
): Reply | null {
  const access = authenticate(req, tokens);
  if ("status" in access) return access;
  if (access.kind === "full") return null;
  if (target === "control") return detail(403, "Invalid token");
  if (access.repositories && !access.repositories.has(target.repository.toLowerCase()))
    return detail(403, "This application key has no access to this repository");
  if (!access.eventLog && target.route.endsWith("/logs"))
    return detail(403, "This application key may not read the event log");
  return null;
}

/** A 2xx reply with a malformed body, for the "malformed" fault. */
function malform(reply: Reply, variant: "not_json" | "missing_field"): Reply {
  const status = reply.status >= 200 && reply.status < 300 && reply.status !== 204 ? reply.status : 200;
  const headers = { ...reply.headers };
  if (variant === "missing_field") {
    let body: unknown = reply.body ?? {};
    if (typeof body === "object" && body !== null && !Array.isArray(body)) {
      const [first] = Object.keys(body);
      const { [first ?? ""]: _removed, ...rest } = body as Record<string, unknown>;
      body = first === undefined ? { unexpected: true } : rest;
    }
    return { status, body, headers };
  }
  const text = JSON.stringify(reply.body ?? { detail: "ok" });
  return { status, raw: text.slice(0, Math.max(1, Math.floor(text.length / 2))), headers };
}

export function createSimulatorServer(deps: ServerDependencies): Server {
  const { state, faults, stats, tokens, logger } = deps;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? "GET";
    const url = new URL(req.url ?? "/", "http://simulator.invalid");
    const origin = `http://${req.headers.host ?? "127.0.0.1"}`;
    let bodyPromise: Promise<string> | null = null;
    const body = () => {
      bodyPromise ??= readBody(req);
      return bodyPromise;
    };
    const segments = pathSegments(url.pathname);
    if (segments === null) return send(res, detail(404, "Not Found"));

    if (segments[0] === "v1") {
      const found = matchRoute(apiRoutes, method, segments);
      if (found.kind === "not-found") return send(res, detail(404, "Not Found"));
      if (found.kind === "method-not-allowed") {
        return send(res, {
          ...detail(405, "Method Not Allowed"),
          headers: { allow: found.allowed.join(", ") },
        });
      }
      const repository = `${found.params.owner ?? ""}/${found.params.repository ?? ""}`;
      stats.record(repository, found.route.name);
      const latency = faults.latencyOf(repository);
      if (latency > 0) await sleep(latency);
      const denied = authorize(req, tokens, { repository, route: found.route.name });
      if (denied !== null) return send(res, denied);
      const fault: FaultAction | null = faults.take(repository);
      if (fault?.kind === "drop") {
        logger.debug({ repository, route: found.route.name }, "fault: dropping the connection");
        req.socket.destroy();
        return;
      }
      if (fault?.kind === "status") {
        return send(res, {
          status: fault.status,
          body: { detail: fault.detail },
          headers: fault.headers ?? {},
        });
      }
      const context: ApiContext = { state, url, origin, body };
      const reply = await found.route.handle(context, found.params);
      return send(res, fault?.kind === "malformed" ? malform(reply, fault.variant) : reply);
    }

    if (segments[0] === "__sim") {
      const found = matchRoute(controlRoutes, method, segments);
      if (found.kind === "not-found") return send(res, detail(404, "Not Found"));
      if (found.kind === "method-not-allowed") {
        return send(res, {
          ...detail(405, "Method Not Allowed"),
          headers: { allow: found.allowed.join(", ") },
        });
      }
      const denied = authorize(req, tokens, "control");
      if (denied !== null) return send(res, denied);
      const context: ControlContext = { state, faults, stats, body };
      return send(res, await found.route.handle(context, found.params));
    }

    if (segments.length === 0 && method === "GET") {
      return send(res, json(200, { service: "merge-queue simulator", api: `${origin}/v1` }));
    }
    return send(res, detail(404, "Not Found"));
  }

  return createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (error instanceof BodyTooLargeError) {
        if (!res.headersSent) send(res, detail(413, "Request body too large"));
        return;
      }
      logger.error({ err: error, method: req.method, url: req.url }, "simulator request failed");
      if (!res.headersSent) send(res, detail(500, "Internal Server Error"));
      else res.destroy();
    });
  });
}
