// The whole product on loopback for a person: the merge-queue simulator (demo seed, real clock), the
// GitHub and Slack stand-ins, Yardmaster wired to them, and the sandbox page that shows them side by side.

import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { loadConfig } from "../../src/load-config.js";
import { createLogger } from "../../src/logger.js";
import { createYardmaster, type Yardmaster } from "../../src/yardmaster.js";
import { type EngineOptions, type Simulator, startSimulator } from "../simulator/index.js";
import { type GitHubStandIn, startGitHubStandIn } from "../stand-ins/github/index.js";
import { type SlackStandIn, startSlackStandIn } from "../stand-ins/slack/index.js";
import { freePort } from "./free-port.js";
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
}

export interface Sandbox {
  /** The page. */
  url: string;
  yardmasterUrl: string;
  logFile: string;
  dataDir: string;
  sim: Simulator;
  github: GitHubStandIn;
  slack: SlackStandIn;
  yardmaster: Yardmaster;
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
  const secret = () => randomBytes(16).toString("hex");
  const mqToken = secret();
  const webhookSecret = secret();
  const signingSecret = secret();
  const botToken = `xoxb-sandbox-${secret()}`;
  const oauth = { clientId: "Iv1.sandbox", clientSecret: secret() };

  const stack: (() => Promise<void>)[] = [];
  const closeAll = async () => {
    for (const close of stack.reverse()) {
      try {
        await close();
      } catch (error) {
        logger.error({ err: error }, "close failed");
      }
    }
    stack.length = 0;
    destination.flushSync();
    if (ownDir) rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const sim = await startSimulator({
      token: mqToken,
      seed: "demo",
      clock: "real",
      engine: { ...SANDBOX_ENGINE, ...options.engine },
      host,
      logger: logger.child({ name: "simulator" }),
    });
    stack.push(() => sim.close());
    const github = await startGitHubStandIn({
      host,
      webhookSecret,
      mergeQueue: { url: sim.url, token: mqToken },
      oauth,
      logger,
    });
    stack.push(() => github.close());
    const slack = await startSlackStandIn({ host, signingSecret, botToken, logger });
    stack.push(() => slack.close());

    const yardmasterPort = await freePort(host);
    const yardmasterUrl = `http://${host}:${yardmasterPort}`;
    const config = loadConfig({
      APP_ID: String(github.appId),
      PRIVATE_KEY: github.privateKey,
      WEBHOOK_SECRET: webhookSecret,
      GHE_HOST: github.host,
      GHE_PROTOCOL: "http",
      GITHUB_CLIENT_ID: oauth.clientId,
      GITHUB_CLIENT_SECRET: oauth.clientSecret,
      SLACK_BOT_TOKEN: botToken,
      SLACK_SIGNING_SECRET: signingSecret,
      SLACK_API_URL: slack.apiUrl,
      MERGE_QUEUE_API_URL: sim.apiUrl,
      MERGE_QUEUE_API_TOKEN: mqToken,
      DATABASE_URL: `sqlite:${join(dataDir, "yardmaster.db")}`,
      POLL_INTERVAL_SECONDS: String(options.pollIntervalSeconds ?? 2),
      PUBLIC_URL: yardmasterUrl,
      PORT: String(yardmasterPort),
      HOST: host,
      LOG_LEVEL: options.logLevel ?? "info",
    });
    const yardmaster = await createYardmaster(config, { logger: logger.child({ name: "yardmaster" }) });
    stack.push(() => yardmaster.close());
    await yardmaster.listen();
    github.setWebhookUrl(`${yardmasterUrl}/api/github/webhooks`);
    slack.setEventsUrl(`${yardmasterUrl}/slack/events`);
    await seedSandbox({ sim, github, slack, store: yardmaster.store });

    const page = await startSandboxServer({
      host,
      port: options.port ?? 0,
      sim,
      github,
      slack,
      logger: logger.child({ name: "page" }),
    });
    stack.push(() => page.close());
    logger.info({ url: page.url, yardmasterUrl }, "sandbox ready");
    return {
      url: page.url,
      yardmasterUrl,
      logFile,
      dataDir,
      sim,
      github,
      slack,
      yardmaster,
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
