import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Logger } from "../logger.js";

/** Answers a request and returns true, or returns false to let the next handler try. */
export type Handler = (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;

export function sendJson(res: ServerResponse, status: number, body: unknown): true {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
  return true;
}

export function sendText(
  res: ServerResponse,
  status: number,
  body: string,
  type = "text/plain; charset=utf-8",
): true {
  res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(body) });
  res.end(body);
  return true;
}

export function pathOf(req: IncomingMessage): string {
  return new URL(req.url ?? "/", "http://localhost").pathname;
}

/**
 * The one HTTP server (health, metrics, GitHub webhooks, Slack, the OAuth callback): each handler in
 * turn, then 404. Hand-written on node:http: Probot's and Bolt's middlewares are Node handlers, so a
 * list of handlers is all the routing needed.
 */
export function createHttpServer(handlers: Handler[], logger: Logger): Server {
  return createServer((req, res) => {
    void (async () => {
      for (const handler of handlers) {
        if (await handler(req, res)) return;
      }
      sendJson(res, 404, { error: "not found" });
    })().catch((error: unknown) => {
      logger.error({ err: error, method: req.method, path: pathOf(req) }, "request failed");
      if (!res.headersSent) sendJson(res, 500, { error: "internal error" });
      else res.destroy();
    });
  });
}
