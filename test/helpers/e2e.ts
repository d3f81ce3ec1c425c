import { loadConfig } from "../../src/load-config.js";
import { createLogger } from "../../src/logger.js";
import { createYardmaster, type Yardmaster } from "../../src/yardmaster.js";
import { type Simulator, startSimulator } from "../../tools/simulator/index.js";
import { type GitHubStandIn, startGitHubStandIn } from "../../tools/stand-ins/github/index.js";
import { type SlackStandIn, startSlackStandIn } from "../../tools/stand-ins/slack/index.js";
import { TestOctokit, testPrivateKey } from "./github-app.js";

export const MQ_TOKEN = "e2e-merge-queue-token";
export const WEBHOOK_SECRET = "e2e-webhook-secret";
export const SLACK_SIGNING_SECRET = "e2e-slack-signing-secret";
export const SLACK_BOT_TOKEN = "xoxb-e2e-bot-token";
export const OAUTH = { clientId: "Iv1.e2e", clientSecret: "e2e-client-secret" };

export interface World {
  sim: Simulator;
  github: GitHubStandIn;
  slack: SlackStandIn;
  yardmaster: Yardmaster;
  url: string;
  /** Stops Yardmaster and starts a new one on the same configuration and database (a restart). */
  restart(): Promise<void>;
  /** Another Yardmaster on the same configuration and database, listening too (closed with the world). */
  replica(): Promise<{ app: Yardmaster; url: string }>;
  close(): Promise<void>;
}

/**
 * The whole product on loopback: the merge-queue simulator (manual clock), the GitHub stand-in
 * forwarding relayed commands to it, the Slack stand-in, and Yardmaster configured from environment
 * variables as a user would, listening on an ephemeral port.
 */
export async function startWorld(env: Record<string, string> = {}): Promise<World> {
  const sim = await startSimulator({ token: MQ_TOKEN, seed: "demo" });
  const github = await startGitHubStandIn({
    webhookSecret: WEBHOOK_SECRET,
    privateKey: testPrivateKey(),
    mergeQueue: { url: sim.url, token: MQ_TOKEN },
    oauth: OAUTH,
  });
  const slack = await startSlackStandIn({ signingSecret: SLACK_SIGNING_SECRET, botToken: SLACK_BOT_TOKEN });
  const config = loadConfig({
    APP_ID: String(github.appId),
    PRIVATE_KEY: github.privateKey,
    WEBHOOK_SECRET,
    GHE_HOST: github.host,
    GHE_PROTOCOL: "http",
    GITHUB_CLIENT_ID: OAUTH.clientId,
    GITHUB_CLIENT_SECRET: OAUTH.clientSecret,
    SLACK_BOT_TOKEN,
    SLACK_SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    MERGE_QUEUE_API_URL: sim.apiUrl,
    MERGE_QUEUE_API_TOKEN: MQ_TOKEN,
    DATABASE_URL: "sqlite::memory:",
    PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: "silent",
    ...env,
  });
  const create = async () => {
    const app = await createYardmaster(config, {
      logger: createLogger({ level: "silent" }),
      Octokit: TestOctokit,
      mergeQueueRetries: 0,
      slackBot: { botId: "B0BOT", botUserId: "U0BOT", retries: 0 },
      autoPoll: false,
    });
    const { url } = await app.listen();
    return { app, url };
  };
  const start = async () => {
    const { app, url } = await create();
    github.setWebhookUrl(`${url}/api/github/webhooks`);
    slack.setEventsUrl(`${url}/slack/events`);
    return { app, url };
  };
  const first = await start();
  const replicas: Yardmaster[] = [];
  const world: World = {
    sim,
    github,
    slack,
    yardmaster: first.app,
    url: first.url,
    async replica() {
      const replica = await create();
      replicas.push(replica.app);
      return replica;
    },
    async restart() {
      await world.yardmaster.close();
      const next = await start();
      world.yardmaster = next.app;
      world.url = next.url;
    },
    async close() {
      await github.settle();
      await world.yardmaster.close();
      for (const r of replicas) await r.close();
      await github.close();
      await slack.close();
      await sim.close();
    },
  };
  return world;
}

/** An `issue_comment.created` payload for a pull request, for tests that sign or redeliver it themselves. */
export function commentWebhookPayload(
  world: World,
  repository: string,
  number: number,
  body: string,
  commentId = 1,
) {
  const [owner = "", name = ""] = repository.split("/");
  const alice = { login: "alice", id: 1, type: "User" };
  return {
    action: "created",
    issue: { number, title: "x", pull_request: { url: "x" }, user: alice },
    comment: { id: commentId, body, user: alice, html_url: "x" },
    repository: { name, full_name: repository, owner: { login: owner, id: 1 } },
    installation: { id: world.github.installationId(repository) },
    sender: alice,
  };
}
