import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Api, pullRequest, start } from "./helpers.js";
import { pullDetailsSchema, statusSchema } from "./schemas.js";

let api: Api;
const START = Date.parse("2025-09-15T14:00:00Z");

beforeEach(async () => {
  api = await start({ seed: "demo", startTime: START });
});

afterEach(async () => {
  await api.sim.close();
});

describe("demo seed", () => {
  it("has the live queue the sandbox shows", async () => {
    const status = statusSchema.parse(
      await api.getJson("/repos/acme/widgets/merge-queue/status?branch=main"),
    );
    const [running, bisecting, waiting] = status.batches;
    expect(running?.status.code).toBe("running");
    expect(running?.pull_requests).toHaveLength(2);
    expect(bisecting?.status.code).toBe("bisecting");
    expect(bisecting?.sub_batches?.map((sub) => sub.status.code)).toEqual(["waiting_for_merge", "running"]);
    expect(waiting?.status.code).toBe("waiting_for_previous_batches");
    const scoped = status.waiting_pull_requests.filter((pull) => pull.scopes.length > 0);
    expect(scoped.length).toBeGreaterThan(0);
    expect(status.waiting_pull_requests.every((pull) => (pull.github_labels ?? []).length > 0)).toBe(true);
    expect(Object.keys(status.scope_queues ?? {})).toEqual(["__default__", "frontend"]);
    for (const pull of [
      ...status.batches.flatMap((batch) => batch.pull_requests),
      ...status.waiting_pull_requests,
    ]) {
      expect(pull.title.length).toBeGreaterThan(10);
      expect(pull.author.login).not.toBe("");
    }
    expect(status.pause).toBeNull();
  });

  it("finds the culprit of the bisecting batch and merges the rest as the clock advances", async () => {
    api.sim.clock.advance(3 * 60_000);
    const leaves = api.sim.state
      .events("acme/widgets")
      .filter((event) => event.type === "action.queue.leave" && Date.parse(event.received_at) > START)
      .map((event) => [event.pull_request, event.metadata.dequeue_code]);
    expect(leaves).toContainEqual([229, "CHECKS_FAILED"]);
    for (const number of [231, 233, 226, 228, 234, 235]) expect(leaves).toContainEqual([number, "PR_MERGED"]);
  });

  it("knows open pull requests that a test can queue", async () => {
    for (const number of [101, 102, 103, 104, 105]) {
      expect(api.sim.state.getPullRequest("acme/widgets", number)?.baseRef).toBe("main");
      expect((await api.get(`/repos/acme/widgets/merge-queue/pull/${number}`)).status).toBe(404);
    }
    const reply = api.sim.state.relayCommand("acme/widgets", { body: "@mergifyio queue", pull_request: 101 });
    expect(reply.accepted).toBe(true);
    const details = pullDetailsSchema.parse(await api.getJson("/repos/acme/widgets/merge-queue/pull/101"));
    expect(details.position).toBe(10);
    api.sim.clock.advance(15 * 60_000);
    const merged = api.sim.state
      .events("acme/widgets")
      .filter((event) => event.type === "action.queue.merged")
      .map((event) => event.pull_request);
    expect(merged).toContain(101);
  });

  it("can requeue a pull request that failed in the log's history", () => {
    api.sim.state.setChecks("acme/widgets", 219, "success");
    expect(
      api.sim.state.relayCommand("acme/widgets", { body: "@mergifyio requeue", pull_request: 219 }).accepted,
    ).toBe(true);
    expect(
      api.sim.state.relayCommand("acme/widgets", {
        body: "@mergifyio queue",
        pull_request: pullRequest(300, { base_ref: "release/1.x" }),
      }).accepted,
    ).toBe(true);
    // 241 and 300 fill a batch, which starts at once next to the running one.
    const release = api.sim.state.status("acme/widgets", "release/1.x");
    expect(release.batches.map((batch) => batch.pull_requests.map((pull) => pull.number))).toEqual([
      [240],
      [241, 300],
    ]);
  });

  it("is the same shape on every start", async () => {
    const other = await start({ seed: "demo", startTime: START });
    try {
      const shape = (state: typeof api.sim.state) =>
        state.events("acme/widgets").map((event) => [event.type, event.pull_request, event.received_at]);
      expect(shape(other.sim.state)).toEqual(shape(api.sim.state));
    } finally {
      await other.sim.close();
    }
  });
});
