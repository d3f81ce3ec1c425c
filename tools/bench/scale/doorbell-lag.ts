// Figure 2: event-to-post lag with the doorbell at a 60 s interval. Real time: Yardmaster's notifier runs
// by itself (autoPoll, system clock), the simulator on a real clock, the GitHub stand-in sending the
// check_run / pull_request webhooks the merge queue's moves cause. Pull requests are queued in a few
// subscribed repositories, one every `spacingMs`, until enough events the channels want were logged; the
// lag of each is from its received_at to its message reaching the Slack stand-in.

import { mergifyEventTypes } from "../../../src/backends/mergify/queue-events.js";
import { Repo } from "../../../src/repo.js";
import { startWorld } from "../../world.js";
import { countsBy, notices, repoName, subscribe, until } from "./common.js";

const GROUPS = ["queue", "checks"];
const ENGINE = { batchSize: 1, batchMaxWaitMs: 0, checksDurationMs: 3_000, speculativeChecks: 2 };

export interface DoorbellLagRun {
  repositories: number;
  pulls: number;
  /** Lag of each event posted, ms. */
  lags: number[];
  /** Events the channels want that were never posted. */
  missing: number;
  /** Lags by event type: the largest. */
  worstByType: Record<string, number>;
  /** Yardmaster's log requests during the run, by reason. */
  byReason: Record<string, number>;
  rings: number;
  durationMs: number;
}

export async function doorbellLag(options: {
  repositories: number;
  samples: number;
  spacingMs: number;
  maxDurationMs: number;
  intervalS: number;
}): Promise<DoorbellLagRun> {
  const world = await startWorld({
    seed: "empty",
    clock: "real",
    tickMs: 20,
    engine: ENGINE,
    notifierClock: "system",
    settings: { POLL_INTERVAL_SECONDS: String(options.intervalS) },
    yardmaster: { autoPoll: true },
  });
  try {
    const { sim, github, slack, yardmaster } = world;
    const { store, metrics } = yardmaster;
    github.state.addUser({ login: "bench" });
    const repositories = Array.from({ length: options.repositories }, (_, i) => repoName("lag", i, 2));
    for (const [i, repository] of repositories.entries()) {
      const channel = `C0LAG${String(i).padStart(2, "0")}`;
      sim.state.addRepository(repository, { branches: ["main"] });
      github.state.addRepository(repository);
      slack.state.addChannel({ id: channel, name: channel.toLowerCase(), botIsMember: true });
      await subscribe(store, channel, repository, GROUPS, new Date());
    }
    const firstReads = await until(async () => {
      for (const r of repositories) if ((await store.getPollCursor(Repo.from(r))) === null) return false;
      return true;
    }, 10_000);
    if (!firstReads) throw new Error("the notifier did not read the new repositories within 10 s");
    const before = await countsBy(metrics, "yardmaster_notifier_log_requests_total", "reason");
    const ringsBefore = (await countsBy(metrics, "yardmaster_notifier_doorbell_total", ""))[""] ?? 0;

    const wanted = new Set(mergifyEventTypes(GROUPS));
    const known = new Set(repositories.map((r) => r.toLowerCase()));
    const tracked = new Map<number, { receivedAt: number; type: string }>();
    const stop = sim.state.log.onAppend((event) => {
      if (wanted.has(event.type) && known.has(event.repository.toLowerCase())) {
        tracked.set(event.id, { receivedAt: event.receivedAt, type: event.type });
      }
    });
    const started = Date.now();
    let pulls = 0;
    try {
      while (tracked.size < options.samples && Date.now() - started < options.maxDurationMs) {
        const repository = repositories[pulls % repositories.length] as string;
        const number = Math.floor(pulls / repositories.length) + 1;
        const title = `Benchmark change #${number}`;
        github.state.addPullRequest({ repository, number, author: "bench", title });
        sim.state.relayCommand(repository, {
          body: "@mergifyio queue",
          pull_request: { number, title, base_ref: "main", author: { id: 1, login: "bench" } },
        });
        pulls += 1;
        await new Promise((resolve) => setTimeout(resolve, options.spacingMs));
      }
      // The queued pull requests run to their merge; then every notice is given time to arrive.
      await until(settled, 30_000, 100);
      await until(
        () => {
          const ids = new Set(notices(slack.calls).map((n) => n.eventId));
          return [...tracked.keys()].every((id) => ids.has(id));
        },
        15_000,
        100,
      );
    } finally {
      stop();
    }
    const offset = sim.clock.now() - Date.now();
    const firstPost = new Map<number, number>();
    for (const n of notices(slack.calls))
      if (!firstPost.has(n.eventId)) firstPost.set(n.eventId, n.at + offset);
    const lags: number[] = [];
    const worstByType: Record<string, number> = {};
    let missing = 0;
    for (const [id, event] of tracked) {
      const at = firstPost.get(id);
      if (at === undefined) {
        missing += 1;
        continue;
      }
      const lag = at - event.receivedAt;
      lags.push(lag);
      worstByType[event.type] = Math.max(worstByType[event.type] ?? 0, lag);
    }
    const after = await countsBy(metrics, "yardmaster_notifier_log_requests_total", "reason");
    const byReason: Record<string, number> = {};
    for (const [reason, count] of Object.entries(after)) byReason[reason] = count - (before[reason] ?? 0);
    const rings =
      ((await countsBy(metrics, "yardmaster_notifier_doorbell_total", ""))[""] ?? 0) - ringsBefore;
    return {
      repositories: repositories.length,
      pulls,
      lags,
      missing,
      worstByType,
      byReason,
      rings,
      durationMs: Date.now() - started,
    };

    /** Every queued pull request has left the queue (merged or not). */
    function settled(): boolean {
      return repositories.every(
        (r) => sim.state.events(r).filter((e) => e.type === "action.queue.leave").length >= countPulls(r),
      );
    }
    function countPulls(repository: string): number {
      const index = repositories.indexOf(repository);
      return Math.floor(pulls / repositories.length) + (index < pulls % repositories.length ? 1 : 0);
    }
  } finally {
    await world.close();
  }
}
