import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DIGEST_KIND, Digests, type DigestsDeps, digestKey } from "../../src/digests/digests.js";
import { latestDigestTime } from "../../src/digests/schedule.js";
import { createLogger } from "../../src/logger.js";
import { DeliveryError, DeliveryErrorCode, RATE_LIMITED_TRIES } from "../../src/notifier/chat.js";
import { Repo } from "../../src/repo.js";
import { pacedKeyedPoster } from "../../src/slack/channel-turns.js";
import { openStore, type Store } from "../../src/store/index.js";
import { WorkRunner } from "../../src/work/runner.js";

const WIDGETS = Repo.of("acme", "widgets");
/** A Monday, a little after the digest's time (09:00 UTC). */
const MONDAY = new Date("2026-11-23T09:00:30Z");
const DAY = 24 * 60 * 60_000;
let store: Store;
let posts: string[];

beforeEach(async () => {
  store = await openStore({ kind: "sqlite", path: ":memory:" });
  posts = [];
  await store.putSubscription({
    channelId: "C1",
    teamId: "T1",
    repository: WIDGETS,
    branchGlob: null,
    groups: ["queue"],
    createdBy: "alice",
    createdAt: new Date("2026-10-01T00:00:00Z"),
    digest: { cadence: "weekly" },
  });
});

afterEach(() => {
  vi.useRealTimers();
});

/** A replica's runner of durable work (the digests' kinds register with it). */
function runner(owner: string): DigestsDeps["work"] {
  return new WorkRunner({ store, owner, now: () => new Date(), logger: createLogger({ level: "silent" }) });
}

function digests(owner: string): Digests {
  return new Digests({
    store,
    work: runner(owner),
    statsEvents: async function* () {},
    statsDays: { get: async () => new Map(), put: async () => {} },
    poster: {
      post: async (message) => {
        posts.push(`${owner}: ${message.channel} ${message.key}`);
        return "1700000000.000100";
      },
      find: async () => null,
    },
    githubWebUrl: "https://github.com",
    timeZone: "UTC",
    owner,
    logger: createLogger({ level: "silent" }),
    now: () => new Date(),
  });
}

describe("a weekly digest whose replica died before posting it", () => {
  it("is posted by another replica when the claim lapses, without waiting for its next check, once", async () => {
    // The timers and the clock move together.
    vi.useFakeTimers({
      now: MONDAY,
      toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout", "Date"],
    });
    const week = latestDigestTime(MONDAY, "UTC").week;
    // Claimed 20 s ago by a replica that died: its claim lapses 100 s from now, between two checks.
    const claimedAt = new Date(MONDAY.getTime() - 20_000);
    const lapse = new Date(claimedAt.getTime() + 2 * 60_000);
    const key = digestKey("C1", WIDGETS, week);
    // It held the digest's work item and its post's claim.
    const payload = { channelId: "C1", repository: WIDGETS.fullName, week, at: "2026-11-23T09:00:00.000Z" };
    const item = { kind: DIGEST_KIND, key: `C1 ${WIDGETS.key} ${week}`, dueAt: claimedAt, payload };
    await store.scheduleWork(item);
    const held = { kind: DIGEST_KIND, owner: "dead", now: claimedAt, leaseMs: 2 * 60_000, limit: 1 };
    expect((await store.claimWork(held)).claimed).toHaveLength(1);
    const once = { owner: "dead", now: claimedAt, until: lapse, keepMs: 90 * DAY };
    expect(await store.claimOnce("digest", key, once)).toBe("claimed");
    const survivor = digests("survivor");
    survivor.start();
    await vi.advanceTimersByTimeAsync(lapse.getTime() - MONDAY.getTime() - 1);
    expect(posts).toEqual([]);
    // At the lapse (the next regular check is 20 s later).
    await vi.advanceTimersByTimeAsync(1_001);
    expect(posts).toEqual([`survivor: C1 acme/widgets@${week}`]);
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    await survivor.stop();
    // Back, the dead replica posts nothing again.
    expect(await digests("dead").runDue()).toBe(0);
    expect(posts).toHaveLength(1);
  });
});

describe("posting the digest now when Slack answers 429", () => {
  const NOW = new Date("2026-11-25T15:00:00Z");
  const rateLimited = () => new DeliveryError(DeliveryErrorCode.RateLimited, "Slack rate limit", 2, "post");

  /** Digests whose Slack answers `answers` in turn (then posts), behind the poster that waits out 429s. */
  function answering(answers: Error[]): { digests: Digests; tries: number[] } {
    const tries: number[] = [];
    const slack = {
      post: async (message: { channel: string; key: string }) => {
        tries.push(Date.now());
        const answer = answers.shift();
        if (answer) throw answer;
        posts.push(`${message.channel} ${message.key}`);
        return "1700000000.000100";
      },
      find: async () => null,
    };
    const digests = new Digests({
      store,
      work: runner("r1"),
      statsEvents: async function* () {},
      statsDays: { get: async () => new Map(), put: async () => {} },
      poster: pacedKeyedPoster(slack, async () => {}),
      githubWebUrl: "https://github.com",
      timeZone: "UTC",
      owner: "r1",
      logger: createLogger({ level: "silent" }),
      now: () => new Date(),
    });
    return { digests, tries };
  }

  it("posts once, after Slack's Retry-After", async () => {
    vi.useFakeTimers({ now: NOW, toFake: ["setTimeout", "clearTimeout", "Date"] });
    const { digests, tries } = answering([rateLimited()]);
    const posted = digests.postNow("C1", WIDGETS);
    await vi.advanceTimersByTimeAsync(1_999);
    expect(posts).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(await posted).toBe(true);
    expect(posts).toEqual([`C1 acme/widgets@now-${NOW.toISOString()}`]);
    expect(tries.map((at) => at - NOW.getTime())).toEqual([0, 2_000]);
    // Its claim is marked sent: the same key cannot be posted again.
    const key = digestKey("C1", WIDGETS, `now-${NOW.toISOString()}`);
    const later = new Date(NOW.getTime() + 60 * 60_000);
    expect(await store.claimOnce("digest", key, { owner: "r2", now: later, until: later, keepMs: DAY })).toBe(
      "done",
    );
  });

  it(`fails with a clear message after ${RATE_LIMITED_TRIES} 429s in a row, posts nothing and leaves nothing claimed`, async () => {
    vi.useFakeTimers({ now: NOW, toFake: ["setTimeout", "clearTimeout", "Date"] });
    const { digests, tries } = answering(Array.from({ length: RATE_LIMITED_TRIES }, rateLimited));
    const refused = digests.postNow("C1", WIDGETS);
    const settled = expect(refused).rejects.toThrow(
      `The weekly digest of acme/widgets was not posted: Slack answered "rate limited" ${RATE_LIMITED_TRIES} times in a row. Nothing was posted; try again in a minute.`,
    );
    await vi.advanceTimersByTimeAsync(60_000);
    await settled;
    expect(tries).toHaveLength(RATE_LIMITED_TRIES);
    expect(posts).toEqual([]);
    // Released: claimed again as new (not in doubt), at once, and no claim is left to lapse.
    const key = digestKey("C1", WIDGETS, `now-${NOW.toISOString()}`);
    expect((await store.readOnce("digest", key))?.claimedUntil).toBeNull();
    const again = { owner: "r2", now: new Date(), until: new Date(), keepMs: DAY };
    expect(await store.claimOnce("digest", key, again)).toBe("claimed");
  });

  it("a weekly digest Slack refused every time is released and posted on the next pass", async () => {
    vi.useFakeTimers({ now: MONDAY, toFake: ["setTimeout", "clearTimeout", "Date"] });
    const { digests } = answering(Array.from({ length: RATE_LIMITED_TRIES }, rateLimited));
    const first = digests.runDue();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await first).toBe(0);
    expect(posts).toEqual([]);
    expect(await digests.runDue()).toBe(1);
    expect(posts).toEqual([`C1 acme/widgets@${latestDigestTime(MONDAY, "UTC").week}`]);
  });
});
