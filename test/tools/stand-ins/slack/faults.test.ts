import { ErrorCode } from "@slack/web-api";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SlackStandIn } from "../../../../tools/stand-ins/slack/index.js";
import { BOT_TOKEN, clientFor, slackError, startTestSlack } from "./helpers.js";

let slack: SlackStandIn;

beforeEach(async () => {
  slack = await startTestSlack();
});

afterEach(async () => {
  await slack.close();
});

describe("faults", () => {
  it("rate limits a method with HTTP 429, Retry-After and error ratelimited, then lets calls through", async () => {
    slack.faults.rateLimit("chat.postMessage", { count: 1, retryAfterSeconds: 7 });
    const raw = await fetch(`${slack.apiUrl}chat.postMessage`, {
      method: "POST",
      headers: { authorization: `Bearer ${BOT_TOKEN}`, "content-type": "application/x-www-form-urlencoded" },
      body: "channel=C0MERGE&text=hi",
    });
    expect(raw.status).toBe(429);
    expect(raw.headers.get("retry-after")).toBe("7");
    expect(await raw.json()).toEqual({ ok: false, error: "ratelimited" });
    expect(slack.calls[0]).toMatchObject({ method: "chat.postMessage", httpStatus: 429 });

    const client = clientFor(slack);
    await client.chat.postMessage({ channel: "C0MERGE", text: "hi" });
    expect(slack.state.messages("C0MERGE")).toHaveLength(1);
    expect(slack.faults.remaining()).toEqual([]);
  });

  it("is seen by a WebClient with retries 0 as a rate-limited error", async () => {
    slack.faults.rateLimit("chat.update", { count: 1, retryAfterSeconds: 30 });
    const client = clientFor(slack, BOT_TOKEN, { rejectRateLimitedCalls: true });
    const failure = await slackError(client.chat.update({ channel: "C0MERGE", ts: "1.000000", text: "x" }));
    expect(failure.code).toBe(ErrorCode.RateLimitedError);
    expect(failure.code).toBe("slack_webapi_rate_limited_error");
  });

  it("lets a WebClient that honours Retry-After succeed on its retry", async () => {
    slack.faults.rateLimit("chat.postMessage", { count: 1, retryAfterSeconds: 0 });
    const client = clientFor(slack, BOT_TOKEN, { retries: 1 });
    const result = await client.chat.postMessage({ channel: "C0MERGE", text: "eventually" });
    expect(result.ok).toBe(true);
    expect(slack.calls.map((call) => call.httpStatus)).toEqual([429, 200]);
  });

  it("fails a method count times with a Slack error, and '*' matches any method", async () => {
    const client = clientFor(slack);
    slack.faults.fail("chat.postMessage", "channel_is_archived", 2);
    for (let i = 0; i < 2; i++) {
      expect(await slackError(client.chat.postMessage({ channel: "C0MERGE", text: "x" }))).toMatchObject({
        error: "channel_is_archived",
      });
    }
    await client.chat.postMessage({ channel: "C0MERGE", text: "third time" });
    slack.faults.fail("*", "fatal_error");
    expect(await slackError(client.auth.test())).toMatchObject({ error: "fatal_error" });
    await client.auth.test();
  });

  it("delays answers", async () => {
    slack.faults.delay("auth.test", 150);
    const started = Date.now();
    await clientFor(slack).auth.test();
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it("carries out a call whose answer it holds, and says so before any answer", async () => {
    let postedWhenTaken: number | undefined;
    let answered = false;
    let answeredWhenTaken: boolean | undefined;
    slack.faults.delayAnswer("chat.postMessage", 200, 1, () => {
      postedWhenTaken = slack.state.messages("C0MERGE").length;
      answeredWhenTaken = answered;
    });
    const before = slack.state.messages("C0MERGE").length;
    const call = clientFor(slack)
      .chat.postMessage({ channel: "C0MERGE", text: "held" })
      .then(() => {
        answered = true;
      });
    await slack.waitFor(() => postedWhenTaken !== undefined, 5_000);
    expect(postedWhenTaken).toBe(before + 1);
    expect(answeredWhenTaken).toBe(false);
    await call;
    expect(answered).toBe(true);
  });
});

describe("rate limits and the WebClient's defaults", () => {
  it("with retries 0 and rejectRateLimitedCalls off, the client waits Retry-After then gives up", async () => {
    slack.faults.rateLimit("chat.postMessage", { retryAfterSeconds: 0 });
    const failure = await slackError(clientFor(slack).chat.postMessage({ channel: "C0MERGE", text: "x" }));
    expect(failure.code).toBe("slack_webapi_request_error");
    expect(slack.state.messages("C0MERGE")).toEqual([]);
  });
});
