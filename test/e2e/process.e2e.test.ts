import { randomBytes } from "node:crypto";
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signSlackRequest } from "../../tools/stand-ins/slack/index.js";
import { type ChildServer, rawRequest, startChildServer } from "../helpers/child-server.js";

/**
 * The real server as `npm start` runs it (a process of its own), against the stand-ins: one signed but
 * malformed Slack request does not stop it, and no request body, however large, is read past its
 * endpoint's limit or written to the log.
 */
let child: ChildServer;
const REPO = "acme/widgets";
const CHANNEL = "C0ENG";
const NOBODY = "U0NOBODY";
const MB = 1024 * 1024;

/** Each group of tests has a server of its own: one that stopped does not fail the other group. */
function withChildServer() {
  beforeAll(async () => {
    child = await startChildServer();
    child.servers.slack.state.addChannel({ id: CHANNEL, name: "eng", botIsMember: true });
    child.servers.slack.state.addUser({ id: NOBODY, name: "nobody" });
    child.servers.github?.state.addRepository(REPO);
  }, 60_000);
  afterAll(() => child?.close());
}

/** A request to /slack/events signed with the app's signing secret, as Slack signs it. */
function signedSlack(body: string) {
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = signSlackRequest(child.servers.settings.SLACK_SIGNING_SECRET as string, timestamp, body);
  return rawRequest(`${child.url}/slack/events`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "content-length": Buffer.byteLength(body),
      "x-slack-request-timestamp": timestamp,
      "x-slack-signature": signature,
    },
    body,
  });
}

/** A slash command as Slack sends it, without the fields named in `without`. */
function slashCommand(text: string, without: string[]): string {
  const fields: [string, string][] = [
    ["token", "legacy"],
    ["team_id", "T0001"],
    ["team_domain", "yardmaster-sandbox"],
    ["channel_id", CHANNEL],
    ["channel_name", "eng"],
    ["user_id", NOBODY],
    ["user_name", "nobody"],
    ["command", "/mq"],
    ["text", text],
    ["api_app_id", "A0YARDMASTER"],
    ["response_url", `${child.servers.slack.url}/response/nowhere`],
    ["trigger_id", randomBytes(8).toString("hex")],
  ];
  return new URLSearchParams(fields.filter(([name]) => !without.includes(name))).toString();
}

/** A Refresh button click as Slack sends it, with `change` applied to its payload. */
function buttonClick(change: (payload: Record<string, unknown>) => void): string {
  const payload: Record<string, unknown> = {
    type: "block_actions",
    user: { id: NOBODY, username: "nobody", name: "nobody", team_id: "T0001" },
    api_app_id: "A0YARDMASTER",
    token: "legacy",
    container: { type: "message", message_ts: "1700000000.000100", channel_id: CHANNEL, is_ephemeral: true },
    trigger_id: randomBytes(8).toString("hex"),
    team: { id: "T0001", domain: "yardmaster-sandbox" },
    channel: { id: CHANNEL, name: "eng" },
    response_url: `${child.servers.slack.url}/response/nowhere`,
    actions: [
      {
        action_id: "mq.refresh",
        block_id: "b1",
        value: JSON.stringify({ r: REPO }),
        type: "button",
        action_ts: "1700000000.000200",
      },
    ],
  };
  change(payload);
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

/**
 * The server still answers and still runs a well-formed command to its end, and nothing reached the
 * last resort (every failure path handled its own failure).
 */
async function stillServing(): Promise<void> {
  const health = await rawRequest(`${child.url}/healthz`);
  expect(health).toMatchObject({ status: 200 });
  const sent = await child.servers.slack.sendSlashCommand({
    text: "help",
    userId: NOBODY,
    channelId: CHANNEL,
  });
  expect(sent.status).toBe(200);
  await child.servers.slack.waitFor(
    () => child.servers.slack.state.responses.find((r) => r.responseUrl === sent.responseUrl),
    10_000,
  );
  expect(child.hasExited()).toBe(false);
  const lastResort = child
    .logs()
    .filter(
      (line) =>
        /^(unhandled promise rejection|uncaught exception)/.test(String(line.msg)) ||
        Number(line.level) >= 60,
    );
  expect(lastResort).toEqual([]);
}

const refusals = (kind: string) =>
  child.logs().filter((line) => String(line.msg).startsWith("Slack request refused") && line.kind === kind);

describe("a signed but malformed Slack request", () => {
  withChildServer();
  it("without response_url: the slash command is refused in its acknowledgement, logged, and the server keeps serving", async () => {
    const before = refusals("slash_command").length;
    const answer = await signedSlack(slashCommand(`status ${REPO}`, ["response_url"]));
    expect(answer).toMatchObject({ status: 200 });
    expect("body" in answer && JSON.parse(answer.body)).toMatchObject({
      response_type: "ephemeral",
      text: expect.stringContaining("nothing was run"),
    });
    await child.waitForLog(() => refusals("slash_command").length > before);
    expect(refusals("slash_command").at(-1)).toMatchObject({ missing: ["response_url"], user: NOBODY });
    await stillServing();
  });

  it("without text: refused the same way", async () => {
    const before = refusals("slash_command").length;
    const answer = await signedSlack(slashCommand("", ["text"]));
    expect(answer).toMatchObject({ status: 200 });
    await child.waitForLog(() => refusals("slash_command").length > before);
    expect(refusals("slash_command").at(-1)).toMatchObject({ missing: ["text"] });
    await stillServing();
  });

  it("a button click without response_url or without a user: logged, and the server keeps serving", async () => {
    const before = refusals("block_actions").length;
    for (const change of [
      (p: Record<string, unknown>) => delete p.response_url,
      (p: Record<string, unknown>) => delete p.user,
    ]) {
      const answer = await signedSlack(buttonClick(change));
      expect(answer).not.toHaveProperty("error");
    }
    await child.waitForLog(() => refusals("block_actions").length >= before + 1);
    expect(refusals("block_actions").some((line) => String(line.missing).includes("response_url"))).toBe(
      true,
    );
    await stillServing();
  });

  it("other shapes Slack never sends do not stop it either", async () => {
    const bodies = [
      buttonClick((p) => {
        p.actions = [];
      }),
      buttonClick((p) => {
        p.actions = [{ action_id: "mq.refresh", type: "button" }];
      }),
      buttonClick((p) => {
        p.user = "U0NOBODY";
        p.team = null;
      }),
      new URLSearchParams({ payload: "[]" }).toString(),
      new URLSearchParams({ payload: "{not json" }).toString(),
      slashCommand("status", ["team_id", "user_id", "channel_id", "command"]),
    ];
    // Some are left unacknowledged by Bolt (nothing listens to them), which answers them after 3 s.
    for (const answer of await Promise.all(bodies.map(signedSlack))) {
      expect(answer).not.toHaveProperty("error");
    }
    await stillServing();
  });
});

/** POSTs `declared` bytes (a 1 MB chunk written again and again), and resolves with the status answered. */
function postLarge(
  path: string,
  declared: number,
  headers: Record<string, string> = {},
): Promise<number | string> {
  const chunk = Buffer.alloc(MB, "x");
  return new Promise((resolve) => {
    let status: number | undefined;
    const req = request(`${child.url}${path}`, {
      method: "POST",
      agent: false,
      headers: { "content-type": "application/json", "content-length": declared, ...headers },
    });
    req.on("response", (res) => {
      status = res.statusCode;
      res.resume();
      res.on("end", () => {
        req.destroy();
        resolve(status ?? 0);
      });
    });
    // Writing the rest fails once the server closed the connection; the status came first.
    req.on("error", (error: NodeJS.ErrnoException) => resolve(status ?? error.code ?? "error"));
    let sent = 0;
    const write = () => {
      while (sent < declared) {
        const piece = chunk.subarray(0, Math.min(MB, declared - sent));
        sent += piece.length;
        if (!req.write(piece)) {
          req.once("drain", write);
          return;
        }
      }
      req.end();
    };
    write();
  });
}

const WEBHOOK_HEADERS = {
  "x-github-event": "issue_comment",
  "x-github-delivery": "flood",
  "x-hub-signature-256": `sha256=${"0".repeat(64)}`,
};

const refused = () => child.logs().filter((line) => line.msg === "request refused");

describe("request bodies", () => {
  withChildServer();
  it("a flood of 30 MB webhooks with a wrong signature is answered 413 unread, and memory stays at its baseline", async () => {
    // Warm up the paths the flood takes, then take the baseline.
    expect(await postLarge("/api/github/webhooks", 1000, WEBHOOK_HEADERS)).toBe(400);
    const baseline = child.rssBytes();
    const flood = () => refused().filter((line) => line.bytes === 30 * MB);

    const statuses = await Promise.all(
      Array.from({ length: 20 }, () => postLarge("/api/github/webhooks", 30 * MB, WEBHOOK_HEADERS)),
    );
    // Without a limit this took the server from ~150 MB to ~1.9 GB; each request is now read ~200 KB at most.
    expect(child.rssBytes()).toBeLessThan(baseline + 64 * MB);
    expect(statuses).toEqual(Array(20).fill(413));
    await child.waitForLog(() => flood().length >= 20);
    for (const line of flood()) {
      expect(line).toMatchObject({
        method: "POST",
        path: "/api/github/webhooks",
        bytes: 30 * MB,
        source: "127.0.0.1",
        status: 413,
        reason: `the body is larger than ${25 * MB} bytes`,
      });
    }
    expect(Math.max(...child.lines.map((line) => line.length))).toBeLessThan(16 * 1024);
  });

  it("a webhook with a wrong signature is logged by its size, source and reason, never its body", async () => {
    const marker = `BODY-${randomBytes(8).toString("hex")}`;
    const body = JSON.stringify({ action: "created", filler: `${marker} `.repeat(40_000) });
    const answer = await rawRequest(`${child.url}/api/github/webhooks`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
        ...WEBHOOK_HEADERS,
        "x-github-delivery": "bad-signature",
      },
      body,
    });
    expect(answer).toMatchObject({ status: 400 });
    // Probot's own lines about it name the delivery and the size, not what it carried.
    const probot = await child.waitForLog((l) => JSON.stringify(l).includes('"id":"bad-signature"'));
    expect(child.lines.filter((l) => l.includes(marker))).toEqual([]);
    expect(probot).toMatchObject({
      err: {
        message: expect.stringContaining("signature does not match"),
        event: { bytes: Buffer.byteLength(body) },
      },
    });
    const line = await child.waitForLog(
      (l) => l.msg === "request refused" && l.bytes === Buffer.byteLength(body),
    );
    expect(line).toMatchObject({
      path: "/api/github/webhooks",
      source: "127.0.0.1",
      status: 400,
      reason: "Bad Request",
    });
  });

  it("Slack's endpoint refuses more than 4 MB the same way, before Bolt reads it", async () => {
    expect(
      await postLarge("/slack/events", 5 * MB, { "content-type": "application/x-www-form-urlencoded" }),
    ).toBe(413);
    await child.waitForLog(
      (l) =>
        l.msg === "request refused" &&
        l.path === "/slack/events" &&
        l.reason === `the body is larger than ${4 * MB} bytes`,
    );
  });

  it("a body endpoint wants a Content-Length; the OAuth callback takes its confirmation form's 2 KB, the rest no body", async () => {
    for (const path of ["/api/github/webhooks", "/slack/events"]) {
      const chunked = await rawRequest(`${child.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
        body: "{}",
      });
      expect(chunked, path).toMatchObject({ status: 411, headers: { connection: "close" } });
    }
    const callback = await rawRequest(`${child.url}/github/oauth/callback`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "content-length": 4096 },
      body: "x".repeat(4096),
    });
    expect(callback).toMatchObject({ status: 413 });
    expect(await postLarge("/github/oauth/callback", 2 * MB)).toBe(413);
    expect(await postLarge("/healthz", 2 * MB)).toBe(413);
  });
});
