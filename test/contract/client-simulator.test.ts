import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MergeQueueClient, MergeQueueErrorCode } from "../../src/backends/mergify/index.js";
import { Repo } from "../../src/repo.js";
import { type Simulator, startSimulator } from "../../tools/simulator/index.js";

/** The client against the project's simulator, over loopback: the two ends of one interface. */
const TOKEN = "contract-token";
const repo = Repo.of("acme", "widgets");
let sim: Simulator;
let client: MergeQueueClient;

beforeAll(async () => {
  sim = await startSimulator({ token: TOKEN, seed: "demo" });
  client = new MergeQueueClient({ baseUrl: sim.apiUrl, token: TOKEN, retry: { retries: 0 } });
});
afterAll(() => sim.close());

async function codeOf(promise: Promise<unknown>): Promise<MergeQueueErrorCode | undefined> {
  try {
    await promise;
  } catch (error) {
    return (error as { code?: MergeQueueErrorCode }).code;
  }
  return undefined;
}

describe("client ↔ simulator", () => {
  it("lists branches and reads each queue", async () => {
    expect(await client.listBranches(repo)).toEqual(expect.arrayContaining(["main", "release/1.x"]));
    const main = await client.getStatus(repo, { branch: "main" });
    expect(main.batches.length).toBeGreaterThan(0);
    expect(main.batches.some((b) => (b.sub_batches ?? []).length > 0)).toBe(true);
    expect(main.waiting_pull_requests.length).toBeGreaterThan(0);
    const queued = main.batches[0]?.pull_requests[0];
    expect(queued).toBeDefined();
    const details = await client.getPullRequest(repo, queued!.number);
    expect(details.number).toBe(queued!.number);
    expect(details.position).toBe(0);
  });

  it("says a pull request outside the queue is not in any merge queue", async () => {
    expect(await codeOf(client.getPullRequest(repo, 101))).toBe(MergeQueueErrorCode.NotInQueue);
  });

  it("runs the full pause cycle, and the log records it", async () => {
    const from = new Date(sim.clock.now());
    expect((await client.getPause(repo)).paused).toBe(false);
    const paused = await client.pause(repo, "release freeze");
    expect(paused).toMatchObject({ paused: true, reason: "release freeze" });
    expect((await client.getStatus(repo, { branch: "main" })).pause).toMatchObject({ paused: true });
    await client.pause(repo, "release freeze, day 2");
    await client.unpause(repo);
    expect((await client.getPause(repo)).paused).toBe(false);
    expect(await codeOf(client.unpause(repo))).toBe(MergeQueueErrorCode.NotFound);
    const types: string[] = [];
    for await (const event of client.iterateEvents(repo, {
      receivedFrom: from,
      eventTypes: ["queue.pause.create", "queue.pause.update", "queue.pause.delete"],
    })) {
      types.push(event.type);
      expect(event.pull_request).toBeNull();
    }
    expect(types.sort()).toEqual(["queue.pause.create", "queue.pause.delete", "queue.pause.update"]);
  });

  it("pages through a long log to the end, each event once", async () => {
    const all = sim.state.events("acme/widgets");
    const from = new Date(sim.clock.now() - 4 * 86_400_000);
    const seen: number[] = [];
    let pages = 0;
    let page = await client.getEventsPage(repo, { receivedFrom: from, perPage: 7 });
    for (;;) {
      pages += 1;
      seen.push(...page.events.map((e) => e.id));
      if (!page.next) break;
      page = await client.getEventsPageAt(page.next);
    }
    expect(pages).toBeGreaterThan(5);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe(all.filter((e) => Date.parse(e.received_at) >= from.getTime()).length);
    let iterated = 0;
    for await (const _ of client.iterateEvents(repo, { receivedFrom: from, perPage: 100 })) iterated += 1;
    expect(iterated).toBe(seen.length);
  });

  it("filters the log by pull request, base ref and type", async () => {
    const from = new Date(sim.clock.now() - 4 * 86_400_000);
    for await (const event of client.iterateEvents(repo, {
      receivedFrom: from,
      baseRef: "main",
      eventTypes: ["action.queue.leave"],
    })) {
      expect(event.type).toBe("action.queue.leave");
      expect(event.base_ref).toBe("main");
    }
  });

  it("maps the simulator's refusals to typed errors", async () => {
    const stranger = new MergeQueueClient({ baseUrl: sim.apiUrl, token: "wrong", retry: { retries: 0 } });
    expect(await codeOf(stranger.getStatus(repo))).toBe(MergeQueueErrorCode.Forbidden);
    expect(await codeOf(client.getStatus(Repo.of("acme", "nope")))).toBe(MergeQueueErrorCode.NotFound);
    sim.faults.set("acme/widgets", { forced: { count: 1, status: 409, detail: "queue is being reset" } });
    const conflict = await client
      .getStatus(repo)
      .catch((e: unknown) => e as { code: string; detail?: string });
    expect(conflict).toMatchObject({ code: MergeQueueErrorCode.Conflict, detail: "queue is being reset" });
    sim.faults.set("acme/widgets", { malformed: { count: 1, kind: "missing_field" } });
    expect(await codeOf(client.getStatus(repo))).toBe(MergeQueueErrorCode.MalformedResponse);
    sim.faults.clear("acme/widgets");
  });

  it("retries a 5xx and a 429 from the simulator, then succeeds", async () => {
    const patient = new MergeQueueClient({
      baseUrl: sim.apiUrl,
      token: TOKEN,
      retry: { retries: 3, minDelayMs: 1, maxDelayMs: 5 },
    });
    sim.faults.set("acme/widgets", { serverErrors: { count: 2, status: 503, detail: "busy" } });
    expect((await patient.listBranches(repo)).length).toBeGreaterThan(0);
    sim.faults.set("acme/widgets", { rateLimit: { count: 1, retryAfterSeconds: 0 } });
    expect((await patient.listBranches(repo)).length).toBeGreaterThan(0);
    sim.faults.clear("acme/widgets");
  });
});
