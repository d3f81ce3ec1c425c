import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LogEventResponse, MergeQueueStatus, SimulatorOptions } from "../../../tools/simulator/index.js";
import { type Api, pullRequest, start, typesSince } from "./helpers.js";
import { eventSchema, pullDetailsSchema, statusSchema } from "./schemas.js";

const START = Date.parse("2025-07-01T09:00:00Z");
const REPO = "octo/app";
let api: Api;

async function setup(options: Partial<SimulatorOptions> = {}): Promise<void> {
  api = await start({ startTime: START, ...options });
  api.sim.state.addRepository(REPO, { branches: ["main", "stable"] });
}

beforeEach(async () => {
  await setup();
});

afterEach(async () => {
  await api.sim.close();
});

async function command(number: number, body: string, extra: Record<string, unknown> = {}) {
  const response = await api.control("POST", `/__sim/repos/${REPO}/commands`, {
    body,
    comment_id: 5000 + number,
    author: { id: 9, login: "yardmaster[bot]" },
    pull_request: pullRequest(number, extra),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { accepted: boolean; message: string };
}

async function status(branch = "main"): Promise<MergeQueueStatus> {
  return statusSchema.parse(
    await api.getJson(`/repos/${REPO}/merge-queue/status?branch=${branch}`),
  ) as unknown as MergeQueueStatus;
}

function lastId(): number {
  return api.sim.state.log.maxId;
}

function eventsSince(afterId: number): LogEventResponse[] {
  const events = api.sim.state.events(REPO).filter((event) => event.id > afterId);
  for (const event of events) eventSchema.parse(event);
  return events;
}

describe("queue to merge", () => {
  it("batches two pull requests, runs checks, merges them, with the right events", async () => {
    expect(await command(1, "@mergifyio queue\nRequested by @alice from Slack")).toEqual({
      accepted: true,
      message: expect.stringContaining("#### 🟠 The pull request is the 1st in the queue to be merged"),
      follow: "queued",
    });
    expect(typesSince(api.sim, REPO)).toEqual([
      "command.queue#1",
      "action.queue.enter#1",
      "action.queue.change#1",
    ]);
    let current = await status();
    expect(current.waiting_pull_requests.map((pull) => pull.number)).toEqual([1]);
    expect(current.mode).toBe("serial");

    const before = lastId();
    await command(2, "@mergifyio queue");
    // The batch is full: it starts at once.
    expect(typesSince(api.sim, REPO, before)).toEqual([
      "command.queue#2",
      "action.queue.enter#2",
      "action.queue.change#2",
      "action.queue.checks_start#1",
      "action.queue.checks_start#2",
    ]);
    current = await status();
    expect(current.waiting_pull_requests).toEqual([]);
    expect(current.batches).toHaveLength(1);
    const [batch] = current.batches;
    expect(batch?.status.code).toBe("running");
    expect(batch?.pull_requests.map((pull) => pull.number)).toEqual([1, 2]);
    expect(batch?.checks_summary).toEqual({ passed: 0, total: 2 });
    expect(batch?.started_at).toBe("2025-07-01T09:00:00.000Z");
    expect(batch?.estimated_merge_at).toBe("2025-07-01T09:01:00.000Z");
    expect(current.scope_queues).toEqual({ __default__: [batch?.id] });
    const details = pullDetailsSchema.parse(await api.getJson(`/repos/${REPO}/merge-queue/pull/2`));
    expect(details.position).toBe(1);
    expect(details.estimated_time_of_merge).toBe("2025-07-01T09:01:00.000Z");
    expect(details.mergeability_check?.check_type).toBe("draft_pr");

    api.sim.clock.advance(30_000);
    expect((await status()).batches[0]?.checks_summary).toEqual({ passed: 1, total: 2 });

    const beforeEnd = lastId();
    api.sim.clock.advance(30_000);
    expect(typesSince(api.sim, REPO, beforeEnd)).toEqual([
      "action.queue.checks_end#1",
      "action.queue.checks_end#2",
      "action.queue.merged#1",
      "action.queue.leave#1",
      "action.queue.merged#2",
      "action.queue.leave#2",
      "action.queue.change#2",
    ]);
    const events = eventsSince(beforeEnd);
    for (const event of events) expect(event.received_at).toBe("2025-07-01T09:01:00.000Z");
    const leave = events.find((event) => event.type === "action.queue.leave");
    expect(leave?.outcome).toBe("success");
    expect(leave?.metadata).toMatchObject({
      merged: true,
      dequeue_code: "PR_MERGED",
      unsuccessful_checks: [],
    });
    const merged = events.find((event) => event.type === "action.queue.merged");
    expect(merged?.metadata.merge_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    expect(events.at(-1)?.metadata.size).toBe(0);

    current = await status();
    expect(current.batches).toEqual([]);
    expect((await api.get(`/repos/${REPO}/merge-queue/pull/1`)).status).toBe(404);
  });

  it("starts a batch that is not full after the fill wait", async () => {
    await command(1, "@mergifyio queue");
    const details = pullDetailsSchema.parse(await api.getJson(`/repos/${REPO}/merge-queue/pull/1`));
    expect(details.estimated_time_of_merge).toBe("2025-07-01T09:01:10.000Z");
    expect(details.mergeability_check).toBeNull();
    api.sim.clock.advance(9_999);
    expect((await status()).batches).toEqual([]);
    api.sim.clock.advance(1);
    const [batch] = (await status()).batches;
    expect(batch?.status.code).toBe("running");
    expect(batch?.started_at).toBe("2025-07-01T09:00:10.000Z");
    const running = pullDetailsSchema.parse(await api.getJson(`/repos/${REPO}/merge-queue/pull/1`));
    expect(running.mergeability_check?.check_type).toBe("in_place");
    expect(running.mergeability_check?.queue_pull_request_number).toBe(1);
    api.sim.clock.advance(60_000);
    expect(api.sim.state.events(REPO).at(-2)).toMatchObject({
      type: "action.queue.leave",
      received_at: "2025-07-01T09:01:10.000Z",
    });
  });

  it("runs several steps in time order within one advance", async () => {
    for (const number of [1, 2, 3, 4, 5]) await command(number, "@mergifyio queue");
    api.sim.clock.advance(10 * 60_000);
    const merges = api.sim.state
      .events(REPO)
      .filter((event) => event.type === "action.queue.merged")
      .map((event) => [event.pull_request, event.received_at]);
    expect(merges).toEqual([
      [1, "2025-07-01T09:01:00.000Z"],
      [2, "2025-07-01T09:01:00.000Z"],
      [3, "2025-07-01T09:01:00.000Z"],
      [4, "2025-07-01T09:01:00.000Z"],
      [5, "2025-07-01T09:02:00.000Z"],
    ]);
  });

  it("estimates waiting pull requests behind the train", async () => {
    for (const number of [1, 2, 3, 4, 5, 6, 7]) await command(number, "@mergifyio queue");
    const current = await status();
    expect(current.batches.map((batch) => batch.estimated_merge_at)).toEqual([
      "2025-07-01T09:01:00.000Z",
      "2025-07-01T09:01:00.000Z",
    ]);
    expect(current.waiting_pull_requests.map((pull) => [pull.number, pull.estimated_merge_at])).toEqual([
      [5, "2025-07-01T09:02:00.000Z"],
      [6, "2025-07-01T09:02:00.000Z"],
      [7, "2025-07-01T09:02:00.000Z"],
    ]);
    const seventh = pullDetailsSchema.parse(await api.getJson(`/repos/${REPO}/merge-queue/pull/7`));
    expect(seventh.position).toBe(6);
  });
});

describe("failures", () => {
  it("dequeues a failing pull request alone in its batch with CHECKS_FAILED and its unsuccessful checks", async () => {
    api.sim.state.knowPullRequest(REPO, pullRequest(1));
    api.sim.state.setChecks(REPO, 1, "failure");
    await command(1, "@mergifyio queue");
    api.sim.clock.advance(10_000);
    const before = lastId();
    api.sim.clock.advance(60_000);
    expect(typesSince(api.sim, REPO, before)).toEqual([
      "action.queue.checks_end#1",
      "action.queue.leave#1",
      "action.queue.change#1",
    ]);
    const [end, leave] = eventsSince(before);
    expect(end?.outcome).toBe("failure");
    expect(end?.metadata.speculative_check_pull_request).toMatchObject({
      checks_conclusion: "failure",
      unsuccessful_checks: [{ name: "ci/test", state: "failure" }],
    });
    expect(leave?.outcome).toBe("failure");
    expect(leave?.metadata).toMatchObject({ merged: false, dequeue_code: "CHECKS_FAILED" });
    const unsuccessful = leave?.metadata.unsuccessful_checks as Record<string, unknown>[];
    expect(unsuccessful).toHaveLength(1);
    expect(unsuccessful[0]).toEqual({
      name: "ci/test",
      description: expect.any(String),
      url: expect.stringMatching(/^https:\/\//),
      details_url: expect.stringMatching(/^https:\/\//),
      state: "failure",
      avatar_url: expect.any(String),
    });
    expect((await status()).batches).toEqual([]);
  });

  it("a flaky check (times) fails until it removed the pull request that many times, then passes", async () => {
    api.sim.state.knowPullRequest(REPO, pullRequest(1));
    api.sim.state.setChecks(REPO, 1, "failure", "ci/lint", 1);
    await command(1, "@mergifyio queue");
    api.sim.clock.advance(70_000);
    expect(api.sim.state.events(REPO).filter((e) => e.type === "action.queue.leave")).toHaveLength(1);
    expect(api.sim.state.getPullRequest(REPO, 1)).toMatchObject({ checks: "success", failingCheck: null });
    await command(1, "@mergifyio queue");
    const before = lastId();
    api.sim.clock.advance(70_000);
    expect(typesSince(api.sim, REPO, before)).toContain("action.queue.merged#1");
    // Through the control endpoint too.
    api.sim.state.knowPullRequest(REPO, pullRequest(2));
    const set = await api.control("PUT", `/__sim/repos/${REPO}/pulls/2/checks`, {
      outcome: "failure",
      check: "ci/test",
      times: 2,
    });
    expect(set.status).toBe(200);
    expect(api.sim.state.getPullRequest(REPO, 2)).toMatchObject({ checks: "failure", failuresLeft: 2 });
  });

  it("bisects a failing batch: the culprit leaves, the others merge", async () => {
    await command(1, "@mergifyio queue");
    await command(2, "@mergifyio queue", {});
    api.sim.state.setChecks(REPO, 2, "failure");
    const before = lastId();
    api.sim.clock.advance(60_000);
    expect(typesSince(api.sim, REPO, before)).toEqual([
      "action.queue.checks_end#1",
      "action.queue.checks_end#2",
      "action.queue.batch_bisection_start",
      "action.queue.checks_start#1",
      "action.queue.checks_start#2",
    ]);
    const start = eventsSince(before).find((event) => event.type === "action.queue.batch_bisection_start");
    expect(start?.pull_request).toBeNull();
    expect(start?.base_ref).toBe("main");
    expect(start?.metadata).toMatchObject({
      original_batch_pr_numbers: [1, 2],
      batch_size_before_split: 2,
      number_of_sub_batches: 2,
      bisection_depth: 1,
      is_top_level: true,
    });
    const bisecting = await status();
    expect(bisecting.batches[0]?.status.code).toBe("bisecting");
    expect(
      bisecting.batches[0]?.sub_batches?.map((sub) => sub.pull_requests.map((pull) => pull.number)),
    ).toEqual([[1], [2]]);
    expect(bisecting.batches[0]?.sub_batches?.map((sub) => sub.status.code)).toEqual(["running", "running"]);

    const middle = lastId();
    api.sim.clock.advance(60_000);
    expect(typesSince(api.sim, REPO, middle)).toEqual([
      "action.queue.checks_end#1",
      "action.queue.checks_end#2",
      "action.queue.batch_bisection_end",
      "action.queue.leave#2",
      "action.queue.change#2",
      "action.queue.merged#1",
      "action.queue.leave#1",
      "action.queue.change#1",
    ]);
    const events = eventsSince(middle);
    expect(events.find((event) => event.type === "action.queue.batch_bisection_end")?.metadata).toMatchObject(
      {
        culprit_found: true,
        culprit_pr_numbers: [2],
        remaining_pr_numbers: [1],
      },
    );
    const leaves = events.filter((event) => event.type === "action.queue.leave");
    expect(
      leaves.map((event) => [event.pull_request, event.metadata.dequeue_code, event.metadata.merged]),
    ).toEqual([
      [2, "CHECKS_FAILED", false],
      [1, "PR_MERGED", true],
    ]);
    expect(leaves[0]?.metadata.unsuccessful_checks).toHaveLength(1);
  });

  it("bisects again inside a failing half", async () => {
    await api.sim.close();
    await setup({ engine: { batchSize: 4 } });
    api.sim.state.knowPullRequest(REPO, pullRequest(3));
    api.sim.state.setChecks(REPO, 3, "failure");
    for (const number of [1, 2, 3, 4]) await command(number, "@mergifyio queue");
    api.sim.clock.advance(3 * 60_000);
    const events = api.sim.state.events(REPO);
    const bisections = events.filter((event) => event.type === "action.queue.batch_bisection_start");
    expect(bisections.map((event) => event.metadata.bisection_depth)).toEqual([1, 2]);
    const leaves = events.filter((event) => event.type === "action.queue.leave");
    expect(leaves.map((event) => [event.pull_request, event.metadata.dequeue_code])).toEqual([
      [3, "CHECKS_FAILED"],
      [1, "PR_MERGED"],
      [2, "PR_MERGED"],
      [4, "PR_MERGED"],
    ]);
  });

  it("re-embarks the batch behind a failing batch, then merges it after the bisection", async () => {
    api.sim.state.knowPullRequest(REPO, pullRequest(1));
    api.sim.state.setChecks(REPO, 1, "failure");
    for (const number of [1, 2, 3, 4]) await command(number, "@mergifyio queue");
    expect((await status()).batches.map((batch) => batch.status.code)).toEqual(["running", "running"]);
    const before = lastId();
    api.sim.clock.advance(60_000);
    const aborted = eventsSince(before).filter(
      (event) => event.type === "action.queue.checks_end" && event.metadata.aborted === true,
    );
    expect(
      aborted.map((event) => [event.pull_request, event.metadata.abort_code, event.metadata.abort_status]),
    ).toEqual([
      [3, "BATCH_AHEAD_FAILED", "REEMBARKED"],
      [4, "BATCH_AHEAD_FAILED", "REEMBARKED"],
    ]);
    expect((await status()).batches.map((batch) => batch.status.code)).toEqual([
      "bisecting",
      "waiting_for_previous_batches",
    ]);
    api.sim.clock.advance(120_000);
    const merged = api.sim.state
      .events(REPO)
      .filter((event) => event.type === "action.queue.merged")
      .map((event) => event.pull_request);
    expect(merged).toEqual([2, 3, 4]);
  });
});

describe("dequeue and requeue", () => {
  it("dequeues a waiting pull request", async () => {
    await command(1, "@mergifyio queue");
    const before = lastId();
    expect(await command(1, "@mergifyio dequeue")).toMatchObject({ accepted: true });
    expect(typesSince(api.sim, REPO, before)).toEqual([
      "command.dequeue#1",
      "action.queue.leave#1",
      "action.queue.change#1",
    ]);
    const leave = eventsSince(before)[1];
    expect(leave?.outcome).toBe("neutral");
    expect(leave?.metadata).toMatchObject({ merged: false, dequeue_code: "PR_MANUALLY_DEQUEUED" });
    expect((await status()).waiting_pull_requests).toEqual([]);
  });

  it("dequeues from a running batch and restarts the rest of the batch", async () => {
    await command(1, "@mergifyio queue");
    await command(2, "@mergifyio queue");
    api.sim.clock.advance(20_000);
    const before = lastId();
    await command(1, "@mergifyio dequeue");
    expect(typesSince(api.sim, REPO, before)).toEqual([
      "command.dequeue#1",
      "action.queue.checks_end#1",
      "action.queue.checks_end#2",
      "action.queue.leave#1",
      "action.queue.change#1",
      "action.queue.checks_start#2",
    ]);
    const ends = eventsSince(before).filter((event) => event.type === "action.queue.checks_end");
    expect(
      ends.map((event) => [event.metadata.aborted, event.metadata.abort_code, event.metadata.abort_status]),
    ).toEqual([
      [true, "PR_DEQUEUED", "DEFINITIVE"],
      [true, "PR_AHEAD_DEQUEUED", "REEMBARKED"],
    ]);
    api.sim.clock.advance(60_000);
    expect(api.sim.state.events(REPO).at(-2)).toMatchObject({
      type: "action.queue.leave",
      pull_request: 2,
      metadata: { dequeue_code: "PR_MERGED" },
    });
  });

  it("refuses to dequeue a pull request that is not queued", async () => {
    const reply = await command(1, "@mergifyio dequeue");
    expect(reply).toEqual({
      accepted: false,
      message: expect.stringContaining("not queued"),
      follow: "final",
    });
    const [event] = eventsSince(0);
    expect(event).toMatchObject({ type: "command.dequeue", outcome: "failure" });
  });

  it("requeues a pull request that left without merging", async () => {
    api.sim.state.knowPullRequest(REPO, pullRequest(1));
    api.sim.state.setChecks(REPO, 1, "failure");
    await command(1, "@mergifyio queue urgent");
    api.sim.clock.advance(70_000);
    expect(api.sim.state.events(REPO).at(-2)?.metadata.dequeue_code).toBe("CHECKS_FAILED");

    api.sim.state.setChecks(REPO, 1, "success");
    const before = lastId();
    // requeue is a deprecated alias of queue: back in the queue it left.
    expect(await command(1, "@mergifyio requeue")).toEqual({
      accepted: true,
      message: expect.stringContaining(
        "> requeue\n\n#### 🟠 The pull request is the 1st in the queue to be merged",
      ),
      follow: "queued",
    });
    expect(typesSince(api.sim, REPO, before)).toEqual([
      "command.requeue#1",
      "action.queue.enter#1",
      "action.queue.change#1",
    ]);
    const [requeue, enter] = eventsSince(before);
    expect(enter?.metadata.queue_name).toBe("urgent");
    expect(enter?.metadata.session_id).toBe(requeue?.metadata.session_id);
    api.sim.clock.advance(70_000);
    expect(api.sim.state.events(REPO).at(-2)?.metadata).toMatchObject({
      merged: true,
      dequeue_code: "PR_MERGED",
    });
    // A merged pull request cannot be requeued.
    expect(await command(1, "@mergifyio requeue")).toMatchObject({ accepted: false });
  });
});

describe("pause", () => {
  it("holds merges and new batches while paused, and resumes on unpause", async () => {
    await command(1, "@mergifyio queue");
    await command(2, "@mergifyio queue");
    expect((await api.send("PUT", `/repos/${REPO}/merge-queue/pause`, { reason: "incident" })).status).toBe(
      200,
    );
    await command(3, "@mergifyio queue");
    await command(4, "@mergifyio queue");
    api.sim.clock.advance(5 * 60_000);
    const paused = await status();
    expect(paused.batches.map((batch) => batch.status.code)).toEqual(["waiting_for_merge"]);
    expect(paused.batches[0]?.estimated_merge_at).toBeNull();
    expect(paused.waiting_pull_requests.map((pull) => pull.number)).toEqual([3, 4]);
    expect(paused.pause?.paused).toBe(true);
    expect(api.sim.state.events(REPO).some((event) => event.type === "action.queue.merged")).toBe(false);

    const before = lastId();
    expect((await api.send("DELETE", `/repos/${REPO}/merge-queue/pause`)).status).toBe(204);
    expect(typesSince(api.sim, REPO, before)).toEqual([
      "queue.pause.delete",
      "action.queue.merged#1",
      "action.queue.leave#1",
      "action.queue.merged#2",
      "action.queue.leave#2",
      "action.queue.change#2",
      "action.queue.checks_start#3",
      "action.queue.checks_start#4",
    ]);
  });
});

describe("commands", () => {
  it("only reads the first line, addressed to the prefix, case-insensitively", async () => {
    expect(await command(1, "please @mergifyio queue")).toMatchObject({ accepted: false });
    expect(await command(1, "> @mergifyio queue")).toMatchObject({ accepted: false });
    expect(await command(1, "Thanks!\n@mergifyio queue")).toMatchObject({ accepted: false });
    expect(api.sim.state.events(REPO)).toEqual([]);
    expect(await command(1, "@MergifyIO Queue")).toMatchObject({ accepted: true });
  });

  it("refuses unknown commands, unknown queues and double queueing", async () => {
    expect(await command(1, "@mergifyio rebase")).toEqual({
      accepted: false,
      message: expect.stringContaining("Sorry but I didn't understand the command"),
      follow: "final",
    });
    expect(await command(1, "@mergifyio queue nightly")).toEqual({
      accepted: false,
      message: expect.stringContaining("nightly"),
      follow: "final",
    });
    expect(await command(1, "@mergifyio queue")).toMatchObject({ accepted: true });
    expect(await command(1, "@mergifyio queue")).toEqual({
      accepted: false,
      message: expect.stringContaining("already queued"),
      follow: "final",
    });
    expect(await command(9, "@mergifyio queue", { base_ref: "feature/x" })).toEqual({
      accepted: false,
      message: expect.stringContaining("feature/x"),
      follow: "final",
    });
    const outcomes = eventsSince(0)
      .filter((event) => event.type === "command.queue")
      .map((event) => event.outcome);
    expect(outcomes).toEqual(["failure", "success", "failure", "failure"]);
  });

  it("waits for a pull request's conditions, then queues it once none is unmet", async () => {
    api.sim.state.knowPullRequest(REPO, pullRequest(1));
    api.sim.state.setConditions(REPO, 1, ["label=ready", "#approved-reviews-by>=1"]);
    const reply = await command(1, "@mergifyio queue");
    expect(reply).toMatchObject({ accepted: true, follow: "waiting" });
    expect(reply.message).toContain("#### 🟠 Waiting for conditions to match");
    expect(reply.message).toContain("    - [ ] `label=ready`\n    - [ ] `#approved-reviews-by>=1`");
    expect((await status()).waiting_pull_requests).toEqual([]);
    api.sim.state.setConditions(REPO, 1, ["label=ready"]);
    expect((await status()).waiting_pull_requests).toEqual([]);
    api.sim.state.setConditions(REPO, 1, []);
    expect((await status()).waiting_pull_requests.map((pull) => pull.number)).toEqual([1]);
  });

  it("refuses a bot's commands under Mergify's default commands_restrictions", async () => {
    api.sim.state.setCommandsRestrictions(REPO, true);
    const reply = await command(1, "@mergifyio queue");
    expect(reply).toMatchObject({ accepted: false, follow: "final" });
    expect(reply.message).toContain("Command disallowed due to [command restrictions]");
    expect(reply.message).toContain("- [ ] `sender-permission>=write`");
    expect((await status()).waiting_pull_requests).toEqual([]);
    api.sim.state.setCommandsRestrictions(REPO, false);
    expect(await command(1, "@mergifyio queue")).toMatchObject({ accepted: true });
  });

  it("puts an urgent pull request ahead of the default queue", async () => {
    await command(1, "@mergifyio queue");
    await command(2, "@mergifyio queue urgent");
    const current = await status();
    // 1 and 2 are of different queues: no batch of two; urgent first.
    expect(current.waiting_pull_requests.map((pull) => pull.number)).toEqual([2, 1]);
    api.sim.clock.advance(10_000);
    const [first, second] = (await status()).batches;
    expect(first?.queue_rule_name).toBe("urgent");
    expect(second?.queue_rule_name).toBe("default");
  });

  it("records the command's author and comment in the metadata", async () => {
    await command(1, "@mergifyio queue");
    const [event] = eventsSince(0);
    expect(event?.trigger).toBe("Command: queue");
    expect(event?.metadata).toEqual({
      author: { login: "yardmaster[bot]", id: 9, type: "Bot", avatar_url: null },
      comment_id: 5001,
      session_id: expect.any(String),
      command_trigger: "comment",
      trigger_comment_url: "https://github.com/octo/app/pull/1#issuecomment-5001",
    });
  });

  it("has a programmatic equivalent and a configurable prefix", async () => {
    await api.sim.close();
    await setup({ engine: { commandPrefix: "@queuebot" } });
    api.sim.state.knowPullRequest(REPO, pullRequest(5));
    expect(api.sim.state.relayCommand(REPO, { body: "@mergifyio queue", pull_request: 5 }).accepted).toBe(
      false,
    );
    expect(api.sim.state.relayCommand(REPO, { body: "@queuebot queue", pull_request: 5 })).toMatchObject({
      accepted: true,
    });
    expect(api.sim.state.pullDetails(REPO, 5)?.position).toBe(0);
  });
});

describe("real clock", () => {
  it("advances the engine on a timer", async () => {
    await api.sim.close();
    await setup({ clock: "real", tickMs: 5, engine: { batchMaxWaitMs: 0, checksDurationMs: 20 } });
    await command(1, "@mergifyio queue");
    // Until merged, however slow the machine (a few 5 ms ticks and 20 ms of checks when idle).
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      if (api.sim.state.events(REPO).some((event) => event.type === "action.queue.merged")) break;
      await sleep(5);
    }
    expect(api.sim.state.events(REPO).map((event) => event.type)).toContain("action.queue.merged");
    expect(api.sim.clock.kind).toBe("real");
  });
});
