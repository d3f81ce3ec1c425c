import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Digests } from "../../src/digests/digests.js";
import { latestDigestTime } from "../../src/digests/schedule.js";
import { createLogger } from "../../src/logger.js";
import { Repo } from "../../src/repo.js";
import { openStore, type Store } from "../../src/store/index.js";

const WIDGETS = Repo.of("acme", "widgets");
/** A Monday, a little after the digest's time (09:00 UTC). */
const MONDAY = new Date("2026-11-23T09:00:30Z");
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

function digests(owner: string): Digests {
  return new Digests({
    store,
    statsEvents: async function* () {},
    statsDays: { get: async () => new Map(), put: async () => {} },
    poster: {
      post: async (message) => {
        posts.push(`${owner}: ${message.channel} ${message.key}`);
        return "1700000000.000100";
      },
      find: async () => null,
    },
    render: () => ({ text: "digest", blocks: [] }),
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
    const key = { channelId: "C1", repository: WIDGETS, week };
    expect(await store.claimDigest({ ...key, owner: "dead", now: claimedAt, until: lapse })).toBe("new");
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
