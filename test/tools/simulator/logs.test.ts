import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LogEventResponse } from "../../../tools/simulator/index.js";
import { type Api, start } from "./helpers.js";
import { eventsResponseSchema } from "./schemas.js";

const START = Date.parse("2025-06-10T12:00:00Z");
const HOUR = 3_600_000;
let api: Api;

interface Page {
  size: number;
  per_page: number;
  events: LogEventResponse[];
}

beforeEach(async () => {
  api = await start({ startTime: START });
  api.sim.state.addRepository("octo/app", { branches: ["main", "dev"] });
});

afterEach(async () => {
  await api.sim.close();
});

/** Appends label events, one per `hoursAgo`, for pull request `number`. */
function addEvents(hoursAgo: number[], number = 7, baseRef = "main"): void {
  for (const ago of hoursAgo) {
    api.sim.state.appendEvent("octo/app", {
      receivedAt: START - ago * HOUR,
      trigger: "Rule: label",
      pullRequest: number,
      baseRef,
      outcome: "success",
      type: "action.label",
      metadata: { added: [`h${ago}`], removed: [] },
    });
  }
}

function parseLinks(header: string | null): Record<string, string> {
  const links: Record<string, string> = {};
  for (const part of (header ?? "").split(",")) {
    const match = /<([^>]+)>;\s*rel="([^"]+)"/.exec(part.trim());
    if (match?.[1] !== undefined && match[2] !== undefined) links[match[2]] = match[1];
  }
  return links;
}

describe("defaults", () => {
  it("serves the last day up to now, 10 per page, newest first", async () => {
    addEvents([30, 23.5, 20, 10, 5, 4, 3, 2.5, 2, 1.5, 1, 0.5, 0]);
    const response = await api.get("/repos/octo/app/logs");
    expect(response.status).toBe(200);
    const page = eventsResponseSchema.parse(await response.json());
    expect(page.per_page).toBe(10);
    expect(page.size).toBe(10);
    expect(page.events.map((event) => (event.metadata as { added?: unknown }).added)).toEqual(
      [0, 0.5, 1, 1.5, 2, 2.5, 3, 4, 5, 10].map((ago) => [`h${ago}`]),
    );
    const next = await api.get(parseLinks(response.headers.get("link")).next ?? "missing");
    const rest = (await next.json()) as Page;
    // 30 hours ago is outside the default range (one day before received_to).
    expect(rest.events.map((event) => event.metadata.added)).toEqual([["h20"], ["h23.5"]]);
  });

  it("follows the simulator clock for received_to", async () => {
    api.sim.clock.advance(2 * HOUR);
    addEvents([-1.5]);
    const page = (await api.getJson("/repos/octo/app/logs")) as Page;
    expect(page.events).toHaveLength(1);
    expect(page.events[0]?.received_at).toBe(new Date(START + 1.5 * HOUR).toISOString());
  });

  it("defaults received_from to one day before an explicit received_to", async () => {
    addEvents([51, 40, 30, 1]);
    const to = new Date(START - 26 * HOUR).toISOString();
    const page = (await api.getJson(`/repos/octo/app/logs?received_to=${to}`)) as Page;
    expect(page.events.map((event) => (event.metadata as { added?: unknown }).added)).toEqual([
      ["h30"],
      ["h40"],
    ]);
  });
});

describe("filters", () => {
  beforeEach(() => {
    addEvents([5, 4], 1, "main");
    addEvents([3], 2, "dev");
    addEvents([2], 3, "main");
    api.sim.state.pause("octo/app", "freeze");
  });

  it("filters by pull request (repeatable)", async () => {
    const one = (await api.getJson("/repos/octo/app/logs?pull_request=1")) as Page;
    expect(one.events.map((event) => event.pull_request)).toEqual([1, 1]);
    const two = (await api.getJson("/repos/octo/app/logs?pull_request=2&pull_request=3")) as Page;
    expect(two.events.map((event) => event.pull_request)).toEqual([3, 2]);
  });

  it("filters by event type (repeatable)", async () => {
    const pauses = (await api.getJson("/repos/octo/app/logs?event_type=queue.pause.create")) as Page;
    expect(pauses.events.map((event) => event.type)).toEqual(["queue.pause.create"]);
    expect(pauses.events[0]?.pull_request).toBeNull();
    const both = (await api.getJson(
      "/repos/octo/app/logs?event_type=queue.pause.create&event_type=action.label",
    )) as Page;
    expect(both.size).toBe(5);
    const none = (await api.getJson("/repos/octo/app/logs?event_type=action.queue.merged")) as Page;
    expect(none).toEqual({ size: 0, per_page: 10, events: [] });
  });

  it("filters by base ref, leaving out repository-level events", async () => {
    const dev = (await api.getJson("/repos/octo/app/logs?base_ref=dev")) as Page;
    expect(dev.events.map((event) => event.pull_request)).toEqual([2]);
    const main = (await api.getJson("/repos/octo/app/logs?base_ref=main")) as Page;
    expect(main.events.map((event) => event.pull_request)).toEqual([3, 1, 1]);
  });

  it("filters by time range (inclusive), with offsets", async () => {
    const from = new Date(START - 4 * HOUR).toISOString();
    const to = "2025-06-10T12:00:00+02:00"; // 10:00Z, two hours before START
    const page = (await api.getJson(
      `/repos/octo/app/logs?received_from=${encodeURIComponent(from)}&received_to=${encodeURIComponent(to)}`,
    )) as Page;
    expect(page.events.map((event) => (event.metadata as { added?: unknown }).added)).toEqual([
      ["h2"],
      ["h3"],
      ["h4"],
    ]);
  });

  it("combines filters", async () => {
    const page = (await api.getJson(
      "/repos/octo/app/logs?pull_request=1&pull_request=2&base_ref=main&event_type=action.label&per_page=1",
    )) as Page;
    expect(page.events.map((event) => (event.metadata as { added?: unknown }).added)).toEqual([["h4"]]);
  });
});

describe("pagination", () => {
  it("pages with next and prev links and no link on a single page", async () => {
    addEvents([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    const seen: number[] = [];
    let response = await api.get("/repos/octo/app/logs?per_page=3&pull_request=7");
    let links = parseLinks(response.headers.get("link"));
    expect(links.prev).toBeUndefined();
    expect(links.next).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/repos\/octo\/app\/logs\?/);
    expect(links.next).toContain("per_page=3");
    expect(links.next).toContain("pull_request=7");
    let page = (await response.json()) as Page;
    seen.push(...page.events.map((event) => event.id));
    const pages = [page.size];
    while (links.next !== undefined) {
      response = await api.get(links.next);
      links = parseLinks(response.headers.get("link"));
      expect(links.prev).toBeDefined();
      page = (await response.json()) as Page;
      pages.push(page.size);
      seen.push(...page.events.map((event) => event.id));
    }
    expect(pages).toEqual([3, 3, 3, 1]);
    expect(seen).toEqual([...seen].sort((a, b) => b - a));
    expect(new Set(seen).size).toBe(10);

    // Back from the last page with prev.
    const back = await api.get(links.prev ?? "missing");
    const previous = (await back.json()) as Page;
    expect(previous.events.map((event) => event.id)).toEqual(seen.slice(6, 9));
    const prevLinks = parseLinks(back.headers.get("link"));
    expect(prevLinks.next).toBeDefined();
    expect(prevLinks.prev).toBeDefined();

    const single = await api.get("/repos/octo/app/logs?per_page=10");
    expect(single.headers.get("link")).toBeNull();
    expect(((await single.json()) as Page).size).toBe(10);
  });

  it("keeps a stable snapshot when events are appended between pages", async () => {
    addEvents([5, 4, 3, 2, 1]);
    const first = await api.get("/repos/octo/app/logs?per_page=2");
    const firstPage = (await first.json()) as Page;
    // New events arrive while the client pages: newer ones, and a late one dated inside the range.
    addEvents([0.5, 0.25, 0]);
    addEvents([4.5]);
    api.sim.clock.advance(1000);
    addEvents([-0.0001]);
    const ids = firstPage.events.map((event) => event.id);
    let links = parseLinks(first.headers.get("link"));
    while (links.next !== undefined) {
      const response = await api.get(links.next);
      ids.push(...((await response.json()) as Page).events.map((event) => event.id));
      links = parseLinks(response.headers.get("link"));
    }
    const added = (await Promise.resolve(api.sim.state.events("octo/app")))
      .filter((event) => (event.metadata.added as string[])[0]?.match(/^h[1-5]$/))
      .map((event) => event.id);
    expect(ids).toEqual([...added].reverse());
    // A fresh first page sees the new events.
    const fresh = (await api.getJson("/repos/octo/app/logs?per_page=2")) as Page;
    expect(fresh.events.map((event) => event.metadata.added)).toEqual([["h-0.0001"], ["h0"]]);
  });

  it("uses opaque cursors and refuses tampered ones", async () => {
    addEvents([3, 2, 1]);
    const response = await api.get("/repos/octo/app/logs?per_page=1");
    const next = new URL(parseLinks(response.headers.get("link")).next ?? "missing");
    const cursor = next.searchParams.get("cursor") ?? "";
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cursor).not.toMatch(/^\d+$/);
    expect(Number.isNaN(Number(cursor))).toBe(true);
    const bad = await api.get("/repos/octo/app/logs?cursor=1");
    expect(bad.status).toBe(422);
    const tampered = await api.get(
      `/repos/octo/app/logs?cursor=${Buffer.from('{"v":1}').toString("base64url")}`,
    );
    expect(tampered.status).toBe(422);
  });
});

describe("event shapes", () => {
  it("serves the demo log with the real metadata shape of every event over three days", async () => {
    await api.sim.close();
    api = await start({ seed: "demo", startTime: START });
    const types = new Set<string>();
    let oldest = START;
    let url: string | undefined =
      `/repos/acme/widgets/logs?per_page=100&received_from=${new Date(START - 4 * 24 * HOUR).toISOString()}`;
    while (url !== undefined) {
      const response = await api.get(url);
      const page = eventsResponseSchema.parse(await response.json());
      for (const event of page.events) {
        types.add(event.type);
        oldest = Math.min(oldest, Date.parse(event.received_at));
        expect(event.repository).toBe("acme/widgets");
      }
      url = parseLinks(response.headers.get("link")).next;
    }
    expect(START - oldest).toBeGreaterThan(2 * 24 * HOUR);
    expect(START - oldest).toBeLessThanOrEqual(3 * 24 * HOUR);
    for (const type of [
      "action.queue.enter",
      "action.queue.change",
      "action.queue.checks_start",
      "action.queue.checks_end",
      "action.queue.merged",
      "action.queue.leave",
      "action.queue.batch_bisection_start",
      "action.queue.batch_bisection_end",
      "queue.pause.create",
      "queue.pause.delete",
      "command.queue",
      "action.label",
      "action.comment",
    ]) {
      expect(types, type).toContain(type);
    }
    const failed = (await api.getJson(
      "/repos/acme/widgets/logs?event_type=action.queue.leave&pull_request=219&received_from=2025-06-01T00:00:00Z",
    )) as Page;
    expect(failed.events[0]?.metadata).toMatchObject({
      merged: false,
      dequeue_code: "CHECKS_FAILED",
      unsuccessful_checks: [{ name: "ci/test", state: "failure" }],
    });
    const pause = (await api.getJson(
      "/repos/acme/widgets/logs?event_type=queue.pause.create&received_from=2025-06-01T00:00:00Z",
    )) as Page;
    expect(pause.events[0]?.metadata.created_by).toEqual({ type: "user", id: 5104, name: "dmitri-v" });
  });
});
