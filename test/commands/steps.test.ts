import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Command } from "../../src/commands/catalog.js";
import type { Actor } from "../../src/commands/command.js";
import { CommandErrorCode } from "../../src/commands/errors.js";
import type { GitHubGateway, Ports, PullRequestInfo } from "../../src/commands/ports.js";
import { execute } from "../../src/commands/run.js";
import { stepMarker, storedSteps, unrecordedSteps } from "../../src/commands/steps.js";
import type { MergeQueueBackend, MergeQueues, QueueEntry } from "../../src/core/merge-queue.js";
import { createLogger } from "../../src/logger.js";
import { Repo } from "../../src/repo.js";
import { openStore, type Store } from "../../src/store/index.js";
import { makeClient, mergifyQueues, ORIGIN, pullRequestDetails } from "../backends/mergify/fixtures.js";
import { failure } from "../helpers/command-error.js";

const repo = Repo.of("acme", "widgets");
const PATH = "/v1/repos/acme/widgets";
const alice: Actor = { surface: "github", githubLogin: "alice", display: "alice" };
const log = createLogger({ level: "silent" });
const NOW = new Date("2026-11-23T12:00:00Z");
const pull: PullRequestInfo = {
  number: 42,
  title: "Add widgets",
  url: "https://github.com/acme/widgets/pull/42",
  state: "open",
  merged: false,
  baseRef: "main",
  headSha: "abc",
  author: { login: "alice", id: 1 },
};

let store: Store;
beforeEach(async () => {
  store = await openStore({ kind: "sqlite", path: ":memory:" });
});
afterEach(async () => {
  await store.close();
  nock.cleanAll();
});

/** GitHub's comments on the pull request: posted by the gateway, found again by their body. */
function gateway() {
  const comments: { id: number; body: string; url: string }[] = [];
  const github: GitHubGateway = {
    permission: async () => "write",
    pullRequest: async () => pull,
    comment: async (_repo, _n, body) => {
      const id = comments.length + 1;
      const made = { id, body, url: `https://github.com/acme/widgets/pull/42#issuecomment-${id}` };
      comments.push(made);
      return { id, url: made.url };
    },
    findComment: async (_repo, _n, marker) => {
      const found = comments.find((c) => c.body.includes(marker));
      return found ? { id: found.id, url: found.url } : null;
    },
  };
  return { github, comments };
}

const mergify = () => mergifyQueues(makeClient({ retry: { retries: 0 }, timeoutMs: 1_000 }));

/** One run of `command` for the delivery `runId`, with its steps in the store, as a comment job runs it. */
function run(runId: string, command: Command, extra: Partial<Ports> = {}) {
  return execute(command, alice, {
    queues: mergify(),
    github: gateway().github,
    commandPrefix: "@mergifyio",
    steps: storedSteps(store, runId, log, () => NOW),
    freezes: { store, now: () => NOW },
    now: () => NOW,
    ...extra,
  });
}

describe("a command's steps in the store", () => {
  const steps = (runId: string) => storedSteps(store, runId, log, () => NOW);

  it("makes a step once across the runs of a command, and again for another command", async () => {
    let made = 0;
    const make = async () => ({ n: ++made });
    expect(await steps("d-1").once("s", make)).toEqual({ n: 1 });
    // A second run of the same delivery (a replica taking it over) gets what the first made.
    expect(await steps("d-1").once("s", make)).toEqual({ n: 1 });
    expect(await steps("d-2").once("s", make)).toEqual({ n: 2 });
    expect(made).toBe(2);
  });

  it("records nothing for a step whose making failed: a later run makes it", async () => {
    await expect(
      steps("d-1").once("s", async () => {
        throw new Error("GitHub is down");
      }),
    ).rejects.toThrow("GitHub is down");
    expect(await steps("d-1").once("s", async () => "made")).toBe("made");
  });

  it("looks for a step begun and not recorded (its run died after making it) before making it again", async () => {
    // The first run began the step, made it, and died before recording it.
    await store.beginCommandStep("d-1", "s", NOW);
    let made = 0;
    const found = await steps("d-1").once(
      "s",
      async () => ++made,
      async () => 7,
    );
    expect(found).toBe(7);
    expect(made).toBe(0);
    // What it found is recorded: a third run neither looks nor makes.
    expect(
      await steps("d-1").once(
        "s",
        async () => ++made,
        async () => {
          throw new Error("not looked for again");
        },
      ),
    ).toBe(7);
  });

  it("makes a step begun and not found (its run died before making it), and records it begun first", async () => {
    let looked = 0;
    const find = async () => {
      looked += 1;
      return null;
    };
    // A first run that begins it and dies while making it.
    await expect(
      steps("d-1").once("s", () => new Promise<number>((_, reject) => reject(new Error("killed"))), find),
    ).rejects.toThrow("killed");
    expect(looked).toBe(0);
    expect(await store.commandStepBegun("d-1", "s")).toBe(true);
    expect(await steps("d-1").once("s", async () => 8, find)).toBe(8);
    expect(looked).toBe(1);
  });

  it("forgets a step: a later run makes it again", async () => {
    await steps("d-1").once("s", async () => 1);
    await steps("d-1").forget("s");
    expect(await steps("d-1").once("s", async () => 2)).toBe(2);
  });

  it("names a run's step the same in every run of the command, and no other's", () => {
    const key = steps("d-1").key("relay.comment");
    expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(steps("d-1").key("relay.comment")).toBe(key);
    expect(steps("d-2").key("relay.comment")).not.toBe(key);
    expect(steps("d-1").key("relay.follow")).not.toBe(key);
    // A command run once (Slack's) makes every step, and its keys are its own.
    const once = unrecordedSteps();
    expect(once.key("relay.comment")).toBe(once.key("relay.comment"));
    expect(unrecordedSteps().key("relay.comment")).not.toBe(once.key("relay.comment"));
  });
});

describe("a relayed command's steps", () => {
  const queue: Command = { name: "queue", repo, pull: 42 };
  const follow = () => ({ relayFollow: { store, seconds: 600 } });
  const read = (times: number) =>
    nock(ORIGIN).get(`${PATH}/merge-queue/pull/42`).times(times).reply(200, pullRequestDetails(42));

  it("relays once across two runs of one command, the second following the first's relay", async () => {
    const { github, comments } = gateway();
    read(2);
    const first = await run("delivery-1", queue, { github, ...follow() });
    const again = await run("delivery-1", queue, { github, ...follow() });
    expect(comments).toHaveLength(1);
    expect(again).toMatchObject({
      relayed: "queue",
      relayCommentUrl: "https://github.com/acme/widgets/pull/42#issuecomment-1",
      relayId: (first as { relayId: string }).relayId,
    });
    const followed = await store.getRelay((first as { relayId: string }).relayId);
    expect(followed?.relay).toMatchObject({
      relayCommentUrl: "https://github.com/acme/widgets/pull/42#issuecomment-1",
    });
  });

  it("finds the relayed comment a run posted and did not record, by the marker hidden in it", async () => {
    const { github, comments } = gateway();
    read(1);
    // The first run began the step, posted the comment, and died before recording it.
    const steps = storedSteps(store, "delivery-1", log, () => NOW);
    await store.beginCommandStep("delivery-1", "relay.comment", NOW);
    await github.comment(repo, 42, `@mergifyio queue\n\n${stepMarker(steps.key("relay.comment"))}`);
    const result = await run("delivery-1", queue, { github, ...follow() });
    expect(comments).toHaveLength(1);
    expect(result).toMatchObject({
      relayCommentUrl: "https://github.com/acme/widgets/pull/42#issuecomment-1",
    });
    // The relayed comment's first line is the merge queue's command; the marker is hidden below.
    read(1);
    await run("delivery-2", queue, { github, ...follow() });
    expect(comments[1]?.body.split("\n")[0]).toBe("@mergifyio queue");
    expect(comments[1]?.body).toContain(
      stepMarker(storedSteps(store, "delivery-2", log).key("relay.comment")),
    );
  });

  it("follows its relay in a later run after a run whose comment failed: the relay is made again", async () => {
    const { github, comments } = gateway();
    read(2);
    const failing: GitHubGateway = {
      ...github,
      comment: async () => {
        throw new Error("GitHub is down");
      },
    };
    const failed = await failure(run("delivery-2", queue, { github: failing, ...follow() }));
    expect(failed.code).toBe(CommandErrorCode.GitHubFailed);
    // Nothing relayed: nothing followed, and the follow step forgotten.
    const relayId = storedSteps(store, "delivery-2", log).key("relay.follow");
    expect(await store.getRelay(relayId)).toBeNull();
    expect(await store.commandStep("delivery-2", "relay.follow")).toBeNull();
    const again = await run("delivery-2", queue, { github, ...follow() });
    expect(again).toMatchObject({ relayId });
    // The relay the later run follows exists, and names its comment.
    expect((await store.getRelay(relayId))?.relay).toMatchObject({ relayCommentUrl: comments[0]?.url });
    read(1);
    await run("delivery-3", queue, { github, ...follow() });
    expect(comments).toHaveLength(2);
  });
});

describe("the merge queue's pause", () => {
  const pause: Command = { name: "pause", repo, reason: "deploy" };
  const paused = { paused: true, reason: "deploy", paused_at: "2026-11-23T11:59:00Z" };

  it("pauses once across two runs of one command", async () => {
    const put = nock(ORIGIN).put(`${PATH}/merge-queue/pause`).once().reply(200, paused);
    const first = await run("d-1", pause);
    const again = await run("d-1", pause);
    expect(put.isDone()).toBe(true);
    expect(again).toEqual(first);
    expect(again).toMatchObject({ pause: { reason: "deploy" } });
  });

  it("does not pause again when a run began the pause and died: the queue is paused for the reason", async () => {
    await store.beginCommandStep("d-1", "queue.pause", NOW);
    nock(ORIGIN).get(`${PATH}/merge-queue/pause`).reply(200, paused);
    const result = await run("d-1", pause);
    expect(result).toMatchObject({ pause: { reason: "deploy", pausedAt: "2026-11-23T11:59:00Z" } });
    expect(nock.pendingMocks()).toEqual([]);
  });

  it("pauses when a run began the pause and died before asking: the queue runs, or is paused for another reason", async () => {
    await store.beginCommandStep("d-1", "queue.pause", NOW);
    nock(ORIGIN)
      .get(`${PATH}/merge-queue/pause`)
      .reply(200, { ...paused, reason: "an older freeze" })
      .put(`${PATH}/merge-queue/pause`)
      .reply(200, paused);
    expect(await run("d-1", pause)).toMatchObject({ pause: { reason: "deploy" } });
    expect(nock.pendingMocks()).toEqual([]);
  });

  it("reckons a timed pause's end once: a later run keeps the first run's instant", async () => {
    const ends: Date[] = [];
    const unpauseSchedule = (now: Date) => ({
      now: () => now,
      put: async (u: { resumesAt: Date }) => {
        ends.push(u.resumesAt);
      },
      cancel: async () => true,
    });
    const timed: Command = { ...pause, resume: { kind: "for", ms: 2 * 3_600_000 } } as Command;
    nock(ORIGIN).put(`${PATH}/merge-queue/pause`).reply(200, paused);
    await run("d-1", timed, { unpauseSchedule: unpauseSchedule(NOW) });
    await run("d-1", timed, { unpauseSchedule: unpauseSchedule(new Date(NOW.getTime() + 35_000)) });
    expect(ends.map((d) => d.toISOString())).toEqual([
      "2026-11-23T14:00:00.000Z",
      "2026-11-23T14:00:00.000Z",
    ]);
  });

  it("resumes once across two runs, and takes a queue found running as resumed by a run that died", async () => {
    const unpause: Command = { name: "unpause", repo };
    const del = nock(ORIGIN).delete(`${PATH}/merge-queue/pause`).once().reply(204);
    await run("d-1", unpause);
    await run("d-1", unpause);
    expect(del.isDone()).toBe(true);
    await store.beginCommandStep("d-2", "queue.resume", NOW);
    nock(ORIGIN)
      .get(`${PATH}/merge-queue/pause`)
      .reply(200, { paused: false, reason: null, paused_at: null });
    expect(await run("d-2", unpause)).toMatchObject({ name: "unpause" });
    expect(nock.pendingMocks()).toEqual([]);
  });
});

/** A merge queue that takes queue and dequeue directly (GitHub's), in memory, counting its calls. */
function directQueue() {
  const calls: string[] = [];
  const queued = new Set<number>();
  const entry = (number: number): QueueEntry => ({
    position: 1,
    pull: { number, title: "Add widgets", url: pull.url, author: "alice" },
    state: "waiting",
    stateName: null,
    enteredAt: null,
    estimate: null,
    queue: null,
    priority: null,
    by: null,
    jumped: false,
    scopes: [],
    batch: null,
    checks: null,
    checksTimeoutAt: null,
  });
  const backend: MergeQueueBackend = {
    kind: "github",
    can: { namedQueues: false, jump: true, batches: false },
    cannot: {},
    state: async () => null,
    entry: async (_repo, number) => (queued.has(number) ? entry(number) : null),
    commands: {
      via: "api",
      enqueue: async (_repo, p) => {
        calls.push(`enqueue ${p.number}`);
        queued.add(p.number);
        return entry(p.number);
      },
      dequeue: async (_repo, number) => {
        calls.push(`dequeue ${number}`);
        return queued.delete(number);
      },
    },
  };
  const queues: MergeQueues = { for: async () => backend, relaying: null };
  return { queues, calls, queued };
}

describe("queue and dequeue where the merge queue takes them directly", () => {
  const queue: Command = { name: "queue", repo, pull: 42 };
  const dequeue: Command = { name: "dequeue", repo, pull: 42 };

  it("queues and dequeues once across two runs of each command", async () => {
    const { queues, calls } = directQueue();
    const first = await run("d-1", queue, { queues });
    expect(await run("d-1", queue, { queues })).toEqual(first);
    await run("d-2", dequeue, { queues });
    await run("d-2", dequeue, { queues });
    expect(calls).toEqual(["enqueue 42", "dequeue 42"]);
  });

  it("finds the pull request queued, or out of the queue, after a run that began the call and died", async () => {
    const { queues, calls, queued } = directQueue();
    queued.add(42);
    await store.beginCommandStep("d-1", "queue.enqueue", NOW);
    expect(await run("d-1", queue, { queues })).toMatchObject({ direct: { entry: { position: 1 } } });
    queued.delete(42);
    await store.beginCommandStep("d-2", "queue.dequeue", NOW);
    expect(await run("d-2", dequeue, { queues })).toMatchObject({ name: "dequeue" });
    expect(calls).toEqual([]);
    // Begun, and not found made: made.
    await store.beginCommandStep("d-3", "queue.enqueue", NOW);
    await run("d-3", queue, { queues });
    expect(calls).toEqual(["enqueue 42"]);
  });
});

describe("freeze windows", () => {
  const freeze = {
    name: "freeze",
    repo,
    freezeName: "release",
    schedule: { kind: "daily", start: { hour: 18, minute: 0 }, end: { hour: 20, minute: 0 } },
    zone: "UTC",
    except: [],
  } as Command;

  it("adds a freeze once across two runs: the second is not told its name is taken", async () => {
    const first = await run("d-1", freeze);
    expect(await run("d-1", freeze)).toEqual(first);
    expect((await store.listFreezes(repo)).map((f) => f.name)).toEqual(["release"]);
    // Another command with the same name is refused.
    const refused = await failure(run("d-2", freeze));
    expect(refused.code).toBe(CommandErrorCode.InvalidArgument);
  });

  it("finds the freeze a run added and did not record", async () => {
    await store.beginCommandStep("d-1", "freeze.add", NOW);
    await store.addFreeze({
      id: "",
      repository: repo,
      name: "release",
      schedule: { kind: "daily", start: { hour: 18, minute: 0 }, end: { hour: 20, minute: 0 } },
      zone: "UTC",
      createdBy: "alice",
      surface: "github",
      createdAt: NOW,
    });
    expect(await run("d-1", freeze)).toMatchObject({ freeze: { number: 1, name: "release" } });
    expect(await store.listFreezes(repo)).toHaveLength(1);
  });

  it("removes a freeze once across two runs, and finds it gone after a run that removed it and died", async () => {
    await run("d-1", freeze);
    const unfreeze: Command = { name: "unfreeze", repo, which: { name: "release" } };
    const removed = await run("d-2", unfreeze);
    expect(removed).toMatchObject({ removed: { number: 1, name: "release" } });
    expect(await run("d-2", unfreeze)).toEqual(removed);
    // A run that read its freeze, began removing it, removed it and died: the next says it removed it.
    await run("d-3", freeze);
    const steps = storedSteps(store, "d-4", log, () => NOW);
    await steps.once("freeze.target", async () => ({ number: 1, name: "release" }));
    await store.beginCommandStep("d-4", "freeze.remove", NOW);
    await store.deleteFreeze(repo, { number: 1 });
    expect(await run("d-4", unfreeze)).toMatchObject({ removed: { number: 1, name: "release" } });
  });
});
