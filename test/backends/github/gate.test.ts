import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  GATE_CHECK_KIND,
  GATE_COMPLETE_KIND,
  GitHubGate,
  gateCheckItem,
  octokitGateGitHub,
} from "../../../src/backends/github/gate/index.js";
import { handleGateWebhook } from "../../../src/backends/github/gate/webhooks.js";
import type { PullRequestInfo } from "../../../src/commands/ports.js";
import { createLogger } from "../../../src/logger.js";
import { Repo } from "../../../src/repo.js";
import { openStore, type Store } from "../../../src/store/index.js";
import { WorkRunner } from "../../../src/work/runner.js";
import { TestOctokit } from "../../helpers/github-app.js";

/** The gate check against GitHub's REST API (nock) and a real store (SQLite in memory). */
const API = "https://api.github.com";
const SHIPS = Repo.of("acme", "ships");
const GATE = "yardmaster/gate";
const PR_SHA = "1".repeat(40);
const GROUP_SHA = "2".repeat(40);
const T0 = new Date("2026-11-20T10:00:00Z");

let store: Store;
let now: Date;
let enqueued: Array<{ number: number; jump: boolean }>;
let commented: Array<{ number: number; body: string }>;
let pulls: Map<number, PullRequestInfo>;
/** Each replica's runner of durable work, its latest gate's (the gates' kinds registered with it). */
let runners: Map<string, WorkRunner>;

/** Runs what is due of the gates' durable work on `owner`'s runner (as its runner would, by itself). */
async function runDue(owner: string): Promise<void> {
  gate(owner);
  const runner = runners.get(owner);
  await runner?.drain(GATE_CHECK_KIND);
  await runner?.drain(GATE_COMPLETE_KIND);
}

function gate(
  owner = "replica-1",
  onGitHubQueue?: (repo: Repo, branch: string) => Promise<boolean>,
  /** A pull request GitHub refuses to enqueue. */
  refused?: number,
): GitHubGate {
  const octokit = new TestOctokit({ auth: { token: "installation-token" } });
  const work = new WorkRunner({ store, owner, now: () => now, logger: createLogger({ level: "silent" }) });
  runners.set(owner, work);
  return new GitHubGate({
    store,
    github: octokitGateGitHub(async () => octokit),
    checkName: GATE,
    owner,
    now: () => now,
    work,
    claimsNow: () => now,
    logger: createLogger({ level: "silent" }),
    ...(onGitHubQueue ? { onGitHubQueue } : {}),
    putBack: {
      pullRequest: async (_repo, number) => pulls.get(number) ?? null,
      enqueue: async (_repo, pull, options) => {
        if (pull.number === refused) throw new Error("GitHub refused it");
        enqueued.push({ number: pull.number, jump: options.jump });
      },
      comment: async (_repo, number, body) => {
        commented.push({ number, body });
      },
    },
  });
}

const groupPayload = (number: number, headSha = GROUP_SHA, base = "main") => ({
  action: "checks_requested",
  merge_group: {
    head_sha: headSha,
    head_ref: `refs/heads/gh-readonly-queue/${base}/pr-${number}-${PR_SHA}`,
    base_ref: `refs/heads/${base}`,
  },
  repository: { name: "ships", owner: { login: "acme" } },
});

function pull(number: number): PullRequestInfo {
  return {
    number,
    title: `#${number}`,
    url: "",
    state: "open",
    merged: false,
    baseRef: "main",
    headSha: PR_SHA,
    author: { login: "alice", id: 1 },
  };
}

beforeEach(async () => {
  store = await openStore({ kind: "sqlite", path: ":memory:" });
  runners = new Map();
  now = T0;
  enqueued = [];
  commented = [];
  pulls = new Map();
});
afterEach(async () => {
  await store.close();
});

describe("the gate check", () => {
  it("completes success at once on a merge group while the branch runs, once for a redelivery", async () => {
    const made = nock(API)
      .post("/repos/acme/ships/check-runs", (body) => {
        expect(body).toMatchObject({
          name: GATE,
          head_sha: GROUP_SHA,
          status: "completed",
          conclusion: "success",
        });
        return true;
      })
      .reply(201, { id: 501 });
    await handleGateWebhook(gate(), "merge_group", groupPayload(11));
    await handleGateWebhook(gate("replica-2"), "merge_group", groupPayload(11));
    expect(made.isDone()).toBe(true);
  });

  it("is queued with who paused and why while paused, and completes once on resume, oldest group first", async () => {
    nock(API).get("/repos/acme/ships").reply(200, { default_branch: "main" });
    await gate().pause({ repo: SHIPS, branch: null }, { reason: "deploy <now>", by: "alice" });
    const created: unknown[] = [];
    nock(API)
      .post("/repos/acme/ships/check-runs", (body) => {
        created.push(body);
        return true;
      })
      .reply(201, { id: 601 })
      .post("/repos/acme/ships/check-runs")
      .reply(201, { id: 602 });
    await handleGateWebhook(gate(), "merge_group", groupPayload(11, "a".repeat(40)));
    await handleGateWebhook(gate(), "merge_group", groupPayload(12, "b".repeat(40)));
    expect(created[0]).toMatchObject({
      status: "queued",
      output: { title: "Paused by alice: deploy <now>" },
    });
    expect((created[0] as { output: { summary: string } }).output.summary).toContain(
      "Reason: deploy &lt;now&gt;",
    );
    expect(await gate().current({ repo: SHIPS, branch: "main" })).toEqual({
      reason: "deploy <now>",
      by: "alice",
      pausedAt: T0.toISOString(),
      branch: "main",
    });

    const completed: number[] = [];
    nock(API)
      .get("/repos/acme/ships")
      .times(2)
      .reply(200, { default_branch: "main" })
      .patch(/\/repos\/acme\/ships\/check-runs\/\d+/)
      .times(2)
      .reply(200, (uri, body) => {
        expect(body).toMatchObject({ status: "completed", conclusion: "success" });
        completed.push(Number(uri.split("/").at(-1)));
        return {};
      });
    const [one, two] = await Promise.all([
      gate().resume({ repo: SHIPS, branch: null }, "bob"),
      gate("replica-2").resume({ repo: SHIPS, branch: null }, "bob"),
    ]);
    expect([one, two].filter(Boolean)).toHaveLength(1);
    expect(completed).toEqual([601, 602]);
  });

  it("titles its check runs on one line, without bidirectional controls, at most 200 characters", async () => {
    const reason = `deploy\u202E\nof\r\n  ${"x".repeat(300)}`;
    await store.putGatePause({ repository: SHIPS, branch: "main", reason, by: "al\u2066ice", pausedAt: T0 });
    const titles: string[] = [];
    const title = (body: { output: { title: string } }) => {
      titles.push(body.output.title);
      return true;
    };
    nock(API).post("/repos/acme/ships/check-runs", title).reply(201, { id: 651 });
    await handleGateWebhook(gate(), "merge_group", groupPayload(11));
    nock(API).patch("/repos/acme/ships/check-runs/651", title).reply(200, {});
    await gate().resume({ repo: SHIPS, branch: "main" }, "bob\u202E\nthe builder");
    expect(titles[0]).toBe(`Paused by alice: deploy of ${"x".repeat(300)}`.slice(0, 200));
    expect(titles[0]).toHaveLength(200);
    expect(titles[1]).toBe("Resumed by bob the builder");
  });

  it("always succeeds on a pull request's head, paused or not", async () => {
    await store.putGatePause({ repository: SHIPS, branch: "main", reason: "x", by: "a", pausedAt: T0 });
    const made = nock(API)
      .post("/repos/acme/ships/check-runs", (body) => body.status === "completed" && body.head_sha === PR_SHA)
      .reply(201, { id: 701 });
    await handleGateWebhook(gate(), "pull_request", {
      action: "synchronize",
      number: 11,
      pull_request: { head: { sha: PR_SHA }, base: { ref: "main" } },
      repository: { name: "ships", owner: { login: "acme" } },
    });
    expect(made.isDone()).toBe(true);
  });

  it("reports no gate on a pull request whose base branch Mergify serves (auto)", async () => {
    // No GitHub call is expected: nock refuses any.
    await handleGateWebhook(
      gate("replica-1", async () => false),
      "pull_request",
      {
        action: "opened",
        number: 11,
        pull_request: { head: { sha: PR_SHA }, base: { ref: "main" } },
        repository: { name: "ships", owner: { login: "acme" } },
      },
    );
    expect(await store.getGateCheck(SHIPS, PR_SHA, GATE)).toBeNull();
  });

  it("keeps its claim when GitHub refuses the check run, and a runner makes it after a backoff", async () => {
    nock(API).post("/repos/acme/ships/check-runs").reply(502, { message: "bad gateway" });
    await handleGateWebhook(gate(), "merge_group", groupPayload(11));
    // Kept: a redelivery finds the gate's work item, and the runners wait for the backoff (nock refuses any call).
    await handleGateWebhook(gate("replica-2"), "merge_group", groupPayload(11));
    await runDue("replica-2");
    now = new Date(T0.getTime() + 5_000);
    nock(API).post("/repos/acme/ships/check-runs").reply(502, { message: "bad gateway" });
    await runDue("replica-2");
    // Refused twice: the next try is 10 s later, not 5 s.
    now = new Date(T0.getTime() + 10_000);
    await runDue("replica-2");
    now = new Date(T0.getTime() + 15_000);
    const again = nock(API)
      .post(
        "/repos/acme/ships/check-runs",
        (body) => body.head_sha === GROUP_SHA && body.status === "completed",
      )
      .reply(201, { id: 801 });
    await Promise.all([runDue("replica-2"), runDue("replica-3")]);
    expect(again.isDone()).toBe(true);
    await runDue("replica-3");
  });

  it("puts back, in order and ahead, what GitHub removed for its check timeout while paused, and only that", async () => {
    await store.putGatePause({ repository: SHIPS, branch: "main", reason: "x", by: "alice", pausedAt: T0 });
    nock(API).post("/repos/acme/ships/check-runs").times(3).reply(201, { id: 901 });
    for (const [number, sha] of [
      [13, "c".repeat(40)],
      [14, "d".repeat(40)],
      [15, "e".repeat(40)],
    ] as const) {
      await handleGateWebhook(gate(), "merge_group", groupPayload(number, sha));
    }
    const dequeued = (number: number, reason: string) =>
      handleGateWebhook(gate(), "pull_request", {
        action: "dequeued",
        number,
        reason,
        pull_request: { head: { sha: PR_SHA }, base: { ref: "main" } },
        repository: { name: "ships", owner: { login: "acme" } },
      });
    await dequeued(13, "CI_TIMEOUT");
    await dequeued(14, "CI_TIMEOUT");
    await dequeued(15, "MANUAL");
    pulls.set(13, pull(13));
    pulls.set(14, pull(14));
    pulls.set(15, pull(15));
    nock(API)
      .patch(/check-runs/)
      .times(3)
      .reply(200, {});
    expect(await gate().resume({ repo: SHIPS, branch: "main" }, "bob")).toEqual({ branch: "main" });
    expect(enqueued).toEqual([
      { number: 14, jump: true },
      { number: 13, jump: true },
    ]);
    expect(commented.map((c) => c.number)).toEqual([13, 14]);
    expect(commented[0]?.body).toContain("unpaused by bob");
  });

  it("puts back the other timed-out pull requests when GitHub refuses one", async () => {
    await store.putGatePause({ repository: SHIPS, branch: "main", reason: "x", by: "alice", pausedAt: T0 });
    nock(API).post("/repos/acme/ships/check-runs").times(3).reply(201, { id: 903 });
    for (const [number, sha] of [
      [13, "c".repeat(40)],
      [14, "d".repeat(40)],
      [15, "e".repeat(40)],
    ] as const) {
      await handleGateWebhook(gate(), "merge_group", groupPayload(number, sha));
      await gate().onDequeued({
        repository: SHIPS,
        baseRef: "main",
        pullNumber: number,
        headSha: PR_SHA,
        reason: "CI_TIMEOUT",
      });
      pulls.set(number, pull(number));
    }
    nock(API)
      .patch(/check-runs/)
      .times(3)
      .reply(200, {});
    const refusing = gate("replica-1", undefined, 14);
    expect(await refusing.resume({ repo: SHIPS, branch: "main" }, "bob")).toEqual({ branch: "main" });
    expect(enqueued).toEqual([
      { number: 15, jump: true },
      { number: 13, jump: true },
    ]);
    expect(commented.map((c) => c.number)).toEqual([13, 15]);
  });

  it("leaves a timed-out pull request whose head moved or that was closed", async () => {
    await store.putGatePause({ repository: SHIPS, branch: "main", reason: "x", by: "alice", pausedAt: T0 });
    nock(API).post("/repos/acme/ships/check-runs").times(2).reply(201, { id: 902 });
    await handleGateWebhook(gate(), "merge_group", groupPayload(13, "c".repeat(40)));
    await handleGateWebhook(gate(), "merge_group", groupPayload(14, "d".repeat(40)));
    for (const number of [13, 14]) {
      const removed = { repository: SHIPS, baseRef: "main", headSha: PR_SHA, reason: "CI_TIMEOUT" };
      await gate().onDequeued({ ...removed, pullNumber: number });
    }
    pulls.set(13, { ...pull(13), headSha: "f".repeat(40) });
    pulls.set(14, { ...pull(14), state: "closed" });
    nock(API)
      .patch(/check-runs/)
      .times(2)
      .reply(200, {});
    await gate().resume({ repo: SHIPS, branch: "main" }, "bob");
    expect(enqueued).toEqual([]);
  });
});

describe("the gate's sweep", () => {
  /** `owner` claimed the gate of a merge group (its work item, for the gates' 60 s lease) and died. */
  const claimed = async (headSha: string, pullNumber: number, owner = "replica-1") => {
    const head = { repository: SHIPS, baseRef: "main", headSha, pullNumber, kind: "group" as const };
    const until = new Date(T0.getTime() + 60_000);
    const item = { ...gateCheckItem(head, GATE, T0), claim: { owner, until }, when: "absent" as const };
    return (await store.scheduleWork(item)) !== null;
  };

  it("makes the check run of a claim whose replica died, once across replicas, queued while paused", async () => {
    await store.putGatePause({
      repository: SHIPS,
      branch: "main",
      reason: "deploy",
      by: "alice",
      pausedAt: T0,
    });
    await store.holdGateEntry({
      repository: SHIPS,
      branch: "main",
      pauseId: (await store.getGatePause(SHIPS, "main"))?.pauseId ?? "",
      pullNumber: 11,
      pullHeadSha: PR_SHA,
      at: T0,
    });
    // replica-1 claimed the gate and died before making its check run.
    expect(await claimed(GROUP_SHA, 11)).toBe(true);
    // Within the claim's lease, a redelivery and the runners leave it (nock refuses any call).
    now = new Date(T0.getTime() + 30_000);
    await handleGateWebhook(gate("replica-2"), "merge_group", groupPayload(11));
    await runDue("replica-2");
    now = new Date(T0.getTime() + 61_000);
    const created: unknown[] = [];
    nock(API)
      .post("/repos/acme/ships/check-runs", (body) => {
        created.push(body);
        return true;
      })
      .reply(201, { id: 1001 });
    // At the lapse, two replicas' runners: one takes it over and makes it, once.
    await Promise.all([runDue("replica-2"), runDue("replica-3")]);
    expect(created).toEqual([
      expect.objectContaining({
        head_sha: GROUP_SHA,
        status: "queued",
        output: expect.objectContaining({ title: "Paused by alice: deploy" }),
      }),
    ]);
    const patched = nock(API)
      .get("/repos/acme/ships")
      .reply(200, { default_branch: "main" })
      .patch("/repos/acme/ships/check-runs/1001")
      .reply(200, {});
    expect(await gate().resume({ repo: SHIPS, branch: null }, "bob")).toEqual({ branch: "main" });
    expect(patched.isDone()).toBe(true);
  });

  it("makes a stale claim's check run a success when the branch is not paused", async () => {
    expect(await claimed(GROUP_SHA, 11)).toBe(true);
    now = new Date(T0.getTime() + 61_000);
    const made = nock(API)
      .post(
        "/repos/acme/ships/check-runs",
        (body) => body.status === "completed" && body.conclusion === "success",
      )
      .reply(201, { id: 1002 });
    await runDue("replica-2");
    expect(made.isDone()).toBe(true);
    await runDue("replica-3");
  });

  it("completes the held gates a resume left (it stopped half way), once", async () => {
    await store.putGatePause({ repository: SHIPS, branch: "main", reason: "x", by: "alice", pausedAt: T0 });
    nock(API).post("/repos/acme/ships/check-runs").reply(201, { id: 1003 });
    await handleGateWebhook(gate(), "merge_group", groupPayload(11));
    // The replica that took the pause died before completing its gates.
    await store.takeGatePause(SHIPS, "main");
    const patched = nock(API)
      .patch("/repos/acme/ships/check-runs/1003", (body) => body.conclusion === "success")
      .reply(200, {});
    await Promise.all([gate("replica-2").sweep(), gate("replica-3").sweep()]);
    expect(patched.isDone()).toBe(true);
    await gate("replica-2").sweep();
  });

  it("forgets pull requests' gates and completed gates after a week, never a held one", async () => {
    await store.putGatePause({ repository: SHIPS, branch: "main", reason: "x", by: "alice", pausedAt: T0 });
    nock(API).post("/repos/acme/ships/check-runs").times(2).reply(201, { id: 1005 });
    await handleGateWebhook(gate(), "merge_group", groupPayload(11));
    await gate().onPullHead({ repository: SHIPS, baseRef: "main", headSha: PR_SHA, pullNumber: 11 });
    now = new Date(T0.getTime() + 6 * 24 * 3600_000);
    await gate().sweep();
    expect(await store.getGateCheck(SHIPS, PR_SHA, GATE)).not.toBeNull();
    now = new Date(T0.getTime() + 8 * 24 * 3600_000);
    await gate().sweep();
    expect(await store.getGateCheck(SHIPS, PR_SHA, GATE)).toBeNull();
    expect((await store.pendingGateChecks(SHIPS, "main")).map((g) => g.checkRunId)).toEqual([1005]);
  });

  it("retries a completion GitHub refused instead of marking it done", async () => {
    await store.putGatePause({ repository: SHIPS, branch: "main", reason: "x", by: "alice", pausedAt: T0 });
    nock(API).post("/repos/acme/ships/check-runs").reply(201, { id: 1004 });
    await handleGateWebhook(gate(), "merge_group", groupPayload(11));
    nock(API).patch("/repos/acme/ships/check-runs/1004").reply(502, { message: "bad gateway" });
    const resumed = await gate().resume({ repo: SHIPS, branch: "main" }, "bob");
    expect(resumed).toMatchObject({ branch: "main" });
    expect(typeof resumed === "object" && resumed.warning).toContain(
      "Not running yet: GitHub refused to complete 1 merge group's gate check on main",
    );
    expect((await store.pendingGateChecks(SHIPS, "main")).map((g) => g.checkRunId)).toEqual([1004]);
    // Not before the backoff, by the sweep nor a runner (nock refuses any call), then once.
    await gate("replica-2").sweep();
    await runDue("replica-2");
    now = new Date(T0.getTime() + 5_000);
    const retried = nock(API).patch("/repos/acme/ships/check-runs/1004").reply(200, {});
    await Promise.all([runDue("replica-2"), runDue("replica-3")]);
    expect(retried.isDone()).toBe(true);
    expect(await store.pendingGateChecks(SHIPS, "main")).toEqual([]);
  });
});
