import { afterEach, describe, expect, it, vi } from "vitest";
import { DeliveryError, DeliveryErrorCode, RATE_LIMITED_TRIES } from "../../src/notifier/chat.js";
import { channelTurns, pacedKeyedPoster } from "../../src/slack/channel-turns.js";
import type { KeyedSlackPoster } from "../../src/slack/slack-poster.js";
import type { Store } from "../../src/store/index.js";

/** The pace's rows in memory, as the store keeps them (one per channel). */
function memoryStore(): { store: Store; at: (channel: string) => number | undefined } {
  const rows = new Map<string, Date>();
  const store = {
    async getBackoff(key: string) {
      const at = rows.get(key);
      return at ? { key, failures: 0, nextAttemptAt: at, lastError: "paced" } : null;
    },
    async putBackoff(row: { key: string; nextAttemptAt: Date }) {
      rows.set(row.key, row.nextAttemptAt);
    },
  } as unknown as Store;
  return { store, at: (channel) => rows.get(`slack-pace:channel:${channel}`)?.getTime() };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("a channel's turn for a top-level post", () => {
  const T0 = Date.parse("2026-11-20T10:00:00Z");
  const pace = { intervalMs: 1_000, burst: 3 };

  it("takes the next turn of an idle channel at once, and moves the channel's pace on", async () => {
    const { store, at } = memoryStore();
    const turn = channelTurns({ store, pace, now: () => new Date(T0) });
    await turn("C1");
    expect(at("C1")).toBe(T0 + 1_000);
    await turn("C1");
    expect(at("C1")).toBe(T0 + 2_000);
  });

  it("after waiting, follows the turns the notifier took meanwhile rather than overwrite them", async () => {
    const { store, at } = memoryStore();
    let now = T0;
    // The channel's burst is spent: the next turn is 1 s away.
    await store.putBackoff({
      key: "slack-pace:channel:C1",
      failures: 0,
      nextAttemptAt: new Date(T0 + 3_000),
      lastError: "paced",
    });
    const turn = channelTurns({ store, pace, now: () => new Date(now) });
    vi.useFakeTimers();
    const waiting = turn("C1");
    await vi.advanceTimersByTimeAsync(0);
    // Meanwhile the notifier posts twice: its pace moves to T0 + 5 s.
    await store.putBackoff({
      key: "slack-pace:channel:C1",
      failures: 0,
      nextAttemptAt: new Date(T0 + 5_000),
      lastError: "paced",
    });
    now = T0 + 1_000;
    await vi.advanceTimersByTimeAsync(1_000);
    await waiting;
    expect(at("C1")).toBe(T0 + 6_000);
  });
});

describe("a top-level post Slack answers 429", () => {
  const limited = () => new DeliveryError(DeliveryErrorCode.RateLimited, "Slack rate limit", 2, "post");
  /** A poster whose posts meet `answers` in turn (an Error is thrown), then are posted. */
  function poster(answers: Error[]): { poster: KeyedSlackPoster; posts: number[] } {
    const posts: number[] = [];
    return {
      posts,
      poster: {
        async post() {
          posts.push(Date.now());
          const answer = answers.shift();
          if (answer) throw answer;
          return "1700000000.000100";
        },
        find: async () => null,
      },
    };
  }
  const message = { channel: "C1", text: "digest", blocks: [], key: "acme/widgets@w" };

  it("goes again after Slack's Retry-After, taking its turn again, and is posted once", async () => {
    vi.useFakeTimers({ now: Date.parse("2026-11-20T10:00:00Z") });
    const { poster: slack, posts } = poster([limited()]);
    const turns: string[] = [];
    const paced = pacedKeyedPoster(slack, async (channel) => {
      turns.push(channel);
    });
    const posted = paced.post(message);
    await vi.advanceTimersByTimeAsync(1_999);
    expect(posts).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await posted).toBe("1700000000.000100");
    expect(posts.map((at) => at - posts[0]!)).toEqual([0, 2_000]);
    expect(turns).toEqual(["C1", "C1"]);
  });

  it(`gives up after ${RATE_LIMITED_TRIES} tries, and fails at once on anything but a 429`, async () => {
    vi.useFakeTimers();
    const always = poster(Array.from({ length: RATE_LIMITED_TRIES }, limited));
    const refused = pacedKeyedPoster(always.poster, async () => {}).post(message);
    const settled = expect(refused).rejects.toMatchObject({ code: DeliveryErrorCode.RateLimited });
    await vi.advanceTimersByTimeAsync(60_000);
    await settled;
    expect(always.posts).toHaveLength(RATE_LIMITED_TRIES);

    const gone = new DeliveryError(DeliveryErrorCode.ChannelUnavailable, "channel_not_found");
    const once = poster([gone]);
    await expect(pacedKeyedPoster(once.poster, async () => {}).post(message)).rejects.toBe(gone);
    expect(once.posts).toHaveLength(1);
  });
});
