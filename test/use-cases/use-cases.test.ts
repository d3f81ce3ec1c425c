import { describe, expect, it } from "vitest";
import { CommandErrorCode } from "../../src/core/errors.js";
import type { MergeQueueBackend, QueueEntry, QueueState } from "../../src/core/merge-queue.js";
import type { QueuePause } from "../../src/core/pause.js";
import { QueueError, QueueErrorCode } from "../../src/core/queue-error.js";
import type { PauseAttribution } from "../../src/core/records.js";
import { Repo } from "../../src/repo.js";
import { resumeQueue } from "../../src/use-cases/pause.js";
import { pullsBy } from "../../src/use-cases/person-pulls.js";
import { previewPull, pullInQueue } from "../../src/use-cases/pull-queue.js";

const REPO = Repo.from("acme/ships");
const NOW = new Date("2026-03-02T10:00:00Z");

function entry(number: number, author: string, queue: string | null = null): QueueEntry {
  return {
    position: number,
    pull: {
      number,
      title: `Change ${number}`,
      url: `https://github.example/acme/ships/pull/${number}`,
      author,
    },
    state: "waiting",
    stateName: null,
    enteredAt: null,
    estimate: null,
    queue,
    priority: null,
    by: null,
    jumped: false,
    scopes: [],
    batch: null,
    checks: null,
    checksTimeoutAt: null,
  };
}

function backend(over: Partial<MergeQueueBackend>): MergeQueueBackend {
  return {
    kind: "github",
    can: { namedQueues: false, jump: true, batches: false },
    cannot: {},
    state: async () => null,
    entry: async () => null,
    commands: { via: "api", enqueue: async () => null, dequeue: async () => false },
    ...over,
  };
}

/** Queues whose choice reads the base branch (as MERGE_QUEUE_PROVIDER=auto does), recording it. */
function deps(queue: MergeQueueBackend, baseRef: string | null = "main") {
  const chosen: (string | undefined)[] = [];
  return {
    chosen,
    queues: {
      for: async (_repo: Repo, branch?: string | (() => Promise<string | undefined>)) => {
        chosen.push(typeof branch === "function" ? await branch() : branch);
        return queue;
      },
    },
    github: {
      pullRequest: async () => (baseRef === null ? null : { baseRef, title: "Change 7", merged: false }),
    },
  };
}

describe("a pull request's queue state", () => {
  it("names the base branch of a queue per branch, and says what its queue can do", async () => {
    const read = await pullInQueue(deps(backend({ entry: async () => entry(7, "alice") })), REPO, 7);
    expect(read).toEqual({
      can: { namedQueues: false, jump: true, batches: false },
      branch: "main",
      entry: entry(7, "alice"),
    });
  });

  it("reads not queued, and a queue's refusal as the core's error", async () => {
    expect((await pullInQueue(deps(backend({})), REPO, 7)).entry).toBeNull();
    const failing = backend({
      entry: async () => Promise.reject(new QueueError(QueueErrorCode.Unavailable, "down")),
    });
    await expect(pullInQueue(deps(failing), REPO, 7)).rejects.toMatchObject({
      code: CommandErrorCode.MergeQueueUnavailable,
    });
  });

  it("previews a pull request best effort: the queue's failure is its code, the pause of its base branch's queue", async () => {
    const pause = { reason: "deploy", by: "rita", pausedAt: null } as QueuePause;
    const states: (string | null)[] = [];
    const queue = backend({
      entry: async () => Promise.reject(new QueueError(QueueErrorCode.Unavailable, "down")),
      state: async (_repo, branch) => {
        states.push(branch);
        return { pause } as QueueState;
      },
    });
    const preview = await previewPull(deps(queue, "release"), REPO, 7);
    expect(preview).toEqual({
      info: { baseRef: "release", title: "Change 7", merged: false },
      queue: { error: CommandErrorCode.MergeQueueUnavailable },
      pause,
    });
    expect(states).toEqual(["release"]);
  });
});

describe("a person's pull requests", () => {
  it("are theirs only (whatever the case of the login), in merge order across batches", () => {
    const state = {
      batches: [{ entries: [entry(3, "bob"), entry(4, "Alice")], parts: [] }],
      entries: [entry(5, "alice"), entry(6, null as unknown as string)],
    } as unknown as QueueState;
    expect(pullsBy(state, "alice").map((m) => [m.pull.number, m.position])).toEqual([
      [4, 2],
      [5, 3],
    ]);
  });
});

describe("resuming with who", () => {
  it("records who resumed, once resumed, and nothing when the queue was not paused", async () => {
    const kept: PauseAttribution[] = [];
    const record = { attributePause: async (a: PauseAttribution) => void kept.push(a), now: () => NOW };
    const target = { repo: REPO, branch: null };
    const who = { login: "rita", surface: "slack" as const };
    expect(await resumeQueue(record, { resume: async () => false }, target, who)).toBe(false);
    expect(kept).toEqual([]);
    expect(await resumeQueue(record, { resume: async () => true }, target, who, { scheduled: true })).toBe(
      true,
    );
    expect(kept).toEqual([
      {
        repository: REPO,
        action: "unpause",
        reason: null,
        scheduled: true,
        actor: "rita",
        surface: "slack",
        at: NOW,
      },
    ]);
  });
});
