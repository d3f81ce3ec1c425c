import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { MOST_ANSWER_BYTES, nodeHttpSend } from "../../../src/backends/mergify/http-send.js";

// The Mergify client's HTTP against a real server on loopback: answers, redirects, timeouts, sizes, and
// the connection kept between requests.

let server: http.Server | undefined;

async function serve(
  handler: http.RequestListener,
): Promise<{ url: (path: string) => URL; connections: () => number }> {
  let connections = 0;
  server = http.createServer(handler);
  server.on("connection", () => {
    connections += 1;
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return { url: (path) => new URL(`http://127.0.0.1:${port}${path}`), connections: () => connections };
}

// Real sockets: nock's interception (test/setup.ts) would open a connection of its own per request.
beforeAll(() => nock.restore());
afterAll(() => nock.activate());

afterEach(async () => {
  const open = server;
  server = undefined;
  if (!open) return;
  open.closeAllConnections();
  await new Promise((resolve) => open.close(resolve));
});

const get = { method: "GET", headers: { accept: "application/json" }, timeoutMs: 5_000 };

describe("nodeHttpSend", () => {
  it("answers the status, the headers by any case and the body; the request carries its headers and body", async () => {
    const seen: { method?: string; auth?: string; body: string }[] = [];
    const { url } = await serve((req, res) => {
      let body = "";
      req.on("data", (chunk) => {
        body += chunk;
      });
      req.on("end", () => {
        seen.push({ method: req.method, auth: req.headers.authorization, body });
        res.writeHead(201, { "content-type": "application/json", link: '<https://x/next>; rel="next"' });
        res.end('{"ok":true}');
      });
    });
    const answer = await nodeHttpSend(url("/v1/pause"), {
      method: "PUT",
      headers: { authorization: "Bearer t", "content-type": "application/json" },
      body: '{"reason":"déploiement"}',
      timeoutMs: 5_000,
    });
    expect(answer.status).toBe(201);
    expect(answer.headers.get("Link")).toBe('<https://x/next>; rel="next"');
    expect(answer.headers.get("retry-after")).toBeNull();
    expect(JSON.parse(answer.text)).toEqual({ ok: true });
    expect(seen).toEqual([{ method: "PUT", auth: "Bearer t", body: '{"reason":"déploiement"}' }]);
  });

  it("does not follow a redirect: the token never travels to another address", async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(302, { location: "https://elsewhere.example/steal" });
      res.end();
    });
    const answer = await nodeHttpSend(url("/v1/logs"), get);
    expect(answer.status).toBe(302);
    expect(answer.headers.get("location")).toBe("https://elsewhere.example/steal");
  });

  it("keeps the connection open for the next request", async () => {
    const { url, connections } = await serve((_req, res) => res.end("{}"));
    for (let i = 0; i < 3; i += 1) expect((await nodeHttpSend(url("/v1/logs"), get)).status).toBe(200);
    expect(connections()).toBe(1);
  });

  it("fails with a TimeoutError when the answer does not come in time", async () => {
    // The server never answers.
    const { url } = await serve(() => {});
    const failed = await nodeHttpSend(url("/v1/logs"), { ...get, timeoutMs: 50 }).catch((e: Error) => e);
    expect(failed).toBeInstanceOf(Error);
    expect((failed as Error).name).toBe("TimeoutError");
  });

  it("refuses an answer larger than it keeps, instead of holding it in memory", async () => {
    const { url } = await serve((_req, res) => {
      const chunk = Buffer.alloc(1024 * 1024, 97);
      let sent = 0;
      const more = () => {
        while (sent <= MOST_ANSWER_BYTES) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", more);
        }
        res.end();
      };
      res.on("error", () => {});
      more();
    });
    const failed = await nodeHttpSend(url("/v1/logs"), get).catch((e: Error) => e);
    expect(String(failed)).toContain(`larger than ${MOST_ANSWER_BYTES} bytes`);
  });

  it("fails as a network error when nothing listens", async () => {
    const { url } = await serve((_req, res) => res.end());
    const closed = url("/v1/logs");
    server?.close();
    await once(server as http.Server, "close");
    server = undefined;
    const failed = await nodeHttpSend(closed, get).catch((e: NodeJS.ErrnoException) => e);
    expect((failed as NodeJS.ErrnoException).code).toBe("ECONNREFUSED");
  });
});
