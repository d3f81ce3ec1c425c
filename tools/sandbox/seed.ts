// What the sandbox starts with, besides the simulator's demo seed: the same repository and pull requests
// on the GitHub stand-in, the page's two people on GitHub and Slack (linked; the writer wrote a few of the
// pull requests), and #merge-queue subscribed to both repositories.

import { DEFAULT_GATE_CHECK_NAME } from "../../src/backends/github/gate/index.js";
import { Repo } from "../../src/repo.js";
import type { Store } from "../../src/store/index.js";
import type { Simulator } from "../simulator/index.js";
import type { GitHubStandIn } from "../stand-ins/github/index.js";
import type { SlackStandIn } from "../stand-ins/slack/index.js";
import {
  SANDBOX_ADMIN,
  SANDBOX_CHANNEL,
  SANDBOX_GITHUB_QUEUE_REPOSITORY,
  SANDBOX_PEOPLE,
  SANDBOX_REPOSITORY,
  SANDBOX_TEAM_ID,
} from "./demo-people.js";

export const SUBSCRIBED_GROUPS = ["queue", "checks", "pause", "health"];

export async function seedSandbox(parts: {
  sim: Simulator;
  github: GitHubStandIn;
  slack: SlackStandIn;
  store: Store;
}): Promise<void> {
  seedAuthors(parts.sim);
  seedGitHub(parts.sim, parts.github);
  seedGitHubQueue(parts.github);
  for (const f of SANDBOX_CHECK_FAILURES) parts.github.checkRuns.failWith(f.repository, f.check, f.output);
  seedSlack(parts.slack);
  for (const person of SANDBOX_PEOPLE) {
    await parts.store.putLink({
      teamId: SANDBOX_TEAM_ID,
      slackUserId: person.slackUserId,
      githubLogin: person.login,
      githubId: person.githubId,
      linkedAt: new Date(),
    });
  }
  // Made now, so that only what happens from now on is notified (no backfill of the seeded log). acme/ships
  // is on GitHub's own merge queue: its notices come from the GitHub stand-in's webhooks.
  const subscription = {
    channelId: SANDBOX_CHANNEL.id,
    teamId: SANDBOX_TEAM_ID,
    branchGlob: null,
    groups: SUBSCRIBED_GROUPS,
    createdBy: SANDBOX_PEOPLE[0]?.login ?? "octocat",
    createdAt: new Date(parts.sim.clock.now()),
  };
  await parts.store.putSubscription({
    ...subscription,
    repository: Repo.from(SANDBOX_REPOSITORY),
    digest: { cadence: "weekly" },
  });
  await parts.store.putSubscription({
    ...subscription,
    repository: Repo.from(SANDBOX_GITHUB_QUEUE_REPOSITORY),
    digest: { cadence: "weekly" },
  });
  // The flake shield is on for both (flake-shield-demo.ts shows it at work in acme/widgets).
  for (const repository of [SANDBOX_REPOSITORY, SANDBOX_GITHUB_QUEUE_REPOSITORY]) {
    await parts.store.putFlakeShield({
      repository: Repo.from(repository),
      enabled: true,
      changedBy: subscription.createdBy,
      surface: "slack",
      changedAt: subscription.createdAt,
    });
  }
}

/**
 * What CI's failing checks say (the GitHub stand-in's check runs: their output and two annotations), so
 * that a removal for failed checks shows why in the channel, the direct messages and the summary comment:
 * `acme/widgets`' `ci/test` (the demo's #229 fails it) and `acme/ships`' `ci` (**✗ Fail the head's checks**).
 */
export const SANDBOX_CHECK_FAILURES = [
  {
    repository: SANDBOX_REPOSITORY,
    check: "ci/test",
    output: {
      title: "3 tests failed, 212 passed",
      summary:
        "## Failed tests\n- `gallery › renders thumbnails` timed out after **5 s**\n- `cache › evicts the oldest entry`\n- `api › retries a 503`\n\nSee the [full log](https://ci.example.com/acme/widgets/build/4821) for details.",
      text: "Jest 29.7.0, Node 20.18.0, 215 tests in 38 s.",
      annotations: [
        {
          path: "src/gallery/thumbnails.test.ts",
          line: 42,
          message: "Timed out after 5000 ms waiting for the thumbnails",
        },
        { path: "src/cache/lru.ts", line: 118, message: "Expected size 2, received 3" },
      ],
    },
  },
  {
    repository: SANDBOX_GITHUB_QUEUE_REPOSITORY,
    check: "ci",
    output: {
      title: "Build failed: 1 error",
      summary: "The hull module does not compile on the merge group's commit.\n\n**1 error**, 0 warnings.",
      text: null,
      annotations: [
        { path: "src/hull/plates.rs", line: 57, message: "mismatched types: expected `u32`, found `i64`" },
        { path: "src/hull/mod.rs", line: 12, level: "warning" as const, message: "unused import: `Rivet`" },
        { path: "src/hull/mod.rs", line: 3, message: "could not compile `hull` due to 1 previous error" },
      ],
    },
  },
];

/** The page's people wrote some of the seeded pull requests: they hear about those in direct messages. */
function seedAuthors(sim: Simulator): void {
  for (const person of SANDBOX_PEOPLE) {
    for (const number of person.authorOf ?? []) {
      const pull = sim.state.getPullRequest(SANDBOX_REPOSITORY, number);
      if (pull) pull.author = { id: person.githubId, login: person.login };
    }
  }
}

/** The simulator's pull requests (number, title, author, base) on the GitHub stand-in; merged ones closed. */
function seedGitHub(sim: Simulator, github: GitHubStandIn): void {
  const { state } = github;
  state.addRepository(SANDBOX_REPOSITORY, { description: "Widgets for every dashboard" });
  for (const person of SANDBOX_PEOPLE) {
    state.addUser({ login: person.login, id: person.githubId });
    state.setPermission(SANDBOX_REPOSITORY, person.login, person.role);
  }
  const repo = sim.state.requireRepository(SANDBOX_REPOSITORY);
  const merged = new Set(
    sim.state
      .events(SANDBOX_REPOSITORY)
      .filter((e) => e.type === "action.queue.merged" && e.pull_request !== null)
      .map((e) => e.pull_request),
  );
  const pulls = [...repo.pulls.values()].sort((a, b) => a.number - b.number);
  for (const pull of pulls) {
    const login = pull.author.login;
    if (!state.getUser(login)) {
      state.addUser({ login, id: pull.author.id, type: login.endsWith("[bot]") ? "Bot" : "User" });
    }
    state.addPullRequest({
      repository: SANDBOX_REPOSITORY,
      number: pull.number,
      title: pull.title,
      author: login,
      base: pull.baseRef,
      headSha: pull.headSha,
      merged: merged.has(pull.number),
    });
  }
}

/**
 * acme/ships: its main branch has GitHub's own merge queue (the sandbox runs MERGE_QUEUE_PROVIDER=auto),
 * with a pull request queued and two to queue (`/mq queue acme/ships#2`, `/mq status acme/ships`). Its
 * ruleset requires CI's `ci` and Yardmaster's gate check from the app (docs/backends.md, "The gate"), so
 * that `/mq pause acme/ships …` holds its merge groups until `/mq unpause`. Its admin (SANDBOX_ADMIN) may
 * merge past the queue: the page's "Merge without the queue".
 */
function seedGitHubQueue(github: GitHubStandIn): void {
  const { state } = github;
  const repository = SANDBOX_GITHUB_QUEUE_REPOSITORY;
  state.addRepository(repository, { description: "Ships on GitHub's own merge queue" });
  for (const person of SANDBOX_PEOPLE) state.setPermission(repository, person.login, person.role);
  state.setPermission(repository, SANDBOX_ADMIN, "admin");
  github.mergeQueues.enable(repository, "main", { appRequiredChecks: [DEFAULT_GATE_CHECK_NAME] });
  const author = SANDBOX_PEOPLE[0]?.login ?? "octocat";
  const titles = ["Reinforce the hull", "Brass fittings for the galley", "New sails"];
  titles.forEach((title, i) => {
    state.addPullRequest({ repository, number: i + 1, title, author, base: "main" });
  });
  const first = state.getIssue(repository, 1);
  const enqueuer = state.getUser(author);
  if (first && enqueuer) github.mergeQueues.enqueue(first, enqueuer, { jump: false, expectedHeadOid: null });
}

function seedSlack(slack: SlackStandIn): void {
  slack.state.addChannel({ ...SANDBOX_CHANNEL, botIsMember: true });
  for (const person of SANDBOX_PEOPLE) {
    // Paris: `/mq pause … until 18:00` in the sandbox reads the time there (the answer shows both).
    slack.state.addUser({ id: person.slackUserId, name: person.login, tz: "Europe/Paris" });
  }
}
