import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { GateEntry } from "../../../src/backends/github/gate/decide.js";
import type { GateGitHub, GateRun } from "../../../src/backends/github/gate/github.js";
import { GATE_RECONSIDER_KIND, GitHubGate } from "../../../src/backends/github/gate/index.js";
import type { QueueEvent } from "../../../src/core/queue.js";
import { createLogger } from "../../../src/logger.js";
import { Repo } from "../../../src/repo.js";
import { openStore, type Store } from "../../../src/store/index.js";
import { WorkRunner } from "../../../src/work/runner.js";

/**
 * Drains, exemptions and pull requests let through, as the gate decides them: a real store (SQLite in
 * memory, shared by two gates as two replicas share PostgreSQL), GitHub's check runs as the gate's port
 * records them, and GitHub's merge queue as a list the test moves.
 */
const SHIPS = Repo.of("acme", "ships");
const MAIN = { repo: SHIPS, branch: "main" };
const T0 = new Date("2026-11-20T10:00:00Z");

let store: Store;
let now: Date;
/** GitHub's merge queue of main, head first. */
let queue: GateEntry[];
let readFails: boolean;
/** Every check run made, by id, as GitHub keeps it (the latest of a commit counts). */
let runs: Map<number, GateRun & { headSha: string }>;
let announced: QueueEvent[];

const github: GateGitHub = {
  async createCheckRun(_repo, run) {
    const id = runs.size + 1;
    runs.set(id, { ...run });
    return id;
  },
  async updateCheckRun(_repo, id, run) {
    const made = runs.get(id);
    if (!made) throw new Error(`no check run ${id}`);
    runs.set(id, { ...made, ...run });
  },
  defaultBranch: async () => "main",
  branchRules: async () => [],
};

/** Each replica's runner of durable work, its latest gate's. */
const runners = new Map<string, WorkRunner>();

/** Runs what is due of the held gates' decisions on `owner`'s runner (as its runner would, by itself). */
async function decideDue(owner = "replica-1"): Promise<void> {
  gate(owner);
  await runners.get(owner)?.drain(GATE_RECONSIDER_KIND);
}

function gate(owner = "replica-1"): GitHubGate {
  const work = new WorkRunner({ store, owner, now: () => now, logger: createLogger({ level: "silent" }) });
  runners.set(owner, work);
  return new GitHubGate({
    store,
    github,
    checkName: "yardmaster/gate",
    owner,
    now: () => now,
    work,
    claimsNow: () => now,
    logger: createLogger({ level: "silent" }),
    announce: async (_repo, event) => {
      announced.push(event);
    },
    entries: async () => {
      if (readFails) throw new Error("GitHub is down");
      return { entries: queue.map((e) => ({ ...e, labels: [...e.labels] })), complete: true };
    },
  });
}

const sha = (n: number, round = 1) =>
  `${n}`.padStart(4, "0").repeat(10).slice(0, 38) + `${round}`.padStart(2, "0");
/** GitHub makes the merge group of #n (holding every entry ahead of it). */
const group = (g: GitHubGate, n: number, round = 1) =>
  g.onMergeGroup({
    repository: SHIPS,
    baseRef: "main",
    headSha: sha(n, round),
    pullNumber: n,
    pullHeadSha: "f".repeat(40),
  });
/** The gate GitHub reads on #n's merge group. */
const gateOf = (n: number, round = 1) => [...runs.values()].filter((r) => r.headSha === sha(n, round)).at(-1);
const enqueue = (n: number, labels: string[] = []) => {
  now = new Date(now.getTime() + 1_000);
  queue.push({ number: n, enteredAt: now.toISOString(), labels });
};
const leave = (n: number) => {
  queue = queue.filter((e) => e.number !== n);
};
const kinds = () => announced.map((e) => e.kind);

beforeEach(async () => {
  store = await openStore({ kind: "sqlite", path: ":memory:" });
  now = T0;
  queue = [];
  readFails = false;
  runs = new Map();
  announced = [];
});
afterEach(async () => {
  await store.close();
});

describe("a drain", () => {
  it("passes groups of what was queued before it, holds a later entry's group, and over a pause lets its held groups through", async () => {
    const g = gate();
    await g.pause(MAIN, { reason: "deploy", by: "alice" });
    enqueue(10);
    enqueue(11);
    await group(g, 10);
    await group(g, 11);
    expect(gateOf(11)).toMatchObject({ status: "queued", title: "Paused by alice: deploy" });

    const drained = await g.drain(MAIN, { reason: "release 1.2", by: "bob" });
    expect(drained).toMatchObject({
      reason: "release 1.2",
      by: "bob",
      drain: { drainedAt: null, entries: 2 },
    });
    // The groups the pause held hold only entries queued before the drain: they pass now.
    expect(gateOf(10)).toMatchObject({ status: "completed", title: "Queued before the drain" });
    expect(gateOf(11)).toMatchObject({ status: "completed", title: "Queued before the drain" });

    enqueue(12);
    await group(g, 12);
    expect(gateOf(12)).toMatchObject({ status: "queued", title: "Draining by bob: release 1.2" });
    expect(gateOf(12)?.summary).toContain("This merge group holds #12, queued since, so it waits.");
    expect(announced.filter((e) => e.kind === "paused").map((e) => e.kind === "paused" && e.drain)).toEqual([
      undefined,
      true,
    ]);
    expect(await g.current(MAIN)).toMatchObject({ drain: { drainedAt: null } });
  });

  it("is said drained once, whichever replica hears the last earlier entry leave, and stays held", async () => {
    const [a, b] = [gate("replica-1"), gate("replica-2")];
    enqueue(10);
    enqueue(11);
    await a.drain(MAIN, { reason: "deploy", by: "alice" });
    enqueue(12);
    await group(a, 12);
    leave(10);
    await a.onDequeued({
      repository: SHIPS,
      baseRef: "main",
      pullNumber: 10,
      headSha: "f".repeat(40),
      reason: "MERGE",
    });
    expect(kinds()).not.toContain("drained");
    // GitHub may still list the entry it just removed: it is not counted.
    await Promise.all(
      [a, b].map((g) =>
        g.onDequeued({
          repository: SHIPS,
          baseRef: "main",
          pullNumber: 11,
          headSha: "f".repeat(40),
          reason: "MERGE",
        }),
      ),
    );
    leave(11);
    await Promise.all([a.sweep(), b.sweep()]);
    const drained = announced.filter((e) => e.kind === "drained");
    expect(new Set(drained.map((e) => e.id)).size).toBe(1);
    expect(drained[0]).toMatchObject({
      kind: "drained",
      by: "alice",
      reason: "deploy",
      branch: "main",
      scope: "branch",
    });
    expect((await a.current(MAIN))?.drain?.drainedAt).toBe(now.toISOString());
    // Still held (its check run keeps the words it was made with): #12's group waits until unpaused.
    expect(gateOf(12)).toMatchObject({ status: "queued", title: "Draining by alice: deploy" });
    announced = [];
    await a.sweep();
    expect(kinds()).toEqual([]);
    expect(await a.resume(MAIN, "alice")).toEqual({ branch: "main" });
    expect(gateOf(12)).toMatchObject({ status: "completed" });
  });

  it("of an empty queue is drained at once; of a queue GitHub lists only in part is refused", async () => {
    const g = gate();
    const drained = await g.drain(MAIN, { reason: "deploy", by: "alice" });
    expect(drained.drain?.drainedAt).toBe(now.toISOString());
    expect(kinds()).toEqual(["paused", "drained"]);
    await g.resume(MAIN, "alice");

    const partial = new GitHubGate({
      store,
      github,
      checkName: "yardmaster/gate",
      owner: "r",
      now: () => now,
      work: new WorkRunner({ store, owner: "r", now: () => now, logger: createLogger({ level: "silent" }) }),
      claimsNow: () => now,
      logger: createLogger({ level: "silent" }),
      entries: async () => ({ entries: [{ number: 1, enteredAt: null, labels: [] }], complete: false }),
    });
    await expect(partial.drain(MAIN, { reason: "deploy", by: "alice" })).rejects.toMatchObject({
      code: "not_on_this_queue",
    });
    expect(await g.current(MAIN)).toBeNull();
  });
});

describe("a pause with exemptions", () => {
  it("passes a group whose pull requests all carry an exempt label, holds the rest, and reads labels at each group", async () => {
    const g = gate();
    const paused = await g.pause(MAIN, { reason: "freeze", by: "alice", except: ["Hotfix"] });
    expect(paused.except).toEqual(["hotfix"]);
    expect(announced.at(-1)).toMatchObject({ kind: "paused", except: ["hotfix"] });
    enqueue(20, ["hotfix"]);
    await group(g, 20);
    expect(gateOf(20)).toMatchObject({
      status: "completed",
      title: "Exempt from the pause: labelled hotfix",
    });
    enqueue(21);
    await group(g, 21);
    expect(gateOf(21)).toMatchObject({ status: "queued", title: "Paused by alice: freeze" });
    // A label added later counts at the next group GitHub makes (here, once #20 merged).
    leave(20);
    const entry = queue.find((e) => e.number === 21);
    entry?.labels.push("hotfix");
    await group(g, 21, 2);
    expect(gateOf(21, 2)).toMatchObject({ status: "completed" });
    expect(gateOf(21)).toMatchObject({ status: "queued" });
  });

  it("holds a group GitHub could not be read for, and decides it again after a backoff", async () => {
    const g = gate();
    await g.pause(MAIN, { reason: "freeze", by: "alice", except: ["hotfix"] });
    enqueue(22, ["hotfix"]);
    readFails = true;
    await group(g, 22);
    expect(gateOf(22)).toMatchObject({ status: "queued" });
    await g.sweep();
    await decideDue();
    expect(gateOf(22)).toMatchObject({ status: "queued" });
    readFails = false;
    // Not before its backoff (GitHub could not be read: 5 s), then by one of two replicas' runners.
    await decideDue();
    expect(gateOf(22)).toMatchObject({ status: "queued" });
    now = new Date(now.getTime() + 10_000);
    await Promise.all([decideDue(), decideDue("replica-2")]);
    expect(gateOf(22)).toMatchObject({
      status: "completed",
      title: "Exempt from the pause: labelled hotfix",
    });
  });
});

describe("letting one through", () => {
  it("passes the group of a pull request alone at once, and says who let it through", async () => {
    const g = gate();
    await g.pause(MAIN, { reason: "incident", by: "alice" });
    enqueue(30);
    await group(g, 30);
    expect(await g.letThrough({ ...MAIN, pull: 30 }, { by: "carol", confirm: false })).toEqual({
      kind: "passed",
      branch: "main",
      pulls: [30],
      passedNow: true,
    });
    expect(gateOf(30)).toMatchObject({ status: "completed", title: "Let through by carol" });
    expect(announced.at(-1)).toMatchObject({ kind: "let-through", by: "carol", pulls: [30], branch: "main" });
  });

  it("names the others its group holds and does nothing until confirmed; then passes that group, made again too", async () => {
    const g = gate();
    await g.pause(MAIN, { reason: "incident", by: "alice" });
    enqueue(31);
    enqueue(32);
    await group(g, 31);
    await group(g, 32);
    expect(await g.letThrough({ ...MAIN, pull: 32 }, { by: "carol", confirm: false })).toEqual({
      kind: "others",
      branch: "main",
      others: [31],
    });
    expect(gateOf(32)).toMatchObject({ status: "queued" });
    expect(kinds()).not.toContain("let-through");
    expect(await g.letThrough({ ...MAIN, pull: 32 }, { by: "carol", confirm: true })).toMatchObject({
      kind: "passed",
      pulls: [31, 32],
      passedNow: true,
    });
    // #31's own group passes too: GitHub merges #32's group once the groups ahead within it passed.
    expect(gateOf(32)).toMatchObject({ status: "completed" });
    expect(gateOf(31)).toMatchObject({ status: "completed", title: "Let through by carol" });
    // GitHub makes the group again (something behind it moved): it passes again, holding the same.
    await group(g, 32, 2);
    expect(gateOf(32, 2)).toMatchObject({ status: "completed", title: "Let through by carol" });
    // A group that holds another one ahead of it now is held.
    queue.unshift({ number: 29, enteredAt: now.toISOString(), labels: [] });
    await group(g, 32, 3);
    expect(gateOf(32, 3)).toMatchObject({ status: "queued" });
  });

  it("says when the branch is not held, or the pull request is not queued", async () => {
    const g = gate();
    expect(await g.letThrough({ ...MAIN, pull: 40 }, { by: "carol", confirm: false })).toEqual({
      kind: "not-held",
      branch: "main",
    });
    await g.pause(MAIN, { reason: "incident", by: "alice" });
    expect(await g.letThrough({ ...MAIN, pull: 40 }, { by: "carol", confirm: true })).toEqual({
      kind: "not-queued",
      branch: "main",
    });
  });
});
