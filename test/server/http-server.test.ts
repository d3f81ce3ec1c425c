import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { createHttpServer, currentRequest, type Handler, sendJson } from "../../src/server/http-server.js";
import { InFlight } from "../../src/server/in-flight.js";

const LIMITS = { "/hooks": 1000, "/callback": 0 };

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** A server with the limits above; every request that reaches the handlers is answered 200 with its body's size. */
async function serve(options: { stopping?: () => boolean; inFlight?: InFlight; handler?: Handler } = {}) {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger(
    { level: "info" },
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
        done();
      },
    }),
  );
  const reached: string[] = [];
  const echo: Handler = async (req, res) => {
    reached.push(`${req.method} ${req.url}`);
    let bytes = 0;
    for await (const chunk of req) bytes += (chunk as Buffer).length;
    return sendJson(res, 200, { bytes });
  };
  const server = createHttpServer(options.handler ? [options.handler] : [echo], logger, {
    bodyLimits: LIMITS,
    ...options,
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return { port, lines, reached };
}

/**
 * Sends raw bytes and resolves with everything the server sent back before it closed the connection
 * (or after `waitMs` of quiet), and whether it closed it.
 */
function exchange(
  port: number,
  head: string,
  body = "",
  waitMs = 3_000,
): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    let timer: NodeJS.Timeout | undefined;
    const done = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, closed });
    };
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      text += chunk;
    });
    socket.on("end", () => done(true));
    socket.on("error", () => done(true));
    timer = setTimeout(() => done(false), waitMs);
    socket.write(head);
    if (body) socket.write(body);
  });
}

const post = (path: string, headers: string[]) =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\n${headers.map((h) => `${h}\r\n`).join("")}\r\n`;

describe("body limits", () => {
  it("answers 413 from the Content-Length, before reading the body, and closes the connection", async () => {
    const { port, lines, reached } = await serve();
    const { text, closed } = await exchange(port, post("/hooks", ["Content-Length: 5000"]), "SECRET-BODY");
    expect(text).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/);
    expect(text.toLowerCase()).toContain("connection: close");
    expect(closed).toBe(true);
    expect(reached).toEqual([]);
    expect(lines).toEqual([
      expect.objectContaining({
        msg: "request refused",
        method: "POST",
        path: "/hooks",
        bytes: 5000,
        source: "127.0.0.1",
        status: 413,
        reason: "the body is larger than 1000 bytes",
      }),
    ]);
    expect(JSON.stringify(lines)).not.toContain("SECRET-BODY");
  });

  it("lets a body within the limit through to the handlers", async () => {
    const { port, reached } = await serve();
    const { text } = await exchange(
      port,
      post("/hooks", ["Content-Length: 1000", "Connection: close"]),
      "x".repeat(1000),
    );
    expect(text).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(text).toContain('{"bytes":1000}');
    expect(reached).toEqual(["POST /hooks"]);
  });

  it("answers 411 to a POST without Content-Length (chunked, or none at all)", async () => {
    const { port, reached } = await serve();
    const chunked = await exchange(port, post("/hooks", ["Transfer-Encoding: chunked"]), "5\r\nhello\r\n");
    expect(chunked.text).toMatch(/^HTTP\/1\.1 411 Length Required\r\n/);
    expect(chunked.closed).toBe(true);
    const none = await exchange(port, post("/hooks", []));
    expect(none.text).toMatch(/^HTTP\/1\.1 411 /);
    expect(reached).toEqual([]);
  });

  it("takes no body where none is expected: the OAuth callback and any other path", async () => {
    const { port, reached } = await serve();
    const callback = await exchange(
      port,
      "GET /callback?code=c HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\n",
      "abc",
    );
    expect(callback.text).toMatch(/^HTTP\/1\.1 413 /);
    const chunked = await exchange(port, post("/elsewhere", ["Transfer-Encoding: chunked"]), "1\r\na\r\n");
    expect(chunked.text).toMatch(/^HTTP\/1\.1 413 /);
    const plain = await exchange(
      port,
      "GET /callback?code=c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    expect(plain.text).toMatch(/^HTTP\/1\.1 200 /);
    expect(reached).toEqual(["GET /callback?code=c"]);
  });

  it("screens a client that waits for 100 Continue before it is told to send", async () => {
    const { port } = await serve();
    const big = await exchange(port, post("/hooks", ["Content-Length: 5000", "Expect: 100-continue"]));
    expect(big.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(big.text).not.toContain("100 Continue");
    const small = await exchange(
      port,
      post("/hooks", ["Content-Length: 3", "Expect: 100-continue", "Connection: close"]),
      "abc",
    );
    expect(small.text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK/);
  });

  it("logs a body endpoint's own refusals by size and source too", async () => {
    const { port, lines } = await serve({
      handler: (_req, res) => sendJson(res, 401, { error: "bad signature" }),
    });
    await exchange(port, post("/hooks", ["Content-Length: 4", "Connection: close"]), "abcd");
    expect(lines).toEqual([
      expect.objectContaining({ msg: "request refused", bytes: 4, status: 401, reason: "Unauthorized" }),
    ]);
  });
});

describe("the server's life", () => {
  it("answers 503 once stopping", async () => {
    let stopping = false;
    const { port } = await serve({ stopping: () => stopping });
    stopping = true;
    const { text, closed } = await exchange(port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(text).toMatch(/^HTTP\/1\.1 503 /);
    expect(closed).toBe(true);
  });

  it("counts a request in flight until its response is done", async () => {
    const inFlight = new InFlight();
    let release = () => {};
    let arrived = () => {};
    const handling = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const { port } = await serve({
      inFlight,
      handler: async (_req, res) => {
        await new Promise<void>((resolve) => {
          release = resolve;
          arrived();
        });
        return sendJson(res, 200, {});
      },
    });
    const answered = exchange(port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    // The handler holds the request (however long it took to arrive).
    await handling;
    expect(inFlight.size).toBe(1);
    release();
    expect((await answered).text).toMatch(/^HTTP\/1\.1 200 /);
    expect(await inFlight.idle()).toBe(true);
    expect(inFlight.size).toBe(0);
  });

  it("knows, in whatever a request's handling started, which request it is", async () => {
    let seen: unknown;
    const { port } = await serve({
      handler: () =>
        new Promise((resolve) => {
          setTimeout(() => {
            seen = currentRequest()?.describe();
            currentRequest()?.fail();
            resolve(true);
          }, 1);
        }),
    });
    const { text } = await exchange(port, "GET /somewhere HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(text).toMatch(/^HTTP\/1\.1 500 /);
    expect(seen).toMatchObject({ method: "GET", path: "/somewhere", source: "127.0.0.1" });
    expect(currentRequest()).toBeUndefined();
  });
});
