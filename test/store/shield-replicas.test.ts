import { afterEach, describe, expect, it } from "vitest";
import type { GitHubGateway } from "../../src/commands/ports.js";
import type { MergeQueueBackend } from "../../src/core/merge-queue.js";
import type { QueueEvent } from "../../src/core/queue.js";
import { createLogger } from "../../src/logger.js";
import { withAlsoFailed } from "../../src/notifier/notes.js";
import { Repo } from "../../src/repo.js";
import { FlakeShield } from "../../src/shield/shield.js";
import { openStore, type Store } from "../../src/store/index.js";
import { PG_URL, usePostgres } from "../helpers/postgres.js";

// The flake shield's claim on PostgreSQL, with several replicas (src/shield/shield.ts): each replica its
// own store (its own pool) on one schema, all handed the same removal at the same moment, over a merge
// queue that never says the pull request is queued already (so only the claim keeps it from being queued
// more than once). It is queued again once, and every replica's notice says so.

const pg = usePostgres();
const repo = Repo.of("acme", "widgets");
const T0 = Date.parse("2026-03-02T10:00:00Z");
const stores: Store[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

const left = (id: number, pull: number, minutes: number): QueueEvent => ({
  id,
  at: new Date(T0 + minutes * 60_000).toISOString(),
  repository: repo.fullName,
  pull,
  branch: "main",
  queue: "default",
  origin: "test",
  kind: "left",
  merged: false,
  reason: "its checks failed",
  code: "CHECKS_FAILED",
  failedChecks: [{ name: "ci/test", url: `https://ci.example/runs/${id}`, state: "failure" }],
});

describe("the flake shield on several replicas of one PostgreSQL", () => {
  it("queues a removal again once, whichever replicas take it at once", async () => {
    const schema = pg.freshSchema();
    const replicas = await Promise.all(
      ["a", "b", "c"].map(() => openStore({ kind: "postgres", url: PG_URL, schema })),
    );
    stores.push(...replicas);
    const [first] = replicas;
    if (!first) throw new Error("no replica");
    await first.putFlakeShield({
      repository: repo,
      enabled: true,
      changedBy: "alice",
      surface: "slack",
      changedAt: new Date(T0 - 3_600_000),
    });
    const removal = left(3, 23, 0);
    await first.recordQueueEvents(repo, [left(1, 21, -40), left(2, 22, -20), removal], new Date(T0));
    const enqueued: string[] = [];
    const backend: MergeQueueBackend = {
      kind: "github",
      can: { namedQueues: false, jump: true, batches: false },
      cannot: {},
      state: async () => null,
      entry: async () => null,
      commands: {
        via: "api",
        enqueue: async (_repo, pull) => {
          enqueued.push(`#${pull.number}`);
          return null;
        },
        dequeue: async () => false,
      },
    };
    const github: GitHubGateway = {
      permission: async () => "write",
      pullRequest: async (_repo, number) => ({
        number,
        title: "t",
        url: "u",
        state: "open",
        merged: false,
        baseRef: "main",
        headSha: "h",
        author: { login: "alice", id: 1 },
      }),
      comment: async () => ({ id: 1, url: "u" }),
      findComment: async () => null,
    };
    const shields = replicas.map(
      (store, i) =>
        new FlakeShield({
          store,
          queues: { for: async () => backend },
          github,
          commandPrefix: "@mergifyio",
          owner: `replica-${i}`,
          now: () => new Date(T0 + 1_000),
          logger: createLogger({ level: "silent" }),
        }),
    );
    const event = await withAlsoFailed(first, repo, removal);
    const shown = await Promise.all(shields.map((shield) => shield.consider(repo, event)));
    expect(enqueued).toEqual(["#23"]);
    for (const s of shown)
      expect(s.notes?.shield).toEqual({ check: "ci/test", outcome: "requeued", detail: null });
    const rows = await first.listShieldRetries(repo, {
      from: new Date(T0 - 60_000),
      to: new Date(T0 + 60_000),
    });
    expect(rows.map((r) => r.outcome)).toEqual(["requeued"]);
  });
});
