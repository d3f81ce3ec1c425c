import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signSlackRequest } from "../../tools/stand-ins/slack/index.js";
import { type ChildServer, rawRequest, startChildServer } from "../helpers/child-server.js";

/**
 * The real server as `npm start` runs it (a process of its own), against the stand-ins: one signed but
 * malformed Slack request does not stop it.
 */
let child: ChildServer;
const REPO = "acme/widgets";
const CHANNEL = "C0ENG";
const NOBODY = "U0NOBODY";

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
