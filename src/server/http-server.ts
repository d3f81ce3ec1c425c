import { AsyncLocalStorage } from "node:async_hooks";
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from "node:http";
import type { Logger } from "../logger.js";
import type { InFlight } from "./in-flight.js";

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

/** What a log line says about a request: never its body, nor a header but the sender's address. */
export function describeRequest(req: IncomingMessage): Record<string, unknown> {
  const forwarded = req.headers["x-forwarded-for"];
  const length = req.headers["content-length"];
  return {
    method: req.method,
    path: safePath(req),
    source: req.socket.remoteAddress,
    ...(typeof forwarded === "string" ? { forwardedFor: forwarded.slice(0, 200) } : {}),
    ...(length !== undefined ? { bytes: Number(length) } : {}),
  };
}

function safePath(req: IncomingMessage): string {
  try {
    return pathOf(req).slice(0, 200);
  } catch {
    return "(unreadable)";
  }
}

/**
 * The whole body, or null as soon as it is larger than `limit`. A declared length over the limit is
 * refused before anything is read. What is not read is never kept: Node discards the rest of the body
 * once the answer is sent, as it did under Bolt.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off("data", onData);
        chunks.length = 0;
        resolve(null);
        return;
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => resolve(Buffer.concat(chunks)));
    req.once("error", reject);
  });
}

export interface HttpServerOptions {
  /**
   * The endpoints that take a request body, by path, with the most bytes each accepts; every other path
   * takes none. A request over its endpoint's limit (by its Content-Length) is answered 413, one
   * without a Content-Length 411, before any of its body is read, and its connection is closed.
   */
  bodyLimits?: Readonly<Record<string, number>>;
  /** Counts each request the handlers take until its response is done (a graceful stop waits for them). */
  inFlight?: InFlight;
  /** True once a graceful stop began: a request that still arrives is answered 503. */
  stopping?: () => boolean;
}

interface RequestScope {
  req: IncomingMessage;
  res: ServerResponse;
}

const scope = new AsyncLocalStorage<RequestScope>();

/**
 * The request whose handling is running (through every callback and promise it started), if any: the
 * last-resort handler of src/index.ts logs an exception escaping it and answers it 500, and keeps serving.
 */
export function currentRequest(): { describe(): Record<string, unknown>; fail(): void } | undefined {
  const current = scope.getStore();
  if (!current) return undefined;
  return {
    describe: () => describeRequest(current.req),
    fail: () => failRequest(current.res),
  };
}

function failRequest(res: ServerResponse): void {
  if (!res.headersSent) {
    res.setHeader("connection", "close");
    sendJson(res, 500, { error: "internal error" });
  } else res.destroy();
}

/**
 * The one HTTP server (health, metrics, GitHub webhooks, Slack, the OAuth callback): each handler in
 * turn, then 404. Hand-written on node:http: Probot's and Bolt's middlewares are Node handlers, so a
 * list of handlers is all the routing needed. Body limits are checked here, for every endpoint, before
 * a handler sees the request.
 */
export function createHttpServer(
  handlers: Handler[],
  logger: Logger,
  options: HttpServerOptions = {},
): Server {
  const limits = options.bodyLimits ?? {};
  const refuse = (req: IncomingMessage, status: number, reason: string) => {
    logger.warn({ ...describeRequest(req), status, reason }, "request refused");
    answerUnread(req, status, reason);
  };

  /** Whether a request goes on to the handlers; if not, it was refused (the server stops, or its body is refused). */
  const screen = (req: IncomingMessage, res: ServerResponse): boolean => {
    let path: string;
    try {
      path = pathOf(req);
    } catch {
      refuse(req, 400, "unreadable request target");
      return false;
    }
    if (options.stopping?.()) {
      refuse(req, 503, "shutting down");
      return false;
    }
    const limit = Object.hasOwn(limits, path) ? (limits[path] as number) : 0;
    const refusal = bodyRefusal(req, limit);
    if (refusal) {
      refuse(req, refusal.status, refusal.reason);
      return false;
    }
    if (limit > 0) {
      // A body endpoint's own refusals (a bad signature, a malformed body) are logged the same way.
      res.once("finish", () => {
        if (res.statusCode >= 400 && res.statusCode < 500) {
          logger.warn(
            {
              ...describeRequest(req),
              status: res.statusCode,
              reason: STATUS_CODES[res.statusCode] ?? "refused",
            },
            "request refused",
          );
        }
      });
    }
    return true;
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const end = options.inFlight?.begin();
    if (end) res.once("close", end);
    scope.run({ req, res }, () => {
      void (async () => {
        for (const handler of handlers) {
          if (await handler(req, res)) return;
        }
        sendJson(res, 404, { error: "not found" });
      })().catch((error: unknown) => {
        logger.error({ err: error, ...describeRequest(req) }, "request failed");
        failRequest(res);
      });
    });
  };

  const server = createServer((req, res) => {
    if (screen(req, res)) handle(req, res);
  });
  // A client that asks before sending its body (Expect: 100-continue) is screened before it is told to go on.
  server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => {
    if (!screen(req, res)) return;
    res.writeContinue();
    handle(req, res);
  });
  return server;
}

/** How long a refused request's connection stays half-open, so that its client can read the answer. */
const LINGER_MS = 2_000;

/**
 * Answers on the connection itself and closes it, without reading the request's body: Node's response
 * would read (and throw away) whatever the client still sends. The connection is only half-closed at
 * first: a client still sending would otherwise get a reset that can lose the answer before it reads it.
 * What it sends meanwhile is not read past Node's first buffer, and the connection is destroyed soon.
 */
function answerUnread(req: IncomingMessage, status: number, reason: string): void {
  const { socket } = req;
  const body = JSON.stringify({ error: reason });
  socket.end(
    [
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Refused"}`,
      "connection: close",
      "content-type: application/json; charset=utf-8",
      `content-length: ${Buffer.byteLength(body)}`,
      "",
      body,
    ].join("\r\n"),
  );
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

/** Why a request's body is refused before it is read: over the endpoint's limit, or of unknown length. */
function bodyRefusal(req: IncomingMessage, limit: number): { status: number; reason: string } | null {
  const length = req.headers["content-length"];
  const chunked = req.headers["transfer-encoding"] !== undefined;
  if (length === undefined) {
    if (limit > 0 && (req.method === "POST" || chunked)) {
      return { status: 411, reason: "a Content-Length is required" };
    }
    return chunked ? { status: 413, reason: "this endpoint takes no body" } : null;
  }
  const bytes = Number(length);
  if (!Number.isSafeInteger(bytes) || bytes > limit) {
    return {
      status: 413,
      reason: limit === 0 ? "this endpoint takes no body" : `the body is larger than ${limit} bytes`,
    };
  }
  return null;
}
