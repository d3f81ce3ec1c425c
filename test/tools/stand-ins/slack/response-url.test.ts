import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RESPONSE_URL_MAX_USES, type SlackStandIn } from "../../../../tools/stand-ins/slack/index.js";
import {
  clientFor,
  postToResponseUrl,
  type ReceivedRequest,
  startReceiver,
  startTestSlack,
} from "./helpers.js";

let slack: SlackStandIn;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
/** Called after the receiver has acked, like Yardmaster's slow work. */
let later: (request: ReceivedRequest) => Promise<unknown>;

beforeEach(async () => {
  later = async () => undefined;
  receiver = await startReceiver((request) => {
    setTimeout(() => void later(request), 5);
    return {};
  });
  slack = await startTestSlack(receiver.url);
});

afterEach(async () => {
  await slack.close();
  await receiver.close();
});

function responseUrlOf(request: ReceivedRequest): string {
  const payload = request.form.get("payload");
  return payload ? JSON.parse(payload).response_url : request.form.get("response_url")!;
}

describe("response_url", () => {
  it("posts an in_channel response in the channel after the ack, naming the user", async () => {
    const answers: Array<{ status: number; text: string }> = [];
    later = async (request) => {
      answers.push(
        await postToResponseUrl(responseUrlOf(request), {
          response_type: "in_channel",
          text: "Queue paused by <@U0ALICE>",
          blocks: [{ type: "section", text: { type: "mrkdwn", text: "Queue *paused* by <@U0ALICE>" } }],
        }),
      );
    };
    const sent = await slack.sendSlashCommand({
      text: "pause release",
      userId: "U0ALICE",
      channelId: "C0MERGE",
    });
    // The message is in the channel before the response_url POST has its answer: wait for the answer.
    await slack.waitFor(() => answers[0]);
    const message = slack.state.messages("C0MERGE")[0]!;
    expect(message).toMatchObject({
      text: "Queue paused by <@U0ALICE>",
      user: "U0BOT",
      origin: "response_url",
    });
    expect(answers).toEqual([{ status: 200, text: "ok" }]);
    expect(slack.state.responses).toMatchObject([
      {
        via: "response_url",
        kind: "slash_command",
        responseUrl: sent.responseUrl,
        user: "U0ALICE",
        channel: "C0MERGE",
        response_type: "in_channel",
        effect: "in_channel",
        messageTs: message.ts,
      },
    ]);
    const history = await clientFor(slack).conversations.history({ channel: "C0MERGE" });
    expect(history.messages?.map((m) => m.text)).toEqual(["Queue paused by <@U0ALICE>"]);
  });

  it("shows ephemeral responses (the default) to the user only, and can reply in a thread", async () => {
    const parent = await clientFor(slack).chat.postMessage({ channel: "C0MERGE", text: "parent" });
    const sent = await slack.sendSlashCommand({ text: "help", userId: "U0ALICE", channelId: "C0MERGE" });
    expect(await postToResponseUrl(sent.responseUrl, { text: "Usage" })).toEqual({ status: 200, text: "ok" });
    expect(slack.state.ephemerals("C0MERGE", "U0ALICE")).toMatchObject([
      { text: "Usage", origin: "response_url" },
    ]);
    expect(slack.state.messages("C0MERGE")).toHaveLength(1);
    await postToResponseUrl(sent.responseUrl, {
      response_type: "in_channel",
      text: "in thread",
      thread_ts: parent.ts,
    });
    expect(slack.state.thread("C0MERGE", parent.ts!).map((m) => m.text)).toEqual(["parent", "in thread"]);
  });

  it("replaces and deletes the message a button was on", async () => {
    const client = clientFor(slack);
    const blocks = [
      {
        type: "actions",
        elements: [
          { type: "button", action_id: "unpause", text: { type: "plain_text", text: "Unpause" }, value: "w" },
        ],
      },
    ];
    const posted = await client.chat.postMessage({ channel: "C0MERGE", text: "paused", blocks });
    const click = await slack.clickButton({
      actionId: "unpause",
      value: "w",
      userId: "U0ALICE",
      channelId: "C0MERGE",
    });
    await postToResponseUrl(click.responseUrl, { replace_original: true, text: "Unpaused by <@U0ALICE>" });
    expect(slack.state.message("C0MERGE", posted.ts!)).toMatchObject({ text: "Unpaused by <@U0ALICE>" });
    expect(slack.state.message("C0MERGE", posted.ts!)?.blocks).toBeUndefined();
    expect(slack.state.responses.at(-1)).toMatchObject({ effect: "replaced", messageTs: posted.ts });
    await postToResponseUrl(click.responseUrl, { delete_original: true });
    expect(slack.state.messages("C0MERGE")).toEqual([]);
    expect(slack.state.responses.at(-1)).toMatchObject({ effect: "deleted" });
  });

  it("allows five uses, then answers 410 used_url", async () => {
    const sent = await slack.sendSlashCommand({ text: "status", userId: "U0ALICE", channelId: "C0MERGE" });
    for (let i = 0; i < RESPONSE_URL_MAX_USES; i++) {
      expect((await postToResponseUrl(sent.responseUrl, { text: `answer ${i}` })).status).toBe(200);
    }
    expect(await postToResponseUrl(sent.responseUrl, { text: "one too many" })).toEqual({
      status: 410,
      text: "used_url",
    });
    expect(slack.state.responses).toHaveLength(5);
    expect(slack.state.rejectedResponses).toMatchObject([{ status: 410, error: "used_url" }]);
  });

  it("answers 404 for an unknown id, 410 expired_url for an expired one, 400 for bad payloads", async () => {
    expect(await postToResponseUrl(`${slack.url}/response/nope`, { text: "x" })).toEqual({
      status: 404,
      text: "no_service",
    });
    const sent = await slack.sendSlashCommand({ text: "status", userId: "U0ALICE", channelId: "C0MERGE" });
    expect(await postToResponseUrl(sent.responseUrl, {})).toEqual({ status: 400, text: "no_text" });
    expect(
      await postToResponseUrl(sent.responseUrl, {
        text: "x",
        blocks: [{ type: "header", text: { type: "plain_text", text: "h".repeat(151) } }],
      }),
    ).toEqual({ status: 400, text: "invalid_blocks" });
    const raw = await fetch(sent.responseUrl, { method: "POST", body: "not json" });
    expect([raw.status, await raw.text()]).toEqual([400, "invalid_payload"]);
    slack.expireResponseUrl(sent.responseUrl);
    expect(await postToResponseUrl(sent.responseUrl, { text: "late" })).toEqual({
      status: 410,
      text: "expired_url",
    });
    expect(slack.state.responses).toEqual([]);
  });

  it("records blocks sent without a text fallback", async () => {
    const sent = await slack.sendSlashCommand({ text: "status", userId: "U0ALICE", channelId: "C0MERGE" });
    await postToResponseUrl(sent.responseUrl, {
      blocks: [{ type: "section", text: { type: "mrkdwn", text: "x" } }],
    });
    expect(slack.state.responses[0]?.missingFallback).toBe(true);
  });
});

describe("waitFor", () => {
  it("resolves with the predicate's value and times out with its last error", async () => {
    setTimeout(() => slack.state.addMessage({ channel: "C0MERGE", user: "U0ALICE", text: "hello" }), 20);
    expect((await slack.waitFor(() => slack.state.messages("C0MERGE")[0])).text).toBe("hello");
    await expect(
      slack.waitFor(() => {
        throw new Error("not yet");
      }, 50),
    ).rejects.toThrow(/timed out after 50 ms: not yet/);
  });
});
