import { beforeEach, describe, expect, it } from "vitest";
import type { CommandAnswer } from "../../src/core/merge-queue.js";
import { createLogger } from "../../src/logger.js";
import { RelayFollower } from "../../src/relays/follower.js";
import { Repo } from "../../src/repo.js";
import { openStore, RELAY_ANSWER_KIND, type Store } from "../../src/store/index.js";
import { WorkRunner } from "../../src/work/runner.js";

const LEASE_MS = 30_000;
const WIDGETS = Repo.of("acme", "widgets");
let store: Store;
let now: Date;

beforeEach(async () => {
  store = await openStore({ kind: "sqlite", path: ":memory:" });
  now = new Date("2026-01-01T10:00:00Z");
});

function follower(owner: string, shown: string[], present = async () => {}) {
  const logger = createLogger({ level: "silent" });
  const f = new RelayFollower({
    store,
    work: new WorkRunner({ store, owner, now: () => now, logger }),
    queue: {
      entry: async () => null,
      readAnswer: (body): CommandAnswer =>
        ({ kind: "refused", refusal: null, command: null, headline: body }) as CommandAnswer,
    },
    logger,
    now: () => now,
    leaseMs: LEASE_MS,
  });
  f.presenters.github = async (result) => {
    shown.push(`${owner}: ${result.answer?.url}`);
    await present();
  };
  return f;
}

/** A relayed `queue` command (`r1` on #42), asked ten minutes before its deadline. */
async function relayed(): Promise<void> {
  await store.createRelay({
    id: "r1",
    repository: WIDGETS,
    pull: 42,
    commandName: "queue",
    surface: "github",
    relayedAt: now,
    deadline: new Date(now.getTime() + 10 * 60_000),
    relay: { name: "queue" },
  });
}

/** A relayed command, answered where it was asked and answered by the merge queue. */
async function answeredRelay(): Promise<void> {
  await relayed();
  await store.presentRelay("r1", { commentId: 5 });
  await store.recordRelayAnswer({
    repository: WIDGETS,
    pull: 42,
    commentId: 7,
    body: "queued",
    url: "https://github.example/acme/widgets/pull/42#issuecomment-7",
    createdAt: new Date(now.getTime() + 1_000),
    updatedAt: new Date(now.getTime() + 1_000),
    quotedCommand: "queue",
    now,
  });
}

describe("an answer whose replica died showing it", () => {
  it("is shown by another replica's runner once the claim lapses, without a new answer, once", async () => {
    await answeredRelay();
    // The replica that took it died while showing it (its surface never answers): its claim stands.
    const shown: string[] = [];
    void follower("dead", shown, () => new Promise<void>(() => {})).show("r1");
    const survivor = follower("survivor", shown);
    while (shown.length === 0) await new Promise((r) => setImmediate(r));
    expect(await survivor.sweep()).toBe(0);
    now = new Date(now.getTime() + LEASE_MS - 1_000);
    expect(await survivor.sweep()).toBe(0);
    // At the lapse.
    now = new Date(now.getTime() + 1_000);
    expect(await survivor.sweep()).toBe(1);
    expect(shown).toEqual([
      "dead: https://github.example/acme/widgets/pull/42#issuecomment-7",
      "survivor: https://github.example/acme/widgets/pull/42#issuecomment-7",
    ]);
    expect((await store.getRelay("r1"))?.appliedVersion).toBe(1);
    // Shown: nothing left to show, for any replica, however late.
    now = new Date(now.getTime() + 10 * LEASE_MS);
    expect(await follower("back", shown).sweep()).toBe(0);
    expect(shown).toHaveLength(2);
  });

  it("is shown at once by the replica that records it, and again for a new version only", async () => {
    const shown: string[] = [];
    const f = follower("one", shown);
    await relayed();
    const comment = (body: string, updatedMs: number) => ({
      repository: WIDGETS,
      pull: 42,
      commentId: 7,
      body,
      url: "https://github.example/acme/widgets/pull/42#issuecomment-7",
      createdAt: new Date(now.getTime() + 1_000),
      updatedAt: new Date(now.getTime() + updatedMs),
    });
    await f.onComment(comment("queued", 1_000));
    // Not presented yet: nothing to show.
    expect(shown).toEqual([]);
    await f.presented("r1", { commentId: 5 });
    expect(shown).toHaveLength(1);
    await f.onComment(comment("queued", 1_000));
    expect(shown).toHaveLength(1);
    await f.onComment(comment("merged", 2_000));
    expect(shown).toHaveLength(2);
    expect(await f.sweep()).toBe(0);
    expect((await store.getRelay("r1"))?.appliedVersion).toBe(2);
    expect(await store.claimWork({ kind: RELAY_ANSWER_KIND, owner: "x", now, leaseMs: 1, limit: 5 })).toEqual(
      {
        claimed: [],
        nextDueAt: null,
      },
    );
  });
});
