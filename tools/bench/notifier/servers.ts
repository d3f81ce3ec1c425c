// The notifier benchmark's servers' process (forked by bench/notifier/benchmark.ts): the world of
// tools/world.ts without GitHub and without Yardmaster (the merge-queue simulator on a real-time clock and
// the Slack stand-in), driven over the IPC channel. Nothing here is measured as the notifier's.

import { get } from "node:http";
import type { LogEvent } from "../../simulator/index.js";
import { type Servers, startServers } from "../../world.js";
import { appendBacklog } from "../lib/backlog-events.js";
import type {
  AdvanceParams,
  AdvanceResult,
  BacklogParams,
  BacklogResult,
  Collected,
  Commands,
  Post,
  ProbeParams,
  ProbeResult,
  Request,
  Response,
  SetupParams,
  SetupResult,
  Usage,
  Verification,
} from "./protocol.js";

const METADATA_EVENT_TYPE = "yardmaster_notification";

let world: Servers | undefined;
/** Events of the wanted types, by id. */
const tracked = new Map<number, { receivedAt: number; type: string; repository: string }>();
/** Times each tracked event was posted. */
const postCounts = new Map<number, number>();

function servers(): Servers {
  if (!world) throw new Error("not set up");
  return world;
}

async function setup(params: SetupParams): Promise<SetupResult> {
  world = await startServers({
    seed: "empty",
    clock: "real",
    tickMs: params.tickMs,
    engine: params.engine,
    github: false,
  });
  const { sim, slack } = world;
  const wanted = new Set(params.wantedTypes);
  sim.state.log.onAppend((event: LogEvent) => {
    if (wanted.has(event.type)) {
      tracked.set(event.id, { receivedAt: event.receivedAt, type: event.type, repository: event.repository });
    }
  });
  for (const repository of params.repositories) {
    sim.state.addRepository(repository, { branches: ["main"] });
    if (params.latencyMs > 0) sim.faults.set(repository, { latencyMs: params.latencyMs });
  }
  for (const id of params.channels) slack.state.addChannel({ id, name: id.toLowerCase(), botIsMember: true });
  return {
    settings: world.settings,
    offsetMs: sim.clock.now() - Date.now(),
    pid: process.pid,
  };
}

/** Moves the simulator's clock forward by `ms`, queueing the given pull requests on the way. */
function advance(params: AdvanceParams): AdvanceResult {
  const { sim } = servers();
  const start = sim.clock.now();
  const moveTo = (target: number) => {
    const by = target - sim.clock.now();
    if (by > 0) sim.clock.advance(by);
  };
  let rejected = 0;
  for (const relay of [...params.relays].sort((a, b) => a.atMs - b.atMs)) {
    moveTo(start + relay.atMs);
    const result = sim.state.relayCommand(relay.repository, {
      body: "@mergifyio queue",
      pull_request: {
        number: relay.pull,
        title: `Benchmark change #${relay.pull}`,
        base_ref: "main",
        author: { id: 1, login: "bench" },
      },
    });
    if (!result.accepted) rejected += 1;
  }
  moveTo(start + params.ms);
  return { offsetMs: sim.clock.now() - Date.now(), simNow: sim.clock.now(), rejected };
}

function collect(): Collected {
  const { sim, slack } = servers();
  const counts = sim.requests.snapshot();
  sim.requests.reset();
  const byRepository: Record<string, number> = {};
  for (const [repository, entry] of Object.entries(counts.repositories))
    byRepository[repository] = entry.total;
  // No advance has happened since the cycle began: the clock's offset is the one the posts were made at.
  const offsetMs = sim.clock.now() - Date.now();
  const calls = slack.calls.splice(0);
  const slackCalls: Record<string, number> = {};
  const posts: Post[] = [];
  let slackFailures = 0;
  let untrackedPosts = 0;
  for (const call of calls) {
    slackCalls[call.method] = (slackCalls[call.method] ?? 0) + 1;
    if (call.httpStatus !== 200 || call.response.ok !== true) {
      slackFailures += 1;
      continue;
    }
    if (call.method !== "chat.postMessage") continue;
    const metadata = call.args.metadata as
      | { event_type?: string; event_payload?: { event_id?: unknown } }
      | undefined;
    const eventId = Number(metadata?.event_payload?.event_id);
    const event = metadata?.event_type === METADATA_EVENT_TYPE ? tracked.get(eventId) : undefined;
    if (!event) {
      untrackedPosts += 1;
      continue;
    }
    postCounts.set(eventId, (postCounts.get(eventId) ?? 0) + 1);
    posts.push({
      eventId,
      type: event.type,
      repository: event.repository,
      receivedAt: event.receivedAt,
      postedAt: call.at + offsetMs,
    });
  }
  return {
    requests: { total: counts.total, byRepository },
    slackCalls,
    slackFailures,
    posts,
    untrackedPosts,
  };
}

function usage(params: { gc: boolean }): Usage {
  // The benchmark forks this process with --expose-gc.
  if (params.gc) (globalThis as { gc?: () => void }).gc?.();
  const cpu = process.cpuUsage();
  const memory = process.memoryUsage();
  return {
    cpuUserMicros: cpu.user,
    cpuSystemMicros: cpu.system,
    rss: memory.rss,
    heapUsed: memory.heapUsed,
  };
}

function verify(params: { before: number }): Verification {
  let expected = 0;
  let missing = 0;
  for (const [id, event] of tracked) {
    if (event.receivedAt > params.before) continue;
    expected += 1;
    if (!postCounts.has(id)) missing += 1;
  }
  let duplicated = 0;
  for (const count of postCounts.values()) if (count > 1) duplicated += 1;
  return { expected, missing, duplicated, posted: postCounts.size, received: tracked.size };
}

/** A repository whose log receives `events` at once (an outage's backlog), and its channel. */
function backlog(params: BacklogParams): BacklogResult {
  const { sim, slack } = servers();
  sim.state.addRepository(params.repository, { branches: ["main"] });
  if (params.latencyMs > 0) sim.faults.set(params.repository, { latencyMs: params.latencyMs });
  slack.state.addChannel({ id: params.channel, name: params.channel.toLowerCase(), botIsMember: true });
  const at = sim.clock.now();
  const key = sim.state.requireRepository(params.repository).key;
  const appended = appendBacklog(
    sim.state.log,
    { repository: params.repository, key },
    { count: params.events, at, authors: 10 },
  );
  return { ...appended, at };
}

/**
 * Yardmaster's /healthz, asked from this process (whose event loop is not Yardmaster's): one request
 * every `everyMs` whether the last one answered or not, each on a new connection, as a liveness probe.
 */
let probe: { timer: NodeJS.Timeout; result: ProbeResult; inFlight: Set<Promise<void>> } | undefined;

function probeOnce(url: string, result: ProbeResult): Promise<void> {
  const started = performance.now();
  return new Promise((resolve) => {
    const request = get(url, { agent: false, timeout: 10_000 }, (response) => {
      response.resume();
      response.on("end", () => {
        if (response.statusCode === 200) result.latenciesMs.push(performance.now() - started);
        else result.failures += 1;
        resolve();
      });
    });
    request.on("timeout", () => request.destroy(new Error("timeout")));
    request.on("error", () => {
      result.failures += 1;
      resolve();
    });
  });
}

function probeStart(params: ProbeParams): null {
  if (probe) throw new Error("already probing");
  const result: ProbeResult = { latenciesMs: [], failures: 0 };
  const inFlight = new Set<Promise<void>>();
  const timer = setInterval(() => {
    const once = probeOnce(params.url, result).finally(() => inFlight.delete(once));
    inFlight.add(once);
  }, params.everyMs);
  probe = { timer, result, inFlight };
  return null;
}

async function probeStop(): Promise<ProbeResult> {
  if (!probe) throw new Error("not probing");
  const { timer, result, inFlight } = probe;
  probe = undefined;
  clearInterval(timer);
  await Promise.all(inFlight);
  return result;
}

async function close(): Promise<null> {
  if (probe) clearInterval(probe.timer);
  await world?.close();
  world = undefined;
  return null;
}

async function handle(request: Request): Promise<Commands[Request["cmd"]]["result"]> {
  switch (request.cmd) {
    case "setup":
      return setup(request.params);
    case "advance":
      return advance(request.params);
    case "collect":
      return collect();
    case "usage":
      return usage(request.params);
    case "verify":
      return verify(request.params);
    case "backlog":
      return backlog(request.params);
    case "probeStart":
      return probeStart(request.params);
    case "probeStop":
      return probeStop();
    case "close":
      return close();
  }
}

function reply(response: Response, then?: () => void): void {
  process.send?.(response, undefined, undefined, () => then?.());
}

if (!process.send) {
  console.error("bench/notifier/servers.ts is started by the notifier benchmark (npm run bench)");
  process.exit(2);
}

process.on("message", (raw: unknown) => {
  const request = raw as Request;
  handle(request).then(
    (result) =>
      reply({ id: request.id, ok: true, result }, () => {
        if (request.cmd === "close") process.disconnect();
      }),
    (error: unknown) =>
      reply({
        id: request.id,
        ok: false,
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      }),
  );
});

// The benchmark went away without closing us: close and end.
process.on("disconnect", () => {
  void close().finally(() => process.exit(0));
});
