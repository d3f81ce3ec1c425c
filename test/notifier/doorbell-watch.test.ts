import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { DoorbellWatch } from "../../src/notifier/doorbell-watch.js";
import { Repo } from "../../src/repo.js";
import { openStore, POLL_KIND, type Store } from "../../src/store/index.js";
import { WorkRunner } from "../../src/work/runner.js";

/**
 * The doorbell's watch on a real (SQLite) store: idle repositories of an installation that no longer
 * announces its activity are read at once, then at the interval; the others keep waiting.
 */
const T0 = Date.parse("2026-03-02T09:00:00.000Z");
const HOUR = 3_600_000;
let store: Store;
let clock: Date;

beforeEach(async () => {
  store = await openStore({ kind: "sqlite", path: ":memory:" });
  clock = new Date(T0);
});
afterEach(async () => {
  await store.close();
});

/** Subscribes the repositories and leaves each waiting the idle period (an hour). */
async function idle(...repos: string[]) {
  for (const repo of repos)
    await store.putSubscription({
      channelId: "C1",
      teamId: "T1",
      repository: Repo.from(repo),
      branchGlob: null,
      groups: ["queue"],
      createdBy: "U1",
      createdAt: clock,
    });
  const { claimed } = await store.claimWork({
    kind: POLL_KIND,
    owner: "r",
    now: clock,
    leaseMs: 10_000,
    limit: 100,
  });
  for (const item of claimed)
    await store.completeWork("r", [
      {
        kind: POLL_KIND,
        key: item.key,
        next: {
          dueAt: new Date(clock.getTime() + HOUR),
          payload: { cadence: "idle", lastReadAt: clock.toISOString() },
        },
      },
    ]);
}

function watch(serves: (repo: Repo) => Promise<boolean>, asked: string[] = []) {
  return new DoorbellWatch({
    store,
    work: new WorkRunner({ store, owner: "w", now: () => clock, logger: createLogger({ level: "silent" }) }),
    doorbellServes: (repo) => {
      asked.push(repo.fullName);
      return serves(repo);
    },
    intervalMs: 2_000,
    logger: createLogger({ level: "silent" }),
    now: () => clock,
  });
}

const schedule = async (repo: string) => store.getPollSchedule(Repo.from(repo));

describe("the doorbell's watch", () => {
  it("reads now the idle repositories of an installation that no longer announces, asking once per owner", async () => {
    await idle("quiet/a", "quiet/b", "loud/c");
    const asked: string[] = [];
    const w = watch(async (repo) => repo.owner === "loud", asked);
    expect(await w.check()).toBe(2);
    expect(asked.sort()).toEqual(["loud/c", "quiet/a"]);
    for (const repo of ["quiet/a", "quiet/b"])
      expect(await schedule(repo)).toMatchObject({ cadence: "interval", nextPollAt: clock });
    expect(await schedule("loud/c")).toMatchObject({
      cadence: "idle",
      nextPollAt: new Date(T0 + HOUR),
    });
    // Nothing idle is left of them: the next look brings nothing forward.
    expect(await w.check()).toBe(0);
  });

  it("takes an installation that cannot be read for one that does not announce", async () => {
    await idle("gone/a");
    expect(await watch(async () => Promise.reject(new Error("404"))).check()).toBe(1);
    expect((await schedule("gone/a"))?.cadence).toBe("interval");
  });

  it("looks at once when started (a restart sees the doorbell gone meanwhile)", async () => {
    await idle("quiet/a");
    const w = watch(async () => false);
    await w.start();
    try {
      for (const until = Date.now() + 10_000; (await schedule("quiet/a"))?.cadence !== "interval"; )
        if (Date.now() > until) throw new Error("the watch did not look");
        else await new Promise((resolve) => setTimeout(resolve, 5));
    } finally {
      await w.stop();
    }
    expect(await schedule("quiet/a")).toMatchObject({ cadence: "interval", nextPollAt: clock });
  });
});
