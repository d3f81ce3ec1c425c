import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { DeliveryError, DeliveryErrorCode } from "../../src/notifier/chat.js";
import { holdKey } from "../../src/slack/slack-holds.js";
import { webApiPoster } from "../../src/slack/slack-poster.js";

// The notifier names its calls neutrally (src/notifier/chat.ts); Slack's poster says which failed, in
// the notifier's words, and what Slack calls it (for logs and metrics).

const poster = () => webApiPoster({ token: "xoxb-test", apiUrl: "https://slack.test/api/", retries: 0 });
const slack = () => nock("https://slack.test");

async function failure(call: Promise<unknown>): Promise<DeliveryError> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DeliveryError);
  return error as DeliveryError;
}

afterEach(() => nock.cleanAll());

describe("Slack's poster, as the notifier acts on its failures", () => {
  it("says an edit of a message that is gone is gone, and names the call", async () => {
    slack().post("/api/chat.update").reply(200, { ok: false, error: "message_not_found" });
    const e = await failure(poster().update({ channel: "C1", ts: "1.2", text: "x", blocks: [] }));
    expect(e).toMatchObject({
      code: DeliveryErrorCode.MessageGone,
      call: "edit",
      callName: "chat.update",
      message: "message_not_found",
    });
  });

  it("says a post refused for a missing message failed (only an edit finds a message gone)", async () => {
    slack().post("/api/chat.postMessage").reply(200, { ok: false, error: "message_not_found" });
    const e = await failure(poster().post({ channel: "C1", text: "x", blocks: [], eventId: 1 }));
    expect(e).toMatchObject({ code: DeliveryErrorCode.Failed, call: "post", callName: "chat.postMessage" });
  });

  it("says a channel the app is not in is unavailable", async () => {
    slack().post("/api/chat.postMessage").reply(200, { ok: false, error: "not_in_channel" });
    const e = await failure(poster().post({ channel: "C1", text: "x", blocks: [], eventId: 1 }));
    expect(e).toMatchObject({ code: DeliveryErrorCode.ChannelUnavailable, message: "not_in_channel" });
  });

  it("says a 429 on a history read with its Retry-After, and holds that read under Slack's method", async () => {
    slack().post("/api/conversations.history").reply(429, {}, { "retry-after": "7" });
    const e = await failure(poster().findPosted("C1", { oldest: new Date("2026-11-02T10:00:00Z") }));
    expect(e).toMatchObject({
      code: DeliveryErrorCode.RateLimited,
      retryAfterSeconds: 7,
      call: "read-channel",
    });
    expect(holdKey({ call: "read-channel" })).toBe("slack-hold:method:conversations.history");
    expect(holdKey({ call: "edit" })).toBe("slack-hold:method:chat.update");
    expect(holdKey({ channel: "C1" })).toBe("slack-hold:channel:C1");
  });
});
