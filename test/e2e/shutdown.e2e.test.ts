import { request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { signWebhookBody } from "../../tools/stand-ins/github/index.js";
import { type ChildServer, rawRequest, startChildServer } from "../helpers/child-server.js";

/**
 * SIGTERM under load, on the real server as `npm start` runs it: it stops accepting at once, lets what
 * is in flight finish within SHUTDOWN_TIMEOUT_SECONDS or abandons it, and exits (0, or 1 when it had to
 * abandon work).
 */
const REPO = "acme/widgets";
const CHANNEL = "C0ENG";
const NOBODY = "U0NOBODY";
let child: ChildServer | undefined;

afterEach(async () => {
  await child?.close();
  child = undefined;
});

async function start(shutdownTimeoutSeconds: number): Promise<ChildServer> {
  child = await startChildServer({ SHUTDOWN_TIMEOUT_SECONDS: String(shutdownTimeoutSeconds) });
  child.servers.slack.state.addChannel({ id: CHANNEL, name: "eng", botIsMember: true });
  child.servers.slack.state.addUser({ id: NOBODY, name: "nobody" });
  child.servers.github?.state.addRepository(REPO);
  return child;
}

/**
 * A signed webhook (a comment that addresses nobody: answered 200 once read) whose body is sent only
 * half, until `finish` sends the rest: a request in flight for as long as the test wants.
 */
function halfSentWebhook(server: ChildServer, n: number) {
  const body = JSON.stringify({
    action: "created",
    issue: { number: 1, title: "x", user: { login: "alice", id: 1, type: "User" } },
    comment: { id: 9000 + n, body: "just a comment", user: { login: "alice", id: 1, type: "User" } },
    repository: { name: "widgets", full_name: REPO, owner: { login: "acme", id: 1 } },
    sender: { login: "alice", id: 1, type: "User" },
  });
  const half = Math.floor(body.length / 2);
  const req = request(`${server.url}/api/github/webhooks`, {
    method: "POST",
    agent: false,
    headers: {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
      "x-github-event": "issue_comment",
      "x-github-delivery": `half-${n}`,
      "x-hub-signature-256": signWebhookBody(server.servers.settings.WEBHOOK_SECRET as string, body),
    },
  });
  const answered = new Promise<number | string>((resolve) => {
    req.on("response", (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
  });
  req.write(body.slice(0, half));
  return { answered, finish: () => req.end(body.slice(half)) };
}

/** Slash commands that each wait on the merge queue (slowed down) after they were acknowledged. */
async function slowCommands(server: ChildServer, count: number): Promise<string[]> {
  const sent = await Promise.all(
    Array.from({ length: count }, () =>
      server.servers.slack.sendSlashCommand({ text: `status ${REPO}`, userId: NOBODY, channelId: CHANNEL }),
    ),
  );
  for (const one of sent) expect(one.status).toBe(200);
  return sent.map((one) => one.responseUrl);
}

/**
 * Until a new connection is refused: the server stopped listening. (Until then a request is answered,
 * 503 once the stop began, or reset when it was still waiting to be accepted as the listener closed.)
 */
async function stoppedListening(server: ChildServer): Promise<void> {
  for (;;) {
    const answer = await rawRequest(`${server.url}/healthz`);
    if ("error" in answer && answer.error === "ECONNREFUSED") return;
    if ("error" in answer) expect(answer.error).toBe("ECONNRESET");
    else expect([200, 503]).toContain(answer.status);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("SIGTERM", () => {
  it("stops accepting, lets in-flight requests and commands finish, and exits 0", async () => {
    const server = await start(30);
    server.servers.sim.faults.set(REPO, { latencyMs: 1_500 });
    const pending = Array.from({ length: 5 }, (_, n) => halfSentWebhook(server, n));
    const commands = await slowCommands(server, 10);

    server.signal("SIGTERM");
    await stoppedListening(server);
    // Still running: the half-sent requests hold it, and are answered once their bodies arrive.
    expect(server.hasExited()).toBe(false);
    for (const request of pending) request.finish();
    expect(await Promise.all(pending.map((p) => p.answered))).toEqual(Array(5).fill(200));

    expect(await server.exited).toBe(0);
    // Every command that was acknowledged before the signal got its answer.
    const answered = new Set(server.servers.slack.state.responses.map((r) => r.responseUrl));
    expect(commands.filter((url) => !answered.has(url))).toEqual([]);
    expect(server.logs().at(-1)).toMatchObject({ msg: "stopped" });
  }, 60_000);

  it("abandons what does not finish within SHUTDOWN_TIMEOUT_SECONDS, and exits 1", async () => {
    const server = await start(1);
    server.servers.sim.faults.set(REPO, { latencyMs: 120_000 });
    const pending = Array.from({ length: 5 }, (_, n) => halfSentWebhook(server, n));
    await slowCommands(server, 5);

    server.signal("SIGTERM");
    // Nothing in flight can finish (bodies never come, the merge queue never answers): only the bound
    // ends the stop.
    expect(await server.exited).toBe(1);
    expect(await Promise.all(pending.map((p) => p.answered))).not.toContain(200);
    expect(server.logs().at(-1)).toMatchObject({ msg: expect.stringMatching(/^stopped: \d+ .*abandoned/) });
    expect(Number(server.logs().at(-1)?.abandoned)).toBeGreaterThanOrEqual(10);
  }, 60_000);
});
