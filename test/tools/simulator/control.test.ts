import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SimError } from "../../../tools/simulator/index.js";
import { type Api, pullRequest, start } from "./helpers.js";
import { eventsResponseSchema } from "./schemas.js";

let api: Api;

beforeEach(async () => {
  api = await start({ startTime: Date.parse("2025-08-01T08:00:00Z") });
});

afterEach(async () => {
  await api.sim.close();
});

describe("control endpoints", () => {
  it("set a pull request's unmet queue conditions and the commands restrictions, and refuse bad ones", async () => {
    await api.control("POST", "/__sim/repos", { repository: "octo/app" });
    await api.control("POST", "/__sim/repos/octo/app/pulls", pullRequest(7));
    const bot = { id: 9, login: "yardmaster[bot]" };
    const send = async () =>
      (await (
        await api.control("POST", "/__sim/repos/octo/app/commands", {
          body: "@mergifyio queue",
          author: bot,
          pull_request: 7,
        })
      ).json()) as { accepted: boolean; message: string; follow: string };

    const restricted = await api.control("PUT", "/__sim/repos/octo/app/commands-restrictions", {
      refuse_bots: true,
    });
    expect(await restricted.json()).toEqual({ refuse_bots: true });
    expect(await send()).toMatchObject({ accepted: false, follow: "final" });
    await api.control("PUT", "/__sim/repos/octo/app/commands-restrictions", { refuse_bots: false });

    const unmet = await api.control("PUT", "/__sim/repos/octo/app/pulls/7/conditions", {
      unmet: ["label=ready"],
    });
    expect(await unmet.json()).toEqual({ number: 7, unmet: ["label=ready"] });
    expect(await send()).toMatchObject({ accepted: true, follow: "waiting" });
    expect(api.sim.state.pullDetails("octo/app", 7)).toBeNull();
    await api.control("PUT", "/__sim/repos/octo/app/pulls/7/conditions", { unmet: [] });
    expect(api.sim.state.pullDetails("octo/app", 7)).not.toBeNull();

    expect(
      (await api.control("PUT", "/__sim/repos/octo/app/pulls/7/conditions", { unmet: "x" })).status,
    ).toBe(422);
    expect((await api.control("PUT", "/__sim/repos/octo/app/pulls/8/conditions", { unmet: [] })).status).toBe(
      404,
    );
    expect((await api.control("PUT", "/__sim/repos/octo/app/commands-restrictions", {})).status).toBe(422);
  });

  it("set a person's pause begun hours ago: paused_at and the log say that instant; refuse a bad one", async () => {
    await api.control("POST", "/__sim/repos", { repository: "octo/app" });
    const paused = await api.control("PUT", "/__sim/repos/octo/app/pause", {
      reason: "Datacenter move",
      by: { id: 3, login: "carol" },
      started_seconds_ago: 5 * 3600,
    });
    expect(paused.status).toBe(200);
    expect(await paused.json()).toEqual({
      created: true,
      reason: "Datacenter move",
      paused_at: "2025-08-01T03:00:00.000Z",
    });
    expect(await api.getJson("/repos/octo/app/merge-queue/pause")).toEqual({
      paused: true,
      reason: "Datacenter move",
      paused_at: "2025-08-01T03:00:00.000Z",
    });
    const created = api.sim.state.events("octo/app").find((e) => e.type === "queue.pause.create");
    expect(created).toMatchObject({ received_at: "2025-08-01T03:00:00.000Z" });
    expect(JSON.stringify(created)).toContain('"carol"');
    // An update keeps the start.
    await api.control("PUT", "/__sim/repos/octo/app/pause", { reason: "Still moving" });
    expect(await api.getJson("/repos/octo/app/merge-queue/pause")).toMatchObject({
      paused_at: "2025-08-01T03:00:00.000Z",
    });
    expect((await api.control("PUT", "/__sim/repos/octo/app/pause", { started_seconds_ago: 1 })).status).toBe(
      422,
    );
    expect(
      (await api.control("DELETE", "/__sim/repos/octo/app/pause", { by: { id: 3, login: "carol" } })).status,
    ).toBe(204);
    expect((await api.control("DELETE", "/__sim/repos/octo/app/pause")).status).toBe(404);
  });

  it("drive a pull request from queue to merge out of process", async () => {
    const created = await api.control("POST", "/__sim/repos", {
      repository: "octo/app",
      branches: ["main", "v2"],
    });
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ repository: "octo/app", branches: ["main", "v2"] });
    expect(
      (await api.getJson<{ branches: string[] }>("/repos/octo/app/merge-queue/branches")).branches,
    ).toEqual(["main", "v2"]);

    const known = await api.control(
      "POST",
      "/__sim/repos/octo/app/pulls",
      pullRequest(42, { title: "Add widgets" }),
    );
    expect(known.status).toBe(201);
    expect(await known.json()).toMatchObject({
      number: 42,
      title: "Add widgets",
      base_ref: "main",
      checks: "success",
    });
    const listed = (await (await api.control("GET", "/__sim/repos/octo/app/pulls")).json()) as {
      pull_requests: { number: number }[];
    };
    expect(listed.pull_requests.map((pull) => pull.number)).toEqual([42]);

    const reply = await api.control("POST", "/__sim/repos/octo/app/commands", {
      body: "@mergifyio queue",
      pull_request: 42,
    });
    expect(await reply.json()).toEqual({ accepted: true, message: expect.any(String), follow: "queued" });

    const advanced = await api.control("POST", "/__sim/clock/advance", { seconds: 70 });
    expect(await advanced.json()).toEqual({ kind: "manual", now: "2025-08-01T08:01:10.000Z" });
    expect(await (await api.control("GET", "/__sim/clock")).json()).toEqual({
      kind: "manual",
      now: "2025-08-01T08:01:10.000Z",
    });

    const log = eventsResponseSchema.parse(
      await api.getJson("/repos/octo/app/logs?event_type=action.queue.leave&pull_request=42"),
    );
    expect(log.events[0]?.metadata).toMatchObject({ merged: true, dequeue_code: "PR_MERGED" });
  });

  it("sets a pull request's checks to fail", async () => {
    await api.control("POST", "/__sim/repos", { repository: "octo/app" });
    await api.control("POST", "/__sim/repos/octo/app/pulls", pullRequest(7));
    const set = await api.control("PUT", "/__sim/repos/octo/app/pulls/7/checks", {
      outcome: "failure",
      check: "lint",
    });
    expect(set.status).toBe(200);
    await api.control("POST", "/__sim/repos/octo/app/commands", {
      body: "@mergifyio queue",
      pull_request: 7,
    });
    await api.control("POST", "/__sim/clock/advance", { seconds: 70 });
    const leave = api.sim.state.events("octo/app").find((event) => event.type === "action.queue.leave");
    expect(leave?.metadata).toMatchObject({
      dequeue_code: "CHECKS_FAILED",
      unsuccessful_checks: [{ name: "lint", state: "failure" }],
    });
    expect(
      (await api.control("PUT", "/__sim/repos/octo/app/pulls/8/checks", { outcome: "failure" })).status,
    ).toBe(404);
    expect(
      (await api.control("PUT", "/__sim/repos/octo/app/pulls/7/checks", { outcome: "maybe" })).status,
    ).toBe(422);
  });

  it("validates control bodies and reports conflicts", async () => {
    expect((await api.control("POST", "/__sim/repos", { repository: "not a repo" })).status).toBe(422);
    expect((await api.control("POST", "/__sim/repos", { repository: "octo/app" })).status).toBe(201);
    const again = await api.control("POST", "/__sim/repos", { repository: "octo/app" });
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({ detail: expect.stringContaining("already exists") });
    expect((await api.control("POST", "/__sim/clock/advance", { seconds: -1 })).status).toBe(422);
    const hook = await api.control("POST", "/__sim/repos/octo/app/commands", { pull_request: 1 });
    expect(hook.status).toBe(422);
    expect(((await hook.json()) as { detail: { loc: string[] }[] }).detail[0]?.loc).toEqual(["body", "body"]);
    const unknownRepo = await api.control("POST", "/__sim/repos/octo/none/commands", {
      body: "@mergifyio queue",
      pull_request: pullRequest(1),
    });
    expect(unknownRepo.status).toBe(404);
    const unknownPull = await api.control("POST", "/__sim/repos/octo/app/commands", {
      body: "@mergifyio queue",
      pull_request: 99,
    });
    expect(unknownPull.status).toBe(404);
    expect((await api.control("GET", "/__sim/nothing")).status).toBe(404);
  });

  it("counts API requests per repository and route", async () => {
    api.sim.state.addRepository("octo/app");
    await api.get("/repos/octo/app/merge-queue/status");
    await api.get("/repos/octo/app/merge-queue/status?branch=main");
    await api.get("/repos/octo/app/logs");
    await api.get("/repos/octo/none/logs");
    await api.control("GET", "/__sim/clock");
    const counts = await (await api.control("GET", "/__sim/requests")).json();
    expect(counts).toEqual({
      total: 4,
      repositories: {
        "octo/app": {
          total: 3,
          routes: {
            "GET /v1/repos/{owner}/{repository}/merge-queue/status": 2,
            "GET /v1/repos/{owner}/{repository}/logs": 1,
          },
        },
        "octo/none": { total: 1, routes: { "GET /v1/repos/{owner}/{repository}/logs": 1 } },
      },
    });
    expect(api.sim.requests.snapshot().total).toBe(4);
    expect((await api.control("DELETE", "/__sim/requests")).status).toBe(204);
    expect(await (await api.control("GET", "/__sim/requests")).json()).toEqual({
      total: 0,
      repositories: {},
    });
  });

  it("lists repositories", async () => {
    api.sim.state.addRepository("octo/app", { branches: ["main"] });
    api.sim.state.pause("octo/app", "x");
    expect(await (await api.control("GET", "/__sim/repos")).json()).toEqual({
      repositories: [{ repository: "octo/app", branches: ["main"], paused: true }],
    });
  });
});

describe("programmatic interface", () => {
  it("throws SimErrors with a status", () => {
    expect(() => api.sim.state.setChecks("octo/none", 1, "failure")).toThrow(SimError);
    api.sim.state.addRepository("octo/app");
    expect(() => api.sim.state.addRepository("OCTO/app")).toThrow(/already exists/);
    expect(() => api.sim.state.knowPullRequest("octo/app", { number: -1 })).toThrow(SimError);
    expect(() => api.sim.clock.advance(-5)).toThrow(RangeError);
  });

  it("updates a known pull request", () => {
    api.sim.state.addRepository("octo/app", { branches: ["main", "dev"] });
    api.sim.state.knowPullRequest("octo/app", pullRequest(3));
    const pull = api.sim.state.knowPullRequest("octo/app", { number: 3, title: "Renamed", base_ref: "dev" });
    expect(pull).toMatchObject({ number: 3, title: "Renamed", baseRef: "dev", author: { login: "dev3" } });
  });
});
