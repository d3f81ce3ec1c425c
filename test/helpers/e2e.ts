import { GITHUB_WRITE_LIMITS, scaleWriteLimits } from "../../src/github/github-writes.js";
import { Repo } from "../../src/repo.js";
import type { Yardmaster, YardmasterOptions } from "../../src/yardmaster.js";
import { GITHUB_SECONDARY_LIMITS, scaleSecondaryLimits } from "../../tools/stand-ins/github/index.js";
import {
  type Settings,
  startWorld as startWholeWorld,
  type World,
  type WorldOptions,
} from "../../tools/world.js";
import { testNow } from "./clock.js";
import { TestOctokit } from "./github-app.js";

export type { World };

/**
 * GitHub's pace in the end-to-end tests: its rules (a write a second, 80 creations a minute, ...)
 * 20 times faster, in the stand-in and in Yardmaster alike. `npm run bench -- github` runs them at
 * GitHub's own figures.
 */
export const GITHUB_PACE = 0.05;

/**
 * The world of the end-to-end tests (tools/world.ts): the merge-queue simulator with its demo seed on a
 * manual clock starting at TEST_NOW (test/helpers/clock.ts), the GitHub and Slack stand-ins, and
 * Yardmaster without retries (each failure is seen once; GitHub writes are tried once), its poller ticked
 * by hand on the simulator's clock. The GitHub stand-in enforces GitHub's secondary rate limits at
 * GITHUB_PACE (unless `world.githubLimits` says otherwise), and Yardmaster paces its writes the same.
 * `settings` adds to or
 * overrides Yardmaster's (DATABASE_URL, ...); `yardmaster` overrides its options; `world` the world's
 * own options (the Slack stand-in's rate limits, a real clock, ...).
 */
export function startWorld(
  settings: Settings = {},
  yardmaster: Partial<YardmasterOptions> = {},
  world: Omit<WorldOptions, "settings" | "yardmaster"> = {},
): Promise<World> {
  const clock = world.notifierClock ?? "simulator";
  return startWholeWorld({
    settings,
    notifierClock: clock,
    // The world's time is the simulator's: it starts at TEST_NOW. (A world on the system's clock runs at
    // the real time: its tests are about replicas and pace, not dates.)
    ...(clock === "simulator" ? { startTime: testNow() } : {}),
    ...world,
    githubLimits: world.githubLimits ?? scaleSecondaryLimits(GITHUB_SECONDARY_LIMITS, GITHUB_PACE),
    yardmaster: {
      Octokit: TestOctokit,
      mergeQueueRetries: 0,
      slackBot: { botId: "B0BOT", botUserId: "U0BOT", retries: 0 },
      autoPoll: false,
      // A tick posts everything due at once on the hand-moved clock; slack-limits.e2e.test.ts paces.
      slackPace: false,
      ...yardmaster,
      githubAnswers: {
        limits: scaleWriteLimits(GITHUB_WRITE_LIMITS, GITHUB_PACE),
        retry: { retries: 0 },
        answerRetryDelayMs: 100,
        ...yardmaster.githubAnswers,
      },
    },
  });
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

/**
 * A channel of the Slack stand-in subscribed to repositories (as `/mq subscribe` would record it), from now
 * on: the world's now, the simulator's clock, which the notifier compares the merge queue's events with.
 */
export async function subscribeChannel(
  world: World,
  channelId: string,
  repositories: readonly string[],
  groups: readonly string[] = ["queue"],
): Promise<void> {
  world.slack.state.addChannel({ id: channelId, name: channelId.toLowerCase(), botIsMember: true });
  for (const repository of repositories) {
    await world.yardmaster.store.putSubscription({
      channelId,
      teamId: "T0001",
      repository: Repo.from(repository),
      branchGlob: null,
      groups: [...groups],
      createdBy: "alice",
      createdAt: new Date(world.sim.clock.now()),
    });
  }
}

/** A Slack user of the stand-in's workspace linked to a GitHub login (as `/mq login` would record it), now. */
export async function linkSlackUser(
  world: World,
  slackUserId: string,
  githubLogin: string,
  githubId = 1,
): Promise<void> {
  await world.yardmaster.store.putLink({
    teamId: "T0001",
    slackUserId,
    githubLogin,
    githubId,
    linkedAt: new Date(world.sim.clock.now()),
  });
}

/**
 * The replicas' pollers pass at the same moment, as their loops may; then each once more, as their loops
 * would within a second. A replica that routes events while the other holds the channel's delivery lease
 * leaves them for a later pass: without the second round, a test would see them missing.
 */
export async function tickReplicas(apps: readonly Pick<Yardmaster, "poller">[]): Promise<void> {
  await Promise.all(apps.map((app) => app.poller!.tick()));
  for (const app of apps) await app.poller!.tick();
}

/**
 * Polls `read` until it gives a value (anything but undefined, null or false) and resolves with it: what
 * a server does arrives on its own time, so a test waits for it, never for a fixed time.
 */
export async function eventually<T>(
  read: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for a condition`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
