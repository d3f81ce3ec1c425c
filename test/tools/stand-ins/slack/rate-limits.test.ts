import { afterEach, describe, expect, it } from "vitest";
import { SlackRateLimits, type SlackStandIn, TokenBucket } from "../../../../tools/stand-ins/slack/index.js";
import { BOT_TOKEN, startTestSlack } from "./helpers.js";

describe("TokenBucket", () => {
  it("lets a burst through, then one per period, answering the whole seconds until a token", () => {
    const bucket = new TokenBucket({ perSecond: 1, burst: 3 }, 0);
    expect([bucket.take(0), bucket.take(0), bucket.take(0)]).toEqual([null, null, null]);
    expect(bucket.take(0)).toBe(1);
    expect(bucket.take(400)).toBe(1); // 0.4 of a token: still "1", never 0
    expect(bucket.take(1_000)).toBeNull();
    expect(bucket.take(1_000)).toBe(1);
    expect(bucket.take(60_000)).toBeNull(); // refilled, up to the burst only
    expect([bucket.take(60_000), bucket.take(60_000), bucket.take(60_000)]).toEqual([null, null, 1]);
  });

  it("answers a Retry-After of several seconds for a slow tier", () => {
    const bucket = new TokenBucket({ perSecond: 50 / 60, burst: 1 }, 0);
    expect(bucket.take(0)).toBeNull();
    expect(bucket.take(0)).toBe(2); // 1.2 s rounded up to whole seconds
    const slow = new TokenBucket({ perSecond: 1 / 20, burst: 1 }, 0);
    expect(slow.take(0)).toBeNull();
    expect(slow.take(5_000)).toBe(15);
  });
});

describe("SlackRateLimits", () => {
  it("limits chat.postMessage per channel: a busy channel does not use up another's tokens", () => {
    let now = 0;
    const limits = new SlackRateLimits({ now: () => now });
    const post = (channel: string) => limits.take("chat.postMessage", channel);
    expect([post("C1"), post("C1"), post("C1"), post("C1")]).toEqual([null, null, null, 1]);
    expect(post("C2")).toBeNull();
    now = 1_000;
    expect([post("C1"), post("C1")]).toEqual([null, 1]);
    // Other methods are not limited by the post buckets.
    expect(limits.take("conversations.history", "C1")).toBeNull();
  });

  it("limits chat.update workspace-wide, on a tier of its own", () => {
    let now = 0;
    const limits = new SlackRateLimits({ update: { perSecond: 50 / 60, burst: 5 }, now: () => now });
    const results = ["C1", "C2", "C3", "C1", "C2", "C3"].map((c) => limits.take("chat.update", c));
    expect(results).toEqual([null, null, null, null, null, 2]);
    expect(limits.take("chat.postMessage", "C3")).toBeNull();
    now = 1_200;
    expect(limits.take("chat.update", "C9")).toBeNull();
  });

  it("is off by default, and can be turned on, off, or given other figures", () => {
    const limits = new SlackRateLimits();
    expect(limits.enabled).toBe(false);
    for (let i = 0; i < 10; i++) expect(limits.take("chat.postMessage", "C1")).toBeNull();
    limits.configure({ postMessage: { perSecond: 1, burst: 1 }, update: false, now: () => 0 });
    expect([limits.take("chat.postMessage", "C1"), limits.take("chat.postMessage", "C1")]).toEqual([null, 1]);
    for (let i = 0; i < 10; i++) expect(limits.take("chat.update", "C1")).toBeNull();
    limits.configure(false);
    expect(limits.take("chat.postMessage", "C1")).toBeNull();
  });
});

describe("the stand-in's Web API with rate limits on", () => {
  let slack: SlackStandIn;
  afterEach(async () => {
    await slack.close();
  });

  it("answers 429 with Retry-After and ratelimited, records it, and posts nothing", async () => {
    slack = await startTestSlack();
    slack.limits.configure({ postMessage: { perSecond: 1, burst: 2 }, now: () => 0 });
    const post = () =>
      fetch(`${slack.apiUrl}chat.postMessage`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${BOT_TOKEN}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: "channel=C0MERGE&text=hi",
      });
    expect((await post()).status).toBe(200);
    expect((await post()).status).toBe(200);
    const limited = await post();
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("1");
    expect(await limited.json()).toEqual({ ok: false, error: "ratelimited" });
    expect(slack.state.messages("C0MERGE")).toHaveLength(2);
    expect(slack.calls.map((c) => [c.httpStatus, c.rateLimited, c.retryAfterSeconds])).toEqual([
      [200, false, undefined],
      [200, false, undefined],
      [429, true, 1],
    ]);
  });
});
