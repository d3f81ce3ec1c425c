import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { CommandAnswer } from "../../src/core/merge-queue.js";
import { createLogger } from "../../src/logger.js";
import { RelayFollower, SWEEP_MS } from "../../src/relays/follower.js";
import { Repo } from "../../src/repo.js";
import { openStore, type Store } from "../../src/store/index.js";

const LEASE_MS = 30_000;
const FEW_SECONDS = 5_000;
const WIDGETS = Repo.of("acme", "widgets");
let store: Store;
let now: Date;

beforeEach(async () => {
  store = await openStore({ kind: "sqlite", path: ":memory:" });
  now = new Date("2026-01-01T10:00:00Z");
});

afterEach(() => {
  vi.useRealTimers();
});

function follower(owner: string, shown: string[]) {
  const f = new RelayFollower({
    store,
    queue: {
      entry: async () => null,
      readAnswer: (body): CommandAnswer =>
        ({ kind: "refused", refusal: null, command: null, headline: body }) as CommandAnswer,
    },
    owner,
    logger: createLogger({ level: "silent" }),
    now: () => now,
    leaseMs: LEASE_MS,
  });
  f.presenters.github = async (result) => {
    shown.push(`${owner}: ${result.answer?.url}`);
  };
  return f;
}

/** A relayed command, answered where it was asked and answered by the merge queue. */
async function answeredRelay(): Promise<void> {
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
  it("is shown by another replica's own sweep once the lease lapses, without a new answer, once", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    await answeredRelay();
    // The replica that took it died before showing it: its lease stands until it lapses.
    expect(await store.claimRelayAnswer("r1", "dead", now, LEASE_MS)).not.toBeNull();
    const shown: string[] = [];
    const survivor = follower("survivor", shown);
    survivor.start();
    const pass = async (ms: number) => {
      now = new Date(now.getTime() + ms);
      await vi.advanceTimersByTimeAsync(ms);
    };
    await pass(LEASE_MS - 1_000);
    expect(shown).toEqual([]);
    // Within a few seconds of the lapse.
    await pass(1_000 + FEW_SECONDS);
    expect(shown).toEqual(["survivor: https://github.example/acme/widgets/pull/42#issuecomment-7"]);
    for (let i = 0; i < 5; i++) await pass(SWEEP_MS);
    await survivor.stop();
    // Back, the dead replica has nothing left to show.
    const back = follower("dead", shown);
    await back.sweep();
    expect(shown).toHaveLength(1);
    expect((await store.getRelay("r1"))?.appliedVersion).toBe(1);
  });
});
