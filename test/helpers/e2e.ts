import { type Settings, startWorld as startWholeWorld, type World } from "../../tools/world.js";
import { TestOctokit } from "./github-app.js";

export type { World };

/**
 * The world of the end-to-end tests (tools/world.ts): the merge-queue simulator with its demo seed on a
 * manual clock, the GitHub and Slack stand-ins, and Yardmaster without retries (each failure is seen
 * once), its poller ticked by hand. `settings` adds to or overrides Yardmaster's (DATABASE_URL, ...).
 */
export function startWorld(settings: Settings = {}): Promise<World> {
  return startWholeWorld({
    settings,
    yardmaster: {
      Octokit: TestOctokit,
      mergeQueueRetries: 0,
      slackBot: { botId: "B0BOT", botUserId: "U0BOT", retries: 0 },
      autoPoll: false,
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
