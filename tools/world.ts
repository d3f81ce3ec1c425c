// The whole world on loopback, started one way for the sandbox, the end-to-end tests and the benchmark:
// the merge-queue simulator, the GitHub and Slack stand-ins, and Yardmaster (src/yardmaster.ts)
// configured from settings as an operator would configure it. Every request between them is signed as
// the real services sign theirs; every server takes an ephemeral port.

import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { loadConfig } from "../src/app/config.js";
import { createLogger, type Logger } from "../src/logger.js";
import { createYardmaster, type Yardmaster, type YardmasterOptions } from "../src/yardmaster.js";
import { type EngineOptions, type Simulator, startSimulator } from "./simulator/index.js";
import {
  type GitHubStandIn,
  generateAppKeyPair,
  type SecondaryLimitOptions,
  startGitHubStandIn,
} from "./stand-ins/github/index.js";
import { type SlackRateLimitOptions, type SlackStandIn, startSlackStandIn } from "./stand-ins/slack/index.js";

/** Yardmaster's environment variables, as an operator sets them in `.env`. */
export type Settings = Record<string, string>;

export interface ServersOptions {
  /** Where every server listens; default "127.0.0.1". */
  host?: string;
  /** The merge queue's first state: "demo" (default; acme/widgets with batches and a log) or "empty". */
  seed?: "demo" | "empty";
  /** How soon the demo seed's running checks end, as a multiple of their 20 to 40 s; default 1. */
  seedLiveScale?: number;
  /** "manual" (default): the merge queue's time moves only on `sim.clock.advance`; "real": by itself. */
  clock?: "manual" | "real";
  /** Where the manual clock starts (default now, to the second): tests start it at TEST_NOW. */
  startTime?: Date | number;
  /** The real clock's timer, ms (default the simulator's). */
  tickMs?: number;
  engine?: Partial<EngineOptions>;
  /** The GitHub stand-in, and with it Yardmaster's GitHub surface and `/mq login`; default true. */
  github?: boolean;
  /** The GitHub stand-in's secondary rate limits on the app's writes; default GitHub's figures. */
  githubLimits?: SecondaryLimitOptions | false;
  /**
   * The webhook events the GitHub stand-in's installations are subscribed to; default issue_comment,
   * check_run, check_suite, pull_request and status. `["issue_comment"]`: an installation without the
   * doorbell's events (the merge queue's moves then cause no webhooks).
   */
  githubEvents?: string[];
  /** How long after the merge queue's log append GitHub's webhooks about it go out, ms; default 0. */
  githubWebhookDelayMs?: number;
  /**
   * The Slack stand-in's rate limits: `{}` for Slack's figures (chat.postMessage about one a second per
   * channel, chat.update 50 a minute), or figures of one's own; default false (off). The sandbox has them on.
   */
  slackLimits?: SlackRateLimitOptions | false;
  /** Every server logs here; default nowhere. */
  logger?: Logger;
}

/** The services Yardmaster talks to. */
export interface Servers {
  sim: Simulator;
  github: GitHubStandIn | null;
  slack: SlackStandIn;
  /** The settings that point Yardmaster at these servers, with their secrets. */
  settings: Settings;
  close(): Promise<void>;
}

export interface WorldOptions extends Omit<ServersOptions, "github"> {
  /** Settings beyond the wiring: DATABASE_URL (default SQLite in memory), POLL_INTERVAL_SECONDS, ... */
  settings?: Settings;
  /** createYardmaster's options: tests turn retries off and tick the poller by hand. */
  yardmaster?: Partial<YardmasterOptions>;
  /**
   * Yardmaster's clock (YardmasterOptions.now): the system's (default), or the simulator's, so that a test
   * moving the merge queue's time by hand also makes repositories due for their next read, pauses end and
   * digests due. GitHub's and Slack's stamps (comments, messages) then follow the simulator's clock too.
   */
  notifierClock?: "system" | "simulator";
}

export interface World {
  sim: Simulator;
  github: GitHubStandIn;
  slack: SlackStandIn;
  /** What Yardmaster was started with. */
  settings: Settings;
  yardmaster: Yardmaster;
  url: string;
  /** Where /metrics is served: on METRICS_PORT when set, else `${url}/metrics`. */
  metricsUrl: string;
  /** Stops Yardmaster and starts it again on the same settings, port and database. */
  restart(): Promise<void>;
  /** Another Yardmaster on the same settings and database, on a port of its own (closed with the world). */
  replica(): Promise<{ app: Yardmaster; url: string; metricsUrl: string }>;
  close(): Promise<void>;
}

export async function startWorld(options: WorldOptions = {}): Promise<World> {
  const servers = await startServers({ ...options, github: true });
  const { sim, slack } = servers;
  const github = servers.github!;
  if (options.notifierClock === "simulator") {
    // One time for the whole world, as in life: Yardmaster matches GitHub's comments and Slack's messages
    // with what it recorded by their times.
    github.state.useClock(() => sim.clock.now());
    slack.state.useClock(() => sim.clock.now());
  }
  const apps: Yardmaster[] = [];
  const closeAll = async () => {
    await github.settle();
    await closeInOrder([
      ...apps.splice(0).map((app) => async () => {
        await app.close();
      }),
      servers.close,
    ]);
  };
  try {
    const host = options.host ?? "127.0.0.1";
    const port = await freePort(host);
    const settings: Settings = {
      ...servers.settings,
      HOST: host,
      PORT: String(port),
      PUBLIC_URL: `http://${host}:${port}`,
      ...(options.logger ? { LOG_LEVEL: options.logger.level } : {}),
      ...options.settings,
    };
    const start = async (overrides: Settings = {}) => {
      const started = await startYardmaster(
        { ...settings, ...overrides },
        {
          ...(options.logger ? { logger: options.logger.child({ name: "yardmaster" }) } : {}),
          ...(options.notifierClock === "simulator" ? { now: () => new Date(sim.clock.now()) } : {}),
          ...options.yardmaster,
        },
      );
      apps.push(started.app);
      return started;
    };
    const connect = (url: string) => {
      github.setWebhookUrl(`${url}/api/github/webhooks`);
      slack.setEventsUrl(`${url}/slack/events`);
    };
    // The port was free when freePort looked; an outgoing connection may have taken it since as its own
    // local port (both come from the same ephemeral range): then Yardmaster starts on another.
    const startOnFreePort = async () => {
      for (let attempt = 1; ; attempt += 1) {
        try {
          return await start();
        } catch (error) {
          const taken = (error as NodeJS.ErrnoException).code === "EADDRINUSE";
          if (!taken || options.settings?.PORT !== undefined || attempt >= 5) throw error;
          const port = await freePort(host);
          settings.PORT = String(port);
          if (options.settings?.PUBLIC_URL === undefined) settings.PUBLIC_URL = `http://${host}:${port}`;
        }
      }
    };
    const first = await startOnFreePort();
    connect(first.url);
    // Yardmaster answers a command's webhook before it runs the command: a delivery (and the stand-in's
    // settle) resolves once every replica is done with what it received, unless sent `answerOnly`.
    github.setReceiverDone(() => Promise.all(apps.map((app) => app.webhookWorkDone())));
    const world: World = {
      sim,
      github,
      slack,
      settings,
      yardmaster: first.app,
      url: first.url,
      metricsUrl: first.metricsUrl,
      async restart() {
        apps.splice(apps.indexOf(world.yardmaster), 1);
        await world.yardmaster.close();
        const next = await start();
        world.yardmaster = next.app;
        world.url = next.url;
        world.metricsUrl = next.metricsUrl;
        connect(next.url);
      },
      replica: () => start({ PORT: "0" }),
      close: closeAll,
    };
    return world;
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/** The simulator and the stand-ins, without Yardmaster: the benchmark runs them in a process of their own. */
export async function startServers(options: ServersOptions = {}): Promise<Servers> {
  const host = options.host ?? "127.0.0.1";
  const logger = options.logger ?? createLogger({ level: "silent" });
  const secret = () => randomBytes(16).toString("hex");
  const token = secret();
  const webhookSecret = secret();
  const signingSecret = secret();
  const botToken = `xoxb-${secret()}`;
  const oauth = { clientId: "Iv1.yardmaster", clientSecret: secret() };
  const closers: (() => Promise<void>)[] = [];
  const close = () => closeInOrder(closers.splice(0).reverse());
  try {
    const sim = await startSimulator({
      host,
      token,
      seed: options.seed ?? "demo",
      ...(options.seedLiveScale === undefined ? {} : { seedLiveScale: options.seedLiveScale }),
      clock: options.clock ?? "manual",
      ...(options.startTime !== undefined ? { startTime: options.startTime } : {}),
      tickMs: options.tickMs,
      engine: options.engine,
      logger: logger.child({ name: "simulator" }),
    });
    closers.push(() => sim.close());
    let github: GitHubStandIn | null = null;
    if (options.github !== false) {
      const started = await startGitHubStandIn({
        host,
        webhookSecret,
        privateKey: await appPrivateKey(),
        mergeQueue: { url: sim.url, token },
        oauth,
        ...(options.githubLimits !== undefined ? { secondaryLimits: options.githubLimits } : {}),
        ...(options.githubEvents !== undefined ? { installationEvents: options.githubEvents } : {}),
        ...(options.githubWebhookDelayMs !== undefined
          ? { mergeQueueWebhookDelayMs: options.githubWebhookDelayMs }
          : {}),
        logger: logger.child({ name: "github" }),
      });
      closers.push(() => started.close());
      github = started;
      // The merge queue acts through GitHub: its moves become check_run / pull_request webhooks.
      const unfollow = started.followMergeQueue({
        onAppend: (listener) => sim.state.log.onAppend(listener),
        pullRequest: (repository, number) => sim.state.getPullRequest(repository, number),
        position: (repository, number) => {
          const details = sim.state.getRepository(repository)
            ? sim.state.pullDetails(repository, number)
            : null;
          return details ? details.position + 1 : undefined;
        },
      });
      closers.push(async () => unfollow());
      // A pull request merged on GitHub without the merge queue leaves the queue, as the merge queue sees it.
      const unhear = started.onDirectMerge((repository, number) => {
        if (sim.state.getRepository(repository)) sim.state.mergedOutside(repository, number);
      });
      closers.push(async () => unhear());
    }
    const slack = await startSlackStandIn({
      host,
      signingSecret,
      botToken,
      rateLimits: options.slackLimits ?? false,
      logger: logger.child({ name: "slack" }),
    });
    closers.push(() => slack.close());
    const settings: Settings = {
      MERGE_QUEUE_API_URL: sim.apiUrl,
      MERGE_QUEUE_API_TOKEN: token,
      SLACK_API_URL: slack.apiUrl,
      SLACK_BOT_TOKEN: botToken,
      SLACK_SIGNING_SECRET: signingSecret,
      ...(github && {
        APP_ID: String(github.appId),
        PRIVATE_KEY: github.privateKey,
        WEBHOOK_SECRET: webhookSecret,
        GHE_HOST: github.host,
        GHE_PROTOCOL: "http",
        GITHUB_CLIENT_ID: oauth.clientId,
        GITHUB_CLIENT_SECRET: oauth.clientSecret,
      }),
    };
    return { sim, github, slack, settings, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Yardmaster configured from `settings` as `npm start` configures it from the environment, listening. */
export async function startYardmaster(
  settings: Settings,
  options: Partial<YardmasterOptions> = {},
): Promise<{ app: Yardmaster; url: string; metricsUrl: string }> {
  const config = loadConfig({
    DATABASE_URL: "sqlite::memory:",
    HOST: "127.0.0.1",
    PORT: "0",
    LOG_LEVEL: "silent",
    // The setup check's calls are not what tests are about: a test that wants them sets it to "true".
    SETUP_CHECK_ON_START: "false",
    ...settings,
  });
  const app = await createYardmaster(config, { logger: createLogger({ level: "silent" }), ...options });
  try {
    const { url, metricsUrl } = await app.listen();
    return { app, url, metricsUrl };
  } catch (error) {
    await app.close();
    throw error;
  }
}

let appKey: Promise<string> | undefined;
/** One GitHub App key per process: generating an RSA key takes a while. */
function appPrivateKey(): Promise<string> {
  appKey ??= generateAppKeyPair().then((pair) => pair.privateKey);
  return appKey;
}

/** A port free on `host` now, for Yardmaster, whose own URL (PUBLIC_URL) is a setting. */
function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** Runs every close, in order, even after one fails; then throws the first failure. */
async function closeInOrder(closers: (() => Promise<void>)[]): Promise<void> {
  let failure: unknown;
  for (const close of closers) {
    try {
      await close();
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure !== undefined) throw failure;
}
