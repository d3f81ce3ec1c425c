// Messages between the notifier benchmark (the notifier's process) and its servers' process (the
// merge-queue simulator and the Slack stand-in), over the IPC channel of child_process.fork. The
// servers run in a process of their own so that the CPU and memory figures are the notifier's alone.

import type { ChildProcess } from "node:child_process";
import type { EngineOptions } from "../../simulator/index.js";

export interface SetupParams {
  repositories: string[];
  channels: string[];
  latencyMs: number;
  engine: Partial<EngineOptions>;
  /** Interval of the real clock's timer, ms. */
  tickMs: number;
  /** Event types the subscriptions want: those are tracked, to measure lag and check delivery. */
  wantedTypes: string[];
}

export interface SetupResult {
  /** Yardmaster's settings that point it at the servers (tools/world.ts). */
  settings: Record<string, string>;
  /** The simulator's clock minus Date.now(), ms. */
  offsetMs: number;
  pid: number;
}

export interface Relay {
  /** When, from the start of the advance, ms. */
  atMs: number;
  repository: string;
  pull: number;
}

export interface AdvanceParams {
  ms: number;
  relays: Relay[];
}

export interface AdvanceResult {
  offsetMs: number;
  simNow: number;
  rejected: number;
}

export interface Post {
  eventId: number;
  type: string;
  repository: string;
  /** Simulator time, epoch ms. */
  receivedAt: number;
  /** When the post reached the Slack stand-in, in simulator time (epoch ms). */
  postedAt: number;
}

export interface Collected {
  /** Merge-queue API requests served since the last collect. */
  requests: { total: number; byRepository: Record<string, number> };
  /** Slack Web API calls since the last collect, by method. */
  slackCalls: Record<string, number>;
  /** Calls answered with an error (HTTP status other than 200, or ok: false). */
  slackFailures: number;
  /** chat.postMessage calls that carried a tracked event id. */
  posts: Post[];
  /** chat.postMessage calls whose event id is not a tracked event. */
  untrackedPosts: number;
}

export interface Usage {
  cpuUserMicros: number;
  cpuSystemMicros: number;
  rss: number;
  heapUsed: number;
}

export interface Verification {
  /** Tracked events received at or before `before`. */
  expected: number;
  /** Of those, how many were never posted. */
  missing: number;
  /** Tracked events posted more than once (any time). */
  duplicated: number;
  /** Tracked events posted (any time). */
  posted: number;
  /** Tracked events received (any time). */
  received: number;
}

export interface BacklogParams {
  repository: string;
  channel: string;
  /** Events appended at once, at the simulator's now. */
  events: number;
  latencyMs: number;
}

export interface BacklogResult {
  events: number;
  pulls: number;
  /** The events' received_at: the simulator's now (epoch ms). */
  at: number;
}

export interface ProbeParams {
  /** GET this (Yardmaster's /healthz) every `everyMs`, each request timed on its own. */
  url: string;
  everyMs: number;
}

export interface ProbeResult {
  /** Each answered request's latency, ms, in the order they were sent. */
  latenciesMs: number[];
  /** Requests that failed or answered other than 200. */
  failures: number;
}

export interface Commands {
  setup: { params: SetupParams; result: SetupResult };
  advance: { params: AdvanceParams; result: AdvanceResult };
  collect: { params: Record<string, never>; result: Collected };
  usage: { params: { gc: boolean }; result: Usage };
  verify: { params: { before: number }; result: Verification };
  backlog: { params: BacklogParams; result: BacklogResult };
  probeStart: { params: ProbeParams; result: null };
  probeStop: { params: Record<string, never>; result: ProbeResult };
  close: { params: Record<string, never>; result: null };
}

export type Command = keyof Commands;

export type Request = {
  [K in Command]: { id: number; cmd: K; params: Commands[K]["params"] };
}[Command];

export type Response = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };

/** The benchmark's side of the channel: one promise per request, answered in any order. */
export class ServersClient {
  private nextId = 1;
  private readonly waiting = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  readonly exited: Promise<number | null>;

  constructor(private readonly child: ChildProcess) {
    child.on("message", (raw: unknown) => {
      const message = raw as Response;
      const pending = this.waiting.get(message.id);
      if (!pending) return;
      this.waiting.delete(message.id);
      if (message.ok) pending.resolve(message.result);
      else pending.reject(new Error(`servers process: ${message.error}`));
    });
    this.exited = new Promise((resolve) => {
      child.once("exit", (code) => {
        for (const pending of this.waiting.values()) {
          pending.reject(new Error(`servers process exited (code ${code})`));
        }
        this.waiting.clear();
        resolve(code);
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  call<K extends Command>(cmd: K, params: Commands[K]["params"]): Promise<Commands[K]["result"]> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.child.send({ id, cmd, params } as Request, (error) => {
        if (!error) return;
        this.waiting.delete(id);
        reject(error);
      });
    });
  }

  /** Asks the servers to close and waits for the process to end (killed after `timeoutMs`). */
  async close(timeoutMs = 10_000): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const timer = setTimeout(() => this.child.kill("SIGKILL"), timeoutMs);
    try {
      await this.call("close", {}).catch(() => undefined);
      await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}
