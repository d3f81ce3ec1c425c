// What the sandbox starts with, besides the simulator's demo seed: the same repository and pull requests
// on the GitHub stand-in, the page's two people on GitHub and Slack (linked), and #merge-queue subscribed.

import { Repo } from "../../src/repo.js";
import type { Store } from "../../src/store/index.js";
import type { Simulator } from "../simulator/index.js";
import type { GitHubStandIn } from "../stand-ins/github/index.js";
import type { SlackStandIn } from "../stand-ins/slack/index.js";
import { SANDBOX_CHANNEL, SANDBOX_PEOPLE, SANDBOX_REPOSITORY, SANDBOX_TEAM_ID } from "./demo-people.js";

export const SUBSCRIBED_GROUPS = ["queue", "checks", "pause"];

export async function seedSandbox(parts: {
  sim: Simulator;
  github: GitHubStandIn;
  slack: SlackStandIn;
  store: Store;
}): Promise<void> {
  seedGitHub(parts.sim, parts.github);
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
  // Made now, so that only what happens from now on is notified (no backfill of the seeded log).
  await parts.store.putSubscription({
    channelId: SANDBOX_CHANNEL.id,
    teamId: SANDBOX_TEAM_ID,
    repository: Repo.from(SANDBOX_REPOSITORY),
    branchGlob: null,
    groups: SUBSCRIBED_GROUPS,
    createdBy: SANDBOX_PEOPLE[0]?.login ?? "octocat",
    createdAt: new Date(parts.sim.clock.now()),
  });
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

function seedSlack(slack: SlackStandIn): void {
  slack.state.addChannel({ ...SANDBOX_CHANNEL, botIsMember: true });
  for (const person of SANDBOX_PEOPLE) {
    slack.state.addUser({ id: person.slackUserId, name: person.login });
  }
}
