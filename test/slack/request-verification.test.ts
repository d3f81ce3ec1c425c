import { createHmac } from "node:crypto";
import { createServer, type IncomingMessage, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import {
  checkSlackSignature,
  guardSlackRequests,
  SLACK_BODY_LIMIT_BYTES,
} from "../../src/slack/request-verification.js";

const SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
const NOW = new Date("2025-03-01T12:00:00.000Z");
const NOW_S = Math.floor(NOW.getTime() / 1000);
const BODY = "command=%2Fmq&text=pause+acme%2Fwidgets+freeze&team_id=T1&user_id=U1";

const sign = (timestamp: number | string, body: string, secret = SECRET) =>
  `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;

describe("checkSlackSignature", () => {
  const check = (timestamp: string | undefined, signature: string | undefined, body = BODY) =>
    checkSlackSignature({ timestamp, signature, body: Buffer.from(body), signingSecret: SECRET, now: NOW });

  it("accepts Slack's signature within 5 minutes either way, inclusive", () => {
    for (const offset of [0, -300, 300, -1, 1]) {
      const timestamp = String(NOW_S + offset);
      expect(check(timestamp, sign(timestamp, BODY))).toEqual({ ok: true, signature: sign(timestamp, BODY) });
    }
  });

  it("refuses a timestamp more than 5 minutes ahead or behind, however well signed", () => {
    for (const offset of [400, 301, -301, -600]) {
      const timestamp = String(NOW_S + offset);
      expect(check(timestamp, sign(timestamp, BODY))).toEqual({
        ok: false,
        reason: "timestamp outside the window",
      });
    }
  });

  it("refuses a wrong, malformed or missing signature or timestamp", () => {
    const timestamp = String(NOW_S);
    const good = sign(timestamp, BODY);
    expect(check(timestamp, sign(timestamp, BODY, "another secret"))).toMatchObject({
      reason: "bad signature",
    });
    expect(check(timestamp, sign(timestamp, `${BODY}&x=1`))).toMatchObject({ reason: "bad signature" });
    expect(check(timestamp, good.toUpperCase())).toMatchObject({ reason: "bad signature" });
    expect(check(timestamp, `v1=${good.slice(3)}`)).toMatchObject({ reason: "bad signature" });
    expect(check(timestamp, good.slice(0, -2))).toMatchObject({ reason: "bad signature" });
    for (const bad of [`${timestamp}.5`, ` ${timestamp}`, `0${timestamp}`, "-1", "", "1e9"]) {
      expect(check(bad, sign(bad, BODY))).toMatchObject({ reason: "malformed timestamp" });
    }
    expect(check(undefined, good)).toMatchObject({ reason: "no signature" });
    expect(check(timestamp, undefined)).toMatchObject({ reason: "no signature" });
  });
});

describe("guardSlackRequests in front of Bolt", () => {
  let server: Server;
  let url: string;
  let passed: { rawBody: string; streamEnded: boolean }[];
  let claims: string[];
  let claim: (signature: string) => Promise<boolean>;

  beforeEach(async () => {
    passed = [];
    claims = [];
    const seen = new Set<string>();
    claim = async (signature) => {
      claims.push(signature);
      if (seen.has(signature)) return false;
      seen.add(signature);
      return true;
    };
    const guard = guardSlackRequests(
      {
        signingSecret: SECRET,
        claim: (signature) => claim(signature),
        logger: createLogger({ level: "silent" }),
        now: () => NOW,
      },
      // Bolt: reads `rawBody` when it is there, and acknowledges.
      (req, res) => {
        const buffered = req as IncomingMessage & { rawBody?: Buffer };
        passed.push({ rawBody: buffered.rawBody?.toString("utf8") ?? "", streamEnded: req.readableEnded });
        res.writeHead(200);
        res.end("ran");
      },
    );
    server = createServer((req, res) => void guard(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
  });
  afterEach(async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  });

  const post = (
    headers: Record<string, string>,
    body: string = BODY,
    contentType = "application/x-www-form-urlencoded",
  ) => fetch(url, { method: "POST", headers: { "content-type": contentType, ...headers }, body });
  const signed = (offset = 0, body = BODY) => {
    const timestamp = String(NOW_S + offset);
    return { "x-slack-request-timestamp": timestamp, "x-slack-signature": sign(timestamp, body) };
  };

  it("passes a fresh, signed request to Bolt once, with its body already read", async () => {
    const answer = await post(signed());
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe("ran");
    expect(passed).toEqual([{ rawBody: BODY, streamEnded: true }]);
    expect(claims).toEqual([signed()["x-slack-signature"]]);
  });

  it("refuses a request dated 400 s ahead with 401, and Bolt never sees it", async () => {
    const answer = await post(signed(400));
    expect(answer.status).toBe(401);
    expect(await answer.text()).toBe("");
    expect(passed).toEqual([]);
    expect(claims).toEqual([]);
  });

  it("refuses the same signed request the second time with 401, and runs it once", async () => {
    const headers = signed(-10);
    expect((await post(headers)).status).toBe(200);
    expect((await post(headers)).status).toBe(401);
    expect(passed).toHaveLength(1);
    // Another request signed in the same second is not a replay.
    expect((await post(signed(-10, `${BODY}&trigger_id=2`), `${BODY}&trigger_id=2`)).status).toBe(200);
    expect(passed).toHaveLength(2);
  });

  it("passes one of Slack's retries on like any request when it is signed anew, and only then", async () => {
    const retry = await post({
      ...signed(-1),
      "x-slack-retry-num": "1",
      "x-slack-retry-reason": "http_error",
    });
    expect(retry.status).toBe(200);
    expect(passed).toHaveLength(1);
    const forged = await post({
      "x-slack-request-timestamp": String(NOW_S),
      "x-slack-signature": sign(NOW_S, BODY, "not the secret"),
      "x-slack-retry-num": "1",
    });
    expect(forged.status).toBe(401);
    // The header does not make a replay pass: the same signature again is refused.
    expect((await post({ ...signed(-1), "x-slack-retry-num": "2" })).status).toBe(401);
    expect(passed).toHaveLength(1);
  });

  it("refuses unsigned and wrongly signed requests", async () => {
    expect((await post({})).status).toBe(401);
    expect((await post({ ...signed(), "x-slack-signature": `v0=${"0".repeat(64)}` })).status).toBe(401);
    expect((await post(signed(), `${BODY}&text=unpause`)).status).toBe(401);
    expect(passed).toEqual([]);
    expect(claims).toEqual([]);
  });

  it("answers 503 and runs nothing when the store cannot record the signature", async () => {
    claim = () => Promise.reject(new Error("database is gone"));
    expect((await post(signed())).status).toBe(503);
    expect(passed).toEqual([]);
  });

  it("answers 413 above Bolt's 4 MB, read or declared, and runs nothing", async () => {
    const big = `text=${"x".repeat(SLACK_BODY_LIMIT_BYTES)}`;
    const answer = await post(signed(0, big), big);
    expect(answer.status).toBe(413);
    // Chunked, with no length declared: refused once the 4 MB are passed.
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = request(url, { method: "POST", headers: signed(0, big) }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      const chunk = "x".repeat(64 * 1024);
      for (let sent = 0; sent <= SLACK_BODY_LIMIT_BYTES; sent += chunk.length) req.write(chunk);
      req.end();
    });
    expect(chunked).toBe(413);
    expect(passed).toEqual([]);
    expect(claims).toEqual([]);
  });

  it("lets Slack's unsigned certificate check and other methods through to Bolt, which runs nothing for them", async () => {
    expect((await post({}, "ssl_check=1&token=x")).status).toBe(200);
    expect(passed).toEqual([{ rawBody: "ssl_check=1&token=x", streamEnded: true }]);
    expect((await post({}, "ssl_check=1", "application/json")).status).toBe(401);
    const get = await fetch(url);
    expect(get.status).toBe(200);
    expect(passed).toHaveLength(2);
  });
});
