// The whole product on loopback for a person: the world of tools/world.ts (merge-queue simulator with its
// demo seed on a real clock, the GitHub and Slack stand-ins, Yardmaster wired to them), seeded with the
// page's people, and the sandbox page that shows them side by side.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { createLogger } from "../../src/logger.js";
import { Repo } from "../../src/repo.js";
import type { PostPace } from "../../src/slack/slack-holds.js";
import type { EngineOptions } from "../simulator/index.js";
import type { SlackRateLimitOptions } from "../stand-ins/slack/index.js";
import { startWorld, type World } from "../world.js";
import { SANDBOX_CHANNEL, SANDBOX_GITHUB_QUEUE_REPOSITORY, SANDBOX_REPOSITORY } from "./demo-people.js";
import { startFlakeShieldDemo } from "./flake-shield-demo.js";
import { startSandboxServer } from "./sandbox-server.js";
import { seedSandbox } from "./seed.js";

export interface SandboxOptions {
  /** The page's port; default 0 (ephemeral). The other servers always take ephemeral ports. */
  port?: number;
  /** Default "127.0.0.1". */
  host?: string;
  /** The merge-queue engine, faster than the simulator's defaults so that the queue visibly moves. */
  engine?: Partial<EngineOptions>;
  /** Yardmaster's notifier period; default 2 s. */
  pollIntervalSeconds?: number;
  /** A folder for the database and the log; default a new temporary folder, removed on close. */
  dataDir?: string;
  /** Log level of every server (into `<dataDir>/sandbox.log`); default "info". */
  logLevel?: "info" | "debug" | "warn" | "silent";
  /**
   * HEALTH_STALL_MINUTES: minutes without a merge before the channel hears the queue is stalled; default
   * 5, so that a person sees it (leave a pull request of acme/ships queued).
   */
  healthStallMinutes?: number;
  /** The Slack stand-in's rate limits; default Slack's own figures, so that a person sees real pacing. */
  slackLimits?: SlackRateLimitOptions | false;
  /**
   * Yardmaster's own pace of posts to a channel; default Slack's (about a message a second), so that a person
   * sees real pacing. Tests that turn `slackLimits` off may turn it off too: the channel then hears at once.
   */
  slackPace?: PostPace | false;
  /**
   * How soon the demo seed's running checks end, as a multiple of their 20 to 40 s; default 1. Tests on quick
   * checks shorten it: the flake shield's demo waits for those batches in the same train.
   */
  seedLiveScale?: number;
  /** The flake shield's demo in acme/widgets (flake-shield-demo.ts); default true. */
  flakeShieldDemo?: boolean;
}

export interface Sandbox {
  /** The page. */
  url: string;
  logFile: string;
  world: World;
  close(): Promise<void>;
}

/** Checks of 25 s and a 8 s fill wait: a pull request queued in the page merges within a minute or so. */
export const SANDBOX_ENGINE: Partial<EngineOptions> = { checksDurationMs: 25_000, batchMaxWaitMs: 8_000 };

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const host = options.host ?? "127.0.0.1";
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "yardmaster-sandbox-"));
  const logFile = join(dataDir, "sandbox.log");
  const destination = pino.destination({ dest: logFile, sync: true, mkdir: true });
  const logger = createLogger({ level: options.logLevel ?? "info", name: "sandbox" }, destination);
  const done = () => {
    destination.flushSync();
    if (ownDir) rmSync(dataDir, { recursive: true, force: true });
  };
  let world: World | undefined;
  try {
    world = await startWorld({
      host,
      seed: "demo",
      ...(options.seedLiveScale === undefined ? {} : { seedLiveScale: options.seedLiveScale }),
      clock: "real",
      engine: { ...SANDBOX_ENGINE, ...options.engine },
      slackLimits: options.slackLimits ?? {},
      ...(options.slackPace === undefined ? {} : { yardmaster: { slackPace: options.slackPace } }),
      logger,
      settings: {
        DATABASE_URL: `sqlite:${join(dataDir, "yardmaster.db")}`,
        POLL_INTERVAL_SECONDS: String(options.pollIntervalSeconds ?? 2),
        // acme/widgets on the simulator (Mergify), acme/ships on the GitHub stand-in's own merge queue.
        MERGE_QUEUE_PROVIDER: "auto",
        HEALTH_STALL_MINUTES: String(options.healthStallMinutes ?? 5),
      },
    });
    const { sim, github, slack, yardmaster } = world;
    await seedSandbox({ sim, github, slack, store: yardmaster.store });
    const stopDemo = options.flakeShieldDemo === false ? () => {} : startFlakeShieldDemo({ sim, github });
    const page = await startSandboxServer({
      host,
      port: options.port ?? 0,
      sim,
      github,
      slack,
      logger: logger.child({ name: "page" }),
      // Each subscribed repository's digest: acme/widgets' from Mergify's log, acme/ships' from the history.
      runDigest: async () => {
        let posted = false;
        for (const repository of [SANDBOX_REPOSITORY, SANDBOX_GITHUB_QUEUE_REPOSITORY]) {
          const digests = yardmaster.digests;
          if (!digests) continue;
          // postNow waits out Slack's 429s itself, as the weekly digest does.
          if (await digests.postNow(SANDBOX_CHANNEL.id, Repo.from(repository))) posted = true;
        }
        return posted;
      },
    });
    logger.info({ url: page.url, yardmasterUrl: world.url }, "sandbox ready");
    const started = world;
    return {
      url: page.url,
      logFile,
      world,
      async close() {
        try {
          stopDemo();
          await page.close();
          await started.close();
        } finally {
          done();
        }
      },
    };
  } catch (error) {
    await world?.close().catch((e: unknown) => logger.error({ err: e }, "close failed"));
    done();
    throw error;
  }
}
