import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Actor } from "../../src/commands/command.js";
import { CommandError, CommandErrorCode } from "../../src/commands/errors.js";
import type { GitHubGateway, Ports } from "../../src/commands/ports.js";
import { execute } from "../../src/commands/run.js";
import type { MergeQueueBackend } from "../../src/core/merge-queue.js";
import type { QueuePause, QueuePauses } from "../../src/core/pause.js";
import { Repo } from "../../src/repo.js";
import { openStore, type Store } from "../../src/store/index.js";

/** A drain of the default branch over a timed pause ends that pause's end as a pause does (pause.ts's keepTimedPause). */
const repo = Repo.of("acme", "ships");
const NOW = new Date("2026-11-23T16:40:00Z");
const alice: Actor = { surface: "github", githubLogin: "alice", display: "alice" };
const github: GitHubGateway = {
  permission: async () => "write",
  pullRequest: async () => null,
  comment: async () => ({ id: 1, url: "x" }),
  findComment: async () => null,
};
const draining: QueuePause = {
  reason: "deploy",
  pausedAt: NOW.toISOString(),
  by: "alice",
  branch: "main",
  drain: { drainedAt: null, entries: 2 },
};

let store: Store;
let drains: number;
beforeEach(async () => {
  store = await openStore({ kind: "sqlite", path: ":memory:" });
  drains = 0;
  await store.putScheduledUnpause({
    repository: repo,
    reason: "lunch",
    resumesAt: new Date(NOW.getTime() + 3_600_000),
    scheduledBy: "bob",
    surface: "slack",
    createdAt: NOW,
  });
});
afterEach(() => store.close());

function ports(cancel: (r: Repo) => Promise<boolean>): Ports {
  const pauses: QueuePauses = {
    scope: "branch",
    exemptions: "labels",
    current: async () => null,
    pause: async () => draining,
    resume: async () => true,
    drain: async () => {
      drains += 1;
      return draining;
    },
  };
  const backend = { kind: "github", pauses } as unknown as MergeQueueBackend;
  return {
    github,
    queues: { for: async () => backend } as unknown as Ports["queues"],
    commandPrefix: "@mergifyio",
    now: () => NOW,
    attributePause: (a) => store.putPauseAttribution(a),
    pauseAttribution: (r) => store.getPauseAttribution(r),
    unpauseSchedule: { now: () => NOW, put: (u) => store.putScheduledUnpause(u), cancel },
  };
}

describe("a drain over a timed pause", () => {
  it("cancels the timed pause's end, so the drain is not unpaused by it, and attributes the drain", async () => {
    await execute(
      { name: "drain", repo, reason: "deploy" },
      alice,
      ports((r) => store.deleteScheduledUnpause(r)),
    );
    expect(drains).toBe(1);
    expect(await store.getScheduledUnpause(repo)).toBeNull();
    expect(await store.getPauseAttribution(repo)).toMatchObject({
      actor: "alice",
      reason: "deploy",
      resumesAt: null,
    });
  });

  it("says so when the queue drains but the timed pause's end could not be cancelled", async () => {
    const broken = ports(async () => {
      throw new Error("database is gone");
    });
    const error = await execute({ name: "drain", repo, reason: "deploy" }, alice, broken).catch((e) => e);
    expect(error).toBeInstanceOf(CommandError);
    expect((error as CommandError).code).toBe(CommandErrorCode.Unavailable);
    expect((error as CommandError).details.detail).toBe(
      "the merge queue of acme/ships is draining, but Yardmaster could not cancel the end of an earlier timed pause, which may unpause it",
    );
    expect(drains).toBe(1);
  });
});
