import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_CHANNEL, SANDBOX_GITHUB_QUEUE_REPOSITORY } from "../../tools/sandbox/demo-people.js";
import { type Sandbox, startSandbox } from "../../tools/sandbox/start-sandbox.js";

/** The sandbox offers acme/ships on GitHub's own merge queue next to acme/widgets on the simulator. */
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, pollIntervalSeconds: 60 });
});
afterAll(() => sandbox?.close());

const slash = async (text: string) => {
  const { slack } = sandbox.world;
  const sent = await slack.sendSlashCommand({ text, userId: "U0OCTOCAT", channelId: SANDBOX_CHANNEL.id });
  const answer = await slack.waitFor(
    () => slack.state.responses.find((r) => r.responseUrl === sent.responseUrl),
    10_000,
  );
  return `${answer.text ?? ""}`;
};

describe("the sandbox's repository on GitHub's merge queue", () => {
  it("queues from Slack and shows the queue with positions", async () => {
    const repo = SANDBOX_GITHUB_QUEUE_REPOSITORY;
    expect(await slash(`queue ${repo}#2`)).toContain("at position 2 in GitHub's merge queue of");
    expect(await slash(`status ${repo}`)).toContain("2 pull requests queued");
    expect(await slash(`pause ${repo} release freeze`)).toContain("which has no pause");
  });
});
