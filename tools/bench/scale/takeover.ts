// Figure 7: issue 32's takeover. Two replicas on one PostgreSQL (a schema of its own per run): this
// process's and one in a process of its own (`node --import tsx src/index.ts`, as `npm start` runs
// it), 24 queue events (by default) in two repositories for one channel, the replica posting them killed (`kill -9`)
// the moment Slack takes its first post, before it hears the answer. Measured: from the kill to the
// survivor's last notice, at Slack's pace (the Slack stand-in's limits on: a post a second per channel,
// burst 3; both replicas at Yardmaster's own pace). Real time: test/e2e/replica-takeover.e2e.test.ts
// asserts the exactly-once and the completeness, test/notifier/takeover-time.test.ts the bound on a
// simulated clock.

import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { startWorld, type World } from "../../world.js";
import { notices, subscribe, until } from "./common.js";

const REPOS = ["bench/left", "bench/right"];
const CHANNEL = "C0TAKEOVER";
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

export interface TakeoverRun {
  /** Notices the burst asked for (two per pull request: it entered the queue, its batch). */
  notices: number;
  /** Of which posted (once or more). */
  posted: number;
  /** Notices posted more than once (should be none). */
  duplicates: number;
  /** From the kill to the survivor's first post, ms: the lease's lapse. */
  firstMs: number;
  /** From the kill to the last notice posted, ms (NaN: not all were posted). */
  lastMs: number;
  /** chat.postMessage calls answered 429. */
  rateLimited: number;
}

/** A replica of `world` in a process of its own; resolves once it listens. */
async function startReplica(world: World, settings: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/index.ts"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      ...world.settings,
      ...settings,
      HOST: "127.0.0.1",
      PORT: "0",
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "ignore"],
  });
  let out = "";
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => {
    out += chunk;
  });
  const listening = await until(() => child.exitCode !== null || /"url":"http/.test(out), 90_000);
  if (!listening || child.exitCode !== null) {
    child.kill("SIGKILL");
    throw new Error("the second replica did not start within 90 s");
  }
  return child;
}

export async function takeover(options: {
  databaseUrl: string;
  /** Pull requests queued in each repository (issue 32: 6, 24 notices). */
  pullsPerRepository: number;
}): Promise<TakeoverRun> {
  const schema = `ym_bench_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: options.databaseUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const url = new URL(options.databaseUrl);
  url.searchParams.set("options", `-c search_path=${schema}`);
  const settings = { DATABASE_URL: url.toString(), POLL_INTERVAL_SECONDS: "1" };
  let world: World | undefined;
  let child: ChildProcess | undefined;
  try {
    world = await startWorld({
      seed: "empty",
      clock: "real",
      notifierClock: "system",
      // Long checks: the pull requests stay queued, two notices each.
      engine: { checksDurationMs: 600_000, batchMaxWaitMs: 600_000 },
      githubEvents: ["issue_comment"],
      slackLimits: {},
      settings,
      yardmaster: { autoPoll: true },
    });
    const { sim, github, slack, yardmaster } = world;
    github.state.addUser({ login: "bench" });
    slack.state.addChannel({ id: CHANNEL, name: "takeover", botIsMember: true });
    for (const repository of REPOS) {
      sim.state.addRepository(repository, { branches: ["main"] });
      github.state.addRepository(repository);
      await subscribe(yardmaster.store, CHANNEL, repository, ["queue"], new Date(sim.clock.now()));
    }
    child = await startReplica(world, settings);
    const killed = child;
    const exited = new Promise<void>((resolve) => killed.once("exit", () => resolve()));
    // The other replica reads the burst and posts it: this one's loop waits until the kill.
    const survivor = yardmaster.poller;
    if (!survivor) throw new Error("no notifier in this process");
    await survivor.stop();
    let killedAt = Number.NaN;
    slack.faults.delayAnswer("chat.postMessage", 60_000, 1, () => {
      killed.kill("SIGKILL");
      killedAt = Date.now();
    });
    const queueEvents = () =>
      REPOS.flatMap((r) => sim.state.events(r)).filter(
        (e) => e.type.startsWith("action.queue.") && !e.type.includes("checks"),
      );
    const before = new Set(queueEvents().map((e) => e.id));
    for (let i = 0; i < options.pullsPerRepository; i++) {
      for (const repository of REPOS) {
        sim.state.relayCommand(repository, {
          body: "@mergifyio queue",
          pull_request: {
            number: 100 + i,
            title: `Burst ${i}`,
            base_ref: "main",
            author: { id: 1, login: "bench" },
          },
        });
      }
    }
    const wanted = new Set(
      queueEvents()
        .map((e) => e.id)
        .filter((id) => !before.has(id)),
    );
    if (!(await until(() => Number.isFinite(killedAt), 120_000))) throw new Error("no post within 120 s");
    await exited;
    survivor.start();
    const posted = () => notices(slack.calls).filter((n) => wanted.has(n.eventId));
    // The post in flight at the kill is in the channel, its answer never heard.
    const inChannel = () =>
      new Set(
        slack.state
          .messages(CHANNEL)
          .flatMap((m) => [m, ...m.replies])
          .map((m) => Number(m.metadata?.event_payload.event_id)),
      );
    const all = await until(() => [...wanted].every((id) => inChannel().has(id)), 120_000, 20);
    const after = posted().filter((n) => n.at >= killedAt);
    const times = after.map((n) => n.at - killedAt);
    const ids = slack.state
      .messages(CHANNEL)
      .flatMap((m) => [m, ...m.replies])
      .map((m) => Number(m.metadata?.event_payload.event_id))
      .filter((id) => wanted.has(id));
    return {
      notices: wanted.size,
      posted: new Set(ids).size,
      duplicates: ids.length - new Set(ids).size,
      firstMs: times.length ? Math.min(...times) : Number.NaN,
      lastMs: all && times.length ? Math.max(...times) : Number.NaN,
      rateLimited: slack.calls.filter((c) => c.method === "chat.postMessage" && c.rateLimited).length,
    };
  } finally {
    child?.kill("SIGKILL");
    await world?.close();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`).catch(() => undefined);
    await admin.end();
  }
}
