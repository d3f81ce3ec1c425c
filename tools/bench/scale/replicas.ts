// Figure 4: the notifier benchmark's 1,000-repository cycle with 1, 2 and 3 replicas on one PostgreSQL.
// Everything in this process: the simulator on a manual clock, the Slack stand-in, and each replica
// started by tools/world.ts `startYardmaster` on the same settings and database (a schema of its own per
// run), each with its own Poller. A cycle moves the simulator's clock by the interval (queueing the busy
// repositories' pull requests on the way), then every replica's poller passes at once, as their loops
// would when the repositories fall due. The merge-queue requests of each cycle are the simulator's count.

import { randomBytes } from "node:crypto";
import pg from "pg";
import type { Yardmaster } from "../../../src/yardmaster.js";
import { startServers, startYardmaster } from "../../world.js";
import { countsBy, notices, repoName, subscribe, total } from "./common.js";

const ENGINE = { batchSize: 4, batchMaxWaitMs: 10_000, checksDurationMs: 60_000, speculativeChecks: 2 };
const REPOS_PER_CHANNEL = 25;
const GROUPS = ["queue", "checks", "pause"];

export interface ReplicaRun {
  replicas: number;
  /** Merge-queue requests, per cycle (cycle 1, the first reads, included). */
  requests: number[];
  /** Wall time of each cycle's passes, ms. */
  wallMs: number[];
  /** Log requests made by each replica over the run. */
  perReplica: number[];
  /** Notices posted more than once (should be none). */
  duplicates: number;
  posted: number;
}

export async function replicaCycles(options: {
  databaseUrl: string;
  replicas: number;
  repositories: number;
  busy: number;
  cycles: number;
  intervalS: number;
}): Promise<ReplicaRun> {
  const schema = `ym_bench_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: options.databaseUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const url = new URL(options.databaseUrl);
  url.searchParams.set("options", `-c search_path=${schema}`);
  const servers = await startServers({ seed: "empty", clock: "manual", engine: ENGINE, github: false });
  const apps: Yardmaster[] = [];
  try {
    const { sim, slack } = servers;
    const settings = {
      ...servers.settings,
      DATABASE_URL: url.toString(),
      POLL_INTERVAL_SECONDS: String(options.intervalS),
    };
    const now = () => new Date(sim.clock.now());
    // One after the other: the first applies the migrations.
    for (let i = 0; i < options.replicas; i++) {
      apps.push((await startYardmaster(settings, { autoPoll: false, now })).app);
    }
    const repositories = Array.from({ length: options.repositories }, (_, i) => repoName("repo", i));
    const busyIndexes = new Set(
      Array.from({ length: options.busy }, (_, k) =>
        Math.floor(((k + 0.5) * options.repositories) / options.busy),
      ),
    );
    const busy = repositories.filter((_, i) => busyIndexes.has(i));
    const createdAt = now();
    const store = apps[0]!.store;
    for (const [i, repository] of repositories.entries()) {
      const channel = `C0SCALE${String(Math.floor(i / REPOS_PER_CHANNEL)).padStart(4, "0")}`;
      if (i % REPOS_PER_CHANNEL === 0)
        slack.state.addChannel({ id: channel, name: channel.toLowerCase(), botIsMember: true });
      sim.state.addRepository(repository, { branches: ["main"] });
      await subscribe(store, channel, repository, GROUPS, createdAt);
    }
    sim.requests.reset();
    const intervalMs = options.intervalS * 1000;
    const requests: number[] = [];
    const wallMs: number[] = [];
    let pull = 1;
    for (let cycle = 1; cycle <= options.cycles; cycle++) {
      const started = performance.now();
      await Promise.all(apps.map((app) => app.poller!.tick()));
      wallMs.push(performance.now() - started);
      requests.push(sim.requests.snapshot().total);
      sim.requests.reset();
      // The interval passes: each busy repository gets two pull requests queued, at a third and two thirds of it.
      for (const third of [1, 2]) {
        sim.clock.advance(intervalMs / 3);
        for (const repository of busy) {
          sim.state.relayCommand(repository, {
            body: "@mergifyio queue",
            pull_request: {
              number: pull,
              title: `Benchmark change #${pull}`,
              base_ref: "main",
              author: { id: 1, login: "bench" },
            },
          });
          pull += 1;
        }
        if (third === 2) sim.clock.advance(intervalMs - (2 * intervalMs) / 3);
      }
    }
    // What is still pending is posted (by any replica), so that duplicates would show.
    await Promise.all(apps.map((app) => app.deliverer!.deliverPending()));
    const ids = notices(slack.calls).map((n) => `${n.channel}:${n.eventId}`);
    const perReplica = await Promise.all(
      apps.map(async (app) =>
        total(await countsBy(app.metrics, "yardmaster_notifier_log_requests_total", "reason")),
      ),
    );
    return {
      replicas: options.replicas,
      requests,
      wallMs,
      perReplica,
      duplicates: ids.length - new Set(ids).size,
      posted: ids.length,
    };
  } finally {
    for (const app of apps.splice(0)) await app.close().catch(() => undefined);
    await servers.close();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await admin.end();
  }
}
