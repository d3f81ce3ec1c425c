import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { mergifyBackend } from "../../../src/backends/mergify/backend.js";
import { isMergeQueueError, MergeQueueErrorCode } from "../../../src/backends/mergify/index.js";
import {
  makeClient,
  ORIGIN,
  pauseState,
  pullRequestDetails,
  queueStatus,
  REPO,
  REPO_PATH,
} from "./fixtures.js";

const backend = () => mergifyBackend(makeClient({ retry: { retries: 0 }, timeoutMs: 2_000 }));
const target = { repo: REPO, branch: null };

afterEach(() => {
  nock.cleanAll();
});

describe("Mergify's merge queue behind the core's port", () => {
  it("reads its status as the core's state: batches with their parts, the waiting entries, scope queues, the pause", async () => {
    nock(ORIGIN)
      .get(`${REPO_PATH}/merge-queue/status`)
      .query({ branch: "main" })
      .reply(200, { ...queueStatus(), pause: pauseState() });
    const state = await backend().state(REPO, "main");
    expect(state?.branch).toBe("main");
    expect(state?.batches?.map((b) => [b.name, b.status, b.checks, b.parts.map((p) => p.name)])).toEqual([
      ["Batch 1", "running", { passed: 45, total: 67 }, []],
      ["Batch 2", "bisecting", { passed: 15, total: 15 }, ["Sub Batch 1", "Sub Batch 2"]],
    ]);
    expect(state?.batches?.[0]?.entries[0]).toMatchObject({
      pull: { number: 1421, author: "james" },
      batch: "Batch 1",
      estimate: { at: "2025-11-05T14:35:00Z" },
    });
    expect(state?.entries).toEqual([
      expect.objectContaining({
        position: 1,
        pull: expect.objectContaining({ number: 1430 }),
        state: "waiting",
        enteredAt: "2025-11-05T13:30:00Z",
        estimate: null,
        priority: "hotfix",
        scopes: ["frontend"],
      }),
    ]);
    expect(state?.scopeQueues).toEqual([{ name: "__default__", batches: 2 }]);
    expect(state?.pause).toEqual({ reason: "release freeze", pausedAt: "2025-11-05T15:00:00Z", by: null });
  });

  it("reads a pull request's entry, counting positions from 1, and null when it is in no queue", async () => {
    nock(ORIGIN).get(`${REPO_PATH}/merge-queue/pull/42`).reply(200, pullRequestDetails(42));
    nock(ORIGIN).get(`${REPO_PATH}/merge-queue/pull/43`).reply(404, { detail: "Not found" });
    const entry = await backend().entry(REPO, 42);
    expect(entry).toMatchObject({
      position: 1,
      queue: "default",
      estimate: { at: "2025-11-05T14:35:00Z" },
      checks: { runIn: "draft_pr", draftPull: 1501 },
    });
    expect(await backend().entry(REPO, 43)).toBeNull();
  });

  it("pauses and resumes through its pause API; a resume of a queue not paused is false, nothing thrown", async () => {
    const queue = backend();
    expect(queue.pauses?.scope).toBe("repository");
    nock(ORIGIN).put(`${REPO_PATH}/merge-queue/pause`, { reason: "release freeze" }).reply(200, pauseState());
    expect(await queue.pauses?.pause(target, { reason: "release freeze", by: "alice" })).toEqual({
      reason: "release freeze",
      pausedAt: "2025-11-05T15:00:00Z",
      by: null,
    });
    nock(ORIGIN).delete(`${REPO_PATH}/merge-queue/pause`).reply(204);
    expect(await queue.pauses?.resume(target, "alice")).toBe(true);
    nock(ORIGIN).delete(`${REPO_PATH}/merge-queue/pause`).reply(404, { detail: "Not found" });
    nock(ORIGIN).get(`${REPO_PATH}/merge-queue/pause`).reply(200, { paused: false });
    expect(await queue.pauses?.resume(target, "alice")).toBe(false);
    nock(ORIGIN).get(`${REPO_PATH}/merge-queue/pause`).reply(200, { paused: false });
    expect(await queue.pauses?.current(target)).toBeNull();
  });

  it("keeps the service's 404 when the queue is still paused after it", async () => {
    nock(ORIGIN).delete(`${REPO_PATH}/merge-queue/pause`).reply(404, { detail: "Not found" });
    nock(ORIGIN).get(`${REPO_PATH}/merge-queue/pause`).reply(200, pauseState());
    const error = await backend()
      .pauses?.resume(target, "alice")
      .catch((e: unknown) => e);
    expect(isMergeQueueError(error, MergeQueueErrorCode.NotFound)).toBe(true);
  });

  it("takes queue and dequeue as comments, and reads its bot's answers", () => {
    const { commands } = backend();
    expect(commands.via).toBe("comments");
    if (commands.via !== "comments") return;
    expect(commands.readAnswer("@yardmaster[bot] is not allowed to run commands").kind).toBe("refused");
  });
});
