import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SlackStandIn } from "../../../../tools/stand-ins/slack/index.js";
import { clientFor, type ReceivedRequest, type Reply, startReceiver, startTestSlack } from "./helpers.js";

let slack: SlackStandIn;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let reply: (request: ReceivedRequest) => Reply;

beforeEach(async () => {
  reply = () => ({});
  receiver = await startReceiver((request) => reply(request));
  slack = await startTestSlack(receiver.url);
});

afterEach(async () => {
  await slack.close();
  await receiver.close();
});

function only(): ReceivedRequest {
  expect(receiver.received).toHaveLength(1);
  return receiver.received[0]!;
}

describe("sendSlashCommand", () => {
  it("sends a signed, form-encoded slash command with Slack's fields", async () => {
    const result = await slack.sendSlashCommand({
      text: "status acme/widgets main",
      userId: "U0ALICE",
      channelId: "C0MERGE",
    });
    expect(result).toMatchObject({ status: 200, body: "" });
    expect(result.durationMs).toBeGreaterThan(0);
    expect(result.responseUrl).toMatch(new RegExp(`^${slack.url}/response/[0-9a-f]+$`));
    const request = only();
    expect(request.method).toBe("POST");
    expect(request.path).toBe("/slack/events");
    expect(request.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(request.signatureValid).toBe(true);
    expect(request.timestampFresh).toBe(true);
    expect(Object.fromEntries(request.form)).toEqual({
      token: expect.any(String),
      team_id: "T0001",
      team_domain: "yardmaster-sandbox",
      channel_id: "C0MERGE",
      channel_name: "merge-queue",
      user_id: "U0ALICE",
      user_name: "alice",
      command: "/mq",
      text: "status acme/widgets main",
      api_app_id: expect.any(String),
      is_enterprise_install: "false",
      response_url: result.responseUrl,
      trigger_id: expect.stringMatching(/^\d+\.\d+\.[0-9a-f]+$/),
    });
  });

  it("sends another command name, user name and team when given", async () => {
    await slack.sendSlashCommand({
      command: "/yardmaster",
      text: "help",
      userId: "U0BOB",
      userName: "bob",
      channelId: "C0MERGE",
      teamId: "T0OTHER",
    });
    const form = only().form;
    expect([form.get("command"), form.get("user_name"), form.get("team_id")]).toEqual([
      "/yardmaster",
      "bob",
      "T0OTHER",
    ]);
  });

  it("sends a stale timestamp (correctly signed) and a bad signature when asked", async () => {
    const stale = Math.floor(Date.now() / 1000) - 10 * 60;
    const staleResult = await slack.sendSlashCommand({
      text: "help",
      userId: "U0ALICE",
      channelId: "C0MERGE",
      timestamp: stale,
    });
    expect(staleResult.status).toBe(401);
    expect(receiver.received[0]).toMatchObject({ signatureValid: true, timestampFresh: false });
    expect(receiver.received[0]?.headers["x-slack-request-timestamp"]).toBe(String(stale));

    const badResult = await slack.sendSlashCommand({
      text: "help",
      userId: "U0ALICE",
      channelId: "C0MERGE",
      signature: "v0=deadbeef",
    });
    expect(badResult.status).toBe(401);
    expect(receiver.received[1]).toMatchObject({ signatureValid: false, timestampFresh: true });
    expect(receiver.received[1]?.headers["x-slack-signature"]).toBe("v0=deadbeef");
  });

  it("sends a delivered request again byte for byte, with the headers given (a replay or a retry)", async () => {
    const first = await slack.sendSlashCommand({ text: "help", userId: "U0ALICE", channelId: "C0MERGE" });
    expect(first.sentHeaders).toEqual({
      "x-slack-request-timestamp": receiver.received[0]?.headers["x-slack-request-timestamp"],
      "x-slack-signature": receiver.received[0]?.headers["x-slack-signature"],
    });
    const again = await slack.resend(first, { headers: { "x-slack-retry-num": "1" } });
    expect(again).toMatchObject({ status: 200, responseUrl: first.responseUrl, sentBody: first.sentBody });
    expect(receiver.received).toHaveLength(2);
    const [sent, resent] = receiver.received;
    expect(resent?.rawBody).toBe(sent?.rawBody);
    expect(resent?.headers["x-slack-signature"]).toBe(sent?.headers["x-slack-signature"]);
    expect(resent?.headers["x-slack-request-timestamp"]).toBe(sent?.headers["x-slack-request-timestamp"]);
    expect(resent?.headers["x-slack-retry-num"]).toBe("1");
    expect(resent?.signatureValid).toBe(true);
  });

  it("records an immediate JSON response as an ephemeral response", async () => {
    reply = () => ({ contentType: "application/json", body: JSON.stringify({ text: "Usage: /mq help" }) });
    const result = await slack.sendSlashCommand({ text: "bogus", userId: "U0ALICE", channelId: "C0MERGE" });
    expect(result.json).toEqual({ text: "Usage: /mq help" });
    expect(slack.state.responses).toMatchObject([
      {
        via: "ack",
        kind: "slash_command",
        user: "U0ALICE",
        channel: "C0MERGE",
        effect: "ephemeral",
        text: "Usage: /mq help",
      },
    ]);
    expect(slack.state.ephemerals("C0MERGE", "U0ALICE")).toMatchObject([
      { text: "Usage: /mq help", origin: "ack" },
    ]);
  });

  it("records an immediate in_channel JSON response as a channel message", async () => {
    reply = () => ({
      contentType: "application/json",
      body: JSON.stringify({ response_type: "in_channel", text: "Queue paused by @alice" }),
    });
    await slack.sendSlashCommand({ text: "pause release", userId: "U0ALICE", channelId: "C0MERGE" });
    expect(slack.state.messages("C0MERGE")).toMatchObject([
      { text: "Queue paused by @alice", origin: "response_url" },
    ]);
  });

  it("shows a plain-text ack body to the user, as Slack does", async () => {
    reply = () => ({ body: "Working on it" });
    await slack.sendSlashCommand({ text: "status", userId: "U0ALICE", channelId: "C0MERGE" });
    expect(slack.state.ephemerals("C0MERGE", "U0ALICE")).toMatchObject([{ text: "Working on it" }]);
  });

  it("needs an events URL, which can be set later", async () => {
    const bare = await startTestSlack();
    try {
      await expect(
        bare.sendSlashCommand({ text: "help", userId: "U0ALICE", channelId: "C0MERGE" }),
      ).rejects.toThrow(/eventsUrl/);
      bare.setEventsUrl(receiver.url);
      expect(
        (await bare.sendSlashCommand({ text: "help", userId: "U0ALICE", channelId: "C0MERGE" })).status,
      ).toBe(200);
    } finally {
      await bare.close();
    }
  });
});

describe("clickButton", () => {
  const unpauseBlocks = [
    { type: "section", block_id: "summary", text: { type: "mrkdwn", text: "Queue *paused*" } },
    {
      type: "actions",
      block_id: "buttons",
      elements: [
        {
          type: "button",
          action_id: "refresh",
          text: { type: "plain_text", text: "Refresh" },
          value: "acme/widgets",
        },
        {
          type: "button",
          action_id: "unpause",
          text: { type: "plain_text", text: "Unpause" },
          value: "acme/widgets",
        },
      ],
    },
  ];

  it("sends a signed block_actions payload for a button on a message Yardmaster posted", async () => {
    const posted = await clientFor(slack).chat.postMessage({
      channel: "C0MERGE",
      text: "paused",
      blocks: unpauseBlocks,
    });
    const result = await slack.clickButton({
      actionId: "unpause",
      value: "acme/widgets",
      userId: "U0ALICE",
      channelId: "C0MERGE",
    });
    expect(result.status).toBe(200);
    const request = only();
    expect(request.signatureValid).toBe(true);
    expect(request.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect([...request.form.keys()]).toEqual(["payload"]);
    const payload = JSON.parse(request.form.get("payload")!);
    expect(payload).toMatchObject({
      type: "block_actions",
      user: { id: "U0ALICE", username: "alice", name: "alice", team_id: "T0001" },
      api_app_id: expect.any(String),
      token: expect.any(String),
      container: { type: "message", message_ts: posted.ts, channel_id: "C0MERGE", is_ephemeral: false },
      trigger_id: expect.any(String),
      team: { id: "T0001", domain: "yardmaster-sandbox" },
      channel: { id: "C0MERGE", name: "merge-queue" },
      message: { ts: posted.ts, text: "paused", blocks: unpauseBlocks, user: "U0BOT", bot_id: "B0BOT" },
      response_url: result.responseUrl,
      actions: [
        {
          action_id: "unpause",
          block_id: "buttons",
          value: "acme/widgets",
          type: "button",
          text: { type: "plain_text", text: "Unpause" },
          action_ts: expect.stringMatching(/^\d+\.\d{6}$/),
        },
      ],
    });
  });

  it("clicks a button in a thread or on an ephemeral message", async () => {
    const client = clientFor(slack);
    const parent = await client.chat.postMessage({ channel: "C0MERGE", text: "parent" });
    const reply = await client.chat.postMessage({
      channel: "C0MERGE",
      text: "left the queue",
      thread_ts: parent.ts!,
      blocks: [
        {
          type: "actions",
          elements: [
            {
              type: "button",
              action_id: "requeue",
              text: { type: "plain_text", text: "Requeue" },
              value: "42",
            },
          ],
        },
      ],
    });
    await slack.clickButton({ actionId: "requeue", value: "42", userId: "U0ALICE", channelId: "C0MERGE" });
    const inThread = JSON.parse(receiver.received[0]!.form.get("payload")!);
    expect(inThread.container).toMatchObject({ message_ts: reply.ts, thread_ts: parent.ts });
    expect(inThread.actions[0].block_id).toEqual(expect.any(String));

    const ephemeral = await client.chat.postEphemeral({
      channel: "C0MERGE",
      user: "U0ALICE",
      text: "status",
      blocks: [
        {
          type: "actions",
          elements: [
            {
              type: "button",
              action_id: "refresh",
              text: { type: "plain_text", text: "Refresh" },
              value: "r",
            },
          ],
        },
      ],
    });
    await slack.clickButton({ actionId: "refresh", value: "r", userId: "U0ALICE", channelId: "C0MERGE" });
    const onEphemeral = JSON.parse(receiver.received[1]!.form.get("payload")!);
    expect(onEphemeral.container).toMatchObject({ message_ts: ephemeral.message_ts, is_ephemeral: true });
    expect(onEphemeral).not.toHaveProperty("message");
  });

  it("uses the given messageTs and blockId even for a message it does not know", async () => {
    await slack.clickButton({
      actionId: "refresh",
      value: "v",
      userId: "U0ALICE",
      channelId: "C0MERGE",
      messageTs: "1700000000.000100",
      blockId: "b1",
    });
    const payload = JSON.parse(only().form.get("payload")!);
    expect(payload.container.message_ts).toBe("1700000000.000100");
    expect(payload.actions[0]).toMatchObject({ block_id: "b1", action_id: "refresh", value: "v" });
    expect(payload).not.toHaveProperty("message");
  });

  it("sends a bad signature when asked", async () => {
    const result = await slack.clickButton({
      actionId: "refresh",
      value: "v",
      userId: "U0ALICE",
      channelId: "C0MERGE",
      signature: "v0=0000",
    });
    expect(result.status).toBe(401);
    expect(only().signatureValid).toBe(false);
  });

  it("records, but ignores like Slack, a JSON body in the ack of a click", async () => {
    reply = () => ({ contentType: "application/json", body: JSON.stringify({ text: "ignored by Slack" }) });
    await slack.clickButton({ actionId: "refresh", value: "v", userId: "U0ALICE", channelId: "C0MERGE" });
    expect(slack.state.responses).toMatchObject([{ via: "ack", kind: "block_actions", effect: "ignored" }]);
    expect(slack.state.ephemerals("C0MERGE")).toEqual([]);
  });
});
