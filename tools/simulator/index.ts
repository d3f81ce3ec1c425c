// Public API of the merge-queue simulator: a stateful stand-in for the external merge-queue service
// (Mergify's API, docs/merge-queue-api.md), for tests, benchmarks and the local sandbox.

import type { AddressInfo } from "node:net";
import { type Logger, pino } from "pino";
import { type Clock, ManualClock, RealClock } from "./clock.js";
import { Faults } from "./faults.js";
import { type EngineOptions, resolveEngineOptions } from "./options.js";
import { RequestStats } from "./request-stats.js";
import { seedDemo } from "./seed-demo.js";
import { createSimulatorServer } from "./server.js";
import { SimState } from "./state.js";
import { SimTokens, type TokenLimits } from "./tokens.js";

export type { Clock, ClockKind } from "./clock.js";
export type { CommandResult } from "./commands.js";
export type { FaultConfig } from "./faults.js";
export { Faults } from "./faults.js";
export type { LogEvent } from "./log.js";
export type { EngineOptions } from "./options.js";
export { DEFAULT_ENGINE_OPTIONS } from "./options.js";
export type { RequestCounts } from "./request-stats.js";
export { RequestStats } from "./request-stats.js";
export { DEMO_REPOSITORY } from "./seed-demo.js";
export type { AddRepositoryOptions, CommandInput, PullRequestInput } from "./state.js";
export { SimError, SimState } from "./state.js";
export type { TokenLimits } from "./tokens.js";
export type * from "./types.js";

export interface SimulatorOptions {
  /** Port to listen on; default 0 (ephemeral). */
  port?: number;
  /** Host to listen on; default "127.0.0.1". */
  host?: string;
  /** The Bearer token accepted; anything else gets 403 {"detail": ...}. */
  token: string;
  /** Initial state; default "empty". */
  seed?: "demo" | "empty";
  /** The demo seed's running checks end this many times as soon (seed-demo.ts); default 1. */
  seedLiveScale?: number;
  /** "manual" (default): time moves only on `clock.advance`; "real": the engine runs on a timer. */
  clock?: "manual" | "real";
  /** Engine options (batch size, checks duration, ...). */
  engine?: Partial<EngineOptions>;
  logger?: Logger;
  /** Start time of a manual clock (default: now, whole second). */
  startTime?: Date | number;
  /** Interval of the real clock's timer, ms (default 1000). */
  tickMs?: number;
}

export interface Simulator {
  /** "http://127.0.0.1:PORT" */
  url: string;
  /** url + "/v1": a client's base URL. */
  apiUrl: string;
  /** The Bearer token it accepts. */
  token: string;
  /** Programmatic access for tests and benchmarks. */
  state: SimState;
  /** now(), advance(ms): advancing runs the engine. */
  clock: Clock;
  /** Per-repository fault modes. */
  faults: Faults;
  /** Counts of API requests served, per repository and route. */
  requests: RequestStats;
  /** Another token it accepts, limited to some repositories, or without the event log. */
  issueToken(limits?: TokenLimits): string;
  close(): Promise<void>;
}

export async function startSimulator(options: SimulatorOptions): Promise<Simulator> {
  if (typeof options.token !== "string" || options.token.length === 0) {
    throw new Error("startSimulator: a non-empty token is required");
  }
  const logger = options.logger ?? pino({ level: "silent" });
  const engineOptions = resolveEngineOptions(options.engine);
  const clock =
    options.clock === "real"
      ? new RealClock()
      : new ManualClock(
          options.startTime === undefined
            ? undefined
            : typeof options.startTime === "number"
              ? options.startTime
              : options.startTime.getTime(),
        );
  const state = new SimState(clock, engineOptions);
  if (options.seed === "demo") seedDemo(state, options.seedLiveScale);
  const faults = new Faults();
  const requests = new RequestStats();
  const tokens = new SimTokens(options.token);
  const server = createSimulatorServer({ state, faults, stats: requests, tokens, logger });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  if (clock instanceof RealClock) {
    clock.start(options.tickMs ?? 1000, (error) =>
      logger.error({ err: error }, "merge-queue engine step failed"),
    );
  }
  const address = server.address() as AddressInfo;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  const url = `http://${urlHost}:${address.port}`;
  logger.info({ url, seed: options.seed ?? "empty", clock: clock.kind }, "merge-queue simulator started");
  let closed: Promise<void> | null = null;
  return {
    url,
    apiUrl: `${url}/v1`,
    token: options.token,
    state,
    clock,
    faults,
    requests,
    issueToken: (limits) => tokens.issue(limits),
    close() {
      closed ??= new Promise<void>((resolve, reject) => {
        if (clock instanceof RealClock) clock.stop();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
