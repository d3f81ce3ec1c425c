// Figure 1: merge-queue requests per idle repository per hour, with the doorbell (an installation that
// receives check_run and pull_request: idle repositories are read every POLL_IDLE_SECONDS) and without it
// (an installation with issue_comment only: every POLL_INTERVAL_SECONDS). Simulated time: the simulator's
// clock is manual and the notifier runs on it; a pass of the poller every `stepMs` of it, for one hour.

import { startWorld } from "../../world.js";
import { countsBy, repoName, subscribe, total } from "./common.js";

export const HOUR_MS = 3_600_000;
const LOG_REQUESTS = "yardmaster_notifier_log_requests_total";

export interface IdleRun {
  /** The installation's webhook events. */
  events: "doorbell" | "issue_comment only";
  repositories: number;
  /** Merge-queue requests per repository over the hour (the simulator's count). */
  perRepository: number[];
  /** Yardmaster's log requests over the hour, by reason. */
  byReason: Record<string, number>;
  /** Installation lookups the GitHub stand-in served (GET /repos/{o}/{r}/installation). */
  passes: number;
}

export async function idleRequests(options: {
  repositories: number;
  stepMs: number;
  intervalS: number;
  idleS: number;
  doorbell: boolean;
}): Promise<IdleRun> {
  const world = await startWorld({
    seed: "empty",
    clock: "manual",
    notifierClock: "simulator",
    settings: {
      POLL_INTERVAL_SECONDS: String(options.intervalS),
      POLL_IDLE_SECONDS: String(options.idleS),
    },
    yardmaster: { autoPoll: false },
    ...(options.doorbell ? {} : { githubEvents: ["issue_comment"] }),
  });
  try {
    const { sim, github, yardmaster } = world;
    const repositories = Array.from({ length: options.repositories }, (_, i) => repoName("idle", i));
    const createdAt = new Date(sim.clock.now());
    for (const [i, repository] of repositories.entries()) {
      sim.state.addRepository(repository, { branches: ["main"] });
      github.state.addRepository(repository);
      await subscribe(
        yardmaster.store,
        `C0IDLE${String(i).padStart(4, "0")}`,
        repository,
        ["queue"],
        createdAt,
      );
    }
    sim.requests.reset();
    const poller = yardmaster.poller!;
    let passes = 0;
    for (let at = 0; at < HOUR_MS; at += options.stepMs) {
      await poller.tick();
      passes += 1;
      sim.clock.advance(options.stepMs);
    }
    const counts = sim.requests.snapshot();
    return {
      events: options.doorbell ? "doorbell" : "issue_comment only",
      repositories: repositories.length,
      perRepository: repositories.map((r) => counts.repositories[r.toLowerCase()]?.total ?? 0),
      byReason: await countsBy(yardmaster.metrics, LOG_REQUESTS, "reason"),
      passes,
    };
  } finally {
    await world.close();
  }
}

export { total };
