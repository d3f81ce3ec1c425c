import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SlackStandIn } from "../../../../tools/stand-ins/slack/index.js";
import { type ReceivedRequest, type Reply, startReceiver, startTestSlack } from "./helpers.js";

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

const share = () =>
  slack.shareLink({
    userId: "U0ALICE",
    channelId: "C0MERGE",
    text: "https://github.com/o/r/pull/1",
    compose: false,
  });
const eventIdOf = (request: ReceivedRequest) =>
  (JSON.parse(request.rawBody) as { event_id: string }).event_id;

describe("Slack's retries of Events API deliveries", () => {
  it("retries an event answered 5xx with the same body signed anew, numbered, until it is answered 2xx", async () => {
    reply = () => ({ status: 500 });
    const shared = await share();
    expect(shared.posted.status).toBe(500);
    expect(slack.events.pending()).toEqual([expect.objectContaining({ retries: 0, reason: "http_error" })]);
    const [first] = await slack.events.retry();
    expect(first).toMatchObject({ status: 500, retryNum: 1, failed: "http_error" });
    reply = () => ({});
    const [second] = await slack.events.retry();
    expect(second).toMatchObject({ status: 200, retryNum: 2, failed: null });
    expect(slack.events.pending()).toEqual([]);
    expect(await slack.events.retry()).toEqual([]);

    const [original, retry1, retry2] = receiver.received;
    expect(receiver.received).toHaveLength(3);
    for (const request of [original, retry1, retry2]) {
      expect(request?.signatureValid).toBe(true);
      expect(request?.timestampFresh).toBe(true);
      expect(request?.rawBody).toBe(original?.rawBody);
      expect(request?.headers["content-type"]).toBe("application/json");
    }
    expect(original?.headers["x-slack-retry-num"]).toBeUndefined();
    expect(retry1?.headers).toMatchObject({ "x-slack-retry-num": "1", "x-slack-retry-reason": "http_error" });
    expect(retry2?.headers).toMatchObject({ "x-slack-retry-num": "2", "x-slack-retry-reason": "http_error" });
    // Each signed anew: never the signature of an earlier delivery (that would be a replay).
    const signatures = receiver.received.map((r) => r.headers["x-slack-signature"]);
    expect(new Set(signatures).size).toBe(3);
  });

  it("gives up after the third retry", async () => {
    reply = () => ({ status: 503 });
    await share();
    for (const n of [1, 2, 3]) expect((await slack.events.retry())[0]?.retryNum).toBe(n);
    expect(slack.events.pending()).toEqual([]);
    expect(receiver.received).toHaveLength(4);
  });

  it("cuts a delivery before it reaches the app, or loses the app's answer, and retries either", async () => {
    slack.events.cut(1, "before");
    const never = await share();
    expect(never.posted.status).toBe(0);
    expect(receiver.received).toHaveLength(0);
    slack.events.cut(1, "after");
    const lost = await share();
    expect(lost.posted.status).toBe(0);
    expect(receiver.received).toHaveLength(1);
    expect(slack.events.pending().map((p) => [p.eventId, p.reason])).toEqual([
      [eventIdOf({ rawBody: never.posted.eventBody } as ReceivedRequest), "connection_failed"],
      [eventIdOf(receiver.received[0] as ReceivedRequest), "http_timeout"],
    ]);
    const retries = await slack.events.retry();
    expect(retries.map((r) => [r.status, r.sentHeaders["x-slack-retry-reason"]])).toEqual([
      [200, "connection_failed"],
      [200, "http_timeout"],
    ]);
    expect(slack.events.pending()).toEqual([]);
  });

  it("sends a retry to another address when told (another replica)", async () => {
    const other = await startReceiver(() => ({}));
    try {
      reply = () => ({ status: 500 });
      await share();
      await slack.events.retry({ url: other.url });
      expect(other.received).toHaveLength(1);
      expect(other.received[0]?.headers["x-slack-retry-num"]).toBe("1");
    } finally {
      await other.close();
    }
  });
});
