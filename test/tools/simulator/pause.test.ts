import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Api, start } from "./helpers.js";
import { eventsResponseSchema, pauseSchema, statusSchema } from "./schemas.js";

let api: Api;

beforeEach(async () => {
  api = await start({ startTime: Date.parse("2025-06-02T10:00:00Z") });
  api.sim.state.addRepository("octo/app", { branches: ["main"] });
});

afterEach(async () => {
  await api.sim.close();
});

const PAUSE = "/repos/octo/app/merge-queue/pause";

describe("pause cycle", () => {
  it("pauses, updates, reads and unpauses with the events of each step", async () => {
    const put = await api.send("PUT", PAUSE, { reason: "Release freeze" });
    expect(put.status).toBe(200);
    expect(pauseSchema.parse(await put.json())).toEqual({
      paused: true,
      reason: "Release freeze",
      paused_at: "2025-06-02T10:00:00.000Z",
    });
    const status = statusSchema.parse(await api.getJson("/repos/octo/app/merge-queue/status"));
    expect(status.pause).toEqual({
      paused: true,
      reason: "Release freeze",
      paused_at: "2025-06-02T10:00:00.000Z",
    });

    api.sim.clock.advance(60_000);
    const update = await api.send("PUT", PAUSE, { reason: "Release freeze, extended" });
    expect(update.status).toBe(200);
    // The update keeps the original paused_at.
    expect(await update.json()).toEqual({
      paused: true,
      reason: "Release freeze, extended",
      paused_at: "2025-06-02T10:00:00.000Z",
    });
    expect(await api.getJson(PAUSE)).toEqual({
      paused: true,
      reason: "Release freeze, extended",
      paused_at: "2025-06-02T10:00:00.000Z",
    });

    api.sim.clock.advance(60_000);
    const del = await api.send("DELETE", PAUSE);
    expect(del.status).toBe(204);
    expect(await del.text()).toBe("");
    expect(await api.getJson(PAUSE)).toEqual({ paused: false, reason: null, paused_at: null });
    expect(statusSchema.parse(await api.getJson("/repos/octo/app/merge-queue/status")).pause).toBeNull();

    const log = eventsResponseSchema.parse(await api.getJson("/repos/octo/app/logs"));
    expect(log.events.map((event) => event.type)).toEqual([
      "queue.pause.delete",
      "queue.pause.update",
      "queue.pause.create",
    ]);
    const [deleted, updated, created] = log.events;
    expect(created).toMatchObject({
      pull_request: null,
      base_ref: null,
      repository: "octo/app",
      received_at: "2025-06-02T10:00:00.000Z",
      metadata: {
        reason: "Release freeze",
        created_by: { type: "application", id: 4242, name: "yardmaster" },
        created_by_staff: false,
      },
    });
    expect(updated?.metadata).toEqual({
      reason: "Release freeze, extended",
      updated_by: { type: "application", id: 4242, name: "yardmaster" },
      updated_by_staff: false,
    });
    expect(deleted?.metadata).toEqual({
      deleted_by: { type: "application", id: 4242, name: "yardmaster" },
      deleted_by_staff: false,
    });
    expect(deleted?.received_at).toBe("2025-06-02T10:02:00.000Z");
  });

  it("answers 404 with a detail when unpausing a queue that is not paused", async () => {
    const response = await api.send("DELETE", PAUSE);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ detail: "The merge queue is not paused" });
    expect(api.sim.state.events("octo/app")).toEqual([]);
  });

  it("accepts a reason of exactly 255 characters", async () => {
    const response = await api.send("PUT", PAUSE, { reason: "r".repeat(255) });
    expect(response.status).toBe(200);
  });

  it("uses the configured application as the author of API pauses", async () => {
    await api.sim.close();
    api = await start({ engine: { application: { id: 7, name: "my-app" } } });
    api.sim.state.addRepository("octo/app");
    await api.send("PUT", PAUSE, { reason: "x" });
    expect(api.sim.state.events("octo/app")[0]?.metadata.created_by).toEqual({
      type: "application",
      id: 7,
      name: "my-app",
    });
  });
});
