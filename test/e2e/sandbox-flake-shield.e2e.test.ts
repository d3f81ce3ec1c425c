import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_CHANNEL, SANDBOX_REPOSITORY } from "../../tools/sandbox/demo-people.js";
import { type Sandbox, startSandbox } from "../../tools/sandbox/start-sandbox.js";
import { eventually } from "../helpers/e2e.js";

/**
 * The sandbox shows the flake shield at work by itself (tools/sandbox/flake-shield-demo.ts): ci/e2e fails for
 * #110, then #111, then once for #112, whose removal the shield asks Mergify to queue again, said in its thread, and
 * merges. On a real clock, with quick checks, the seed's running batches (ahead of #110 in main's train) ending
 * within seconds and the channel hearing at once (no Slack pacing: some hundred notices at a second each were
 * most of the wait): it waits for what the channel shows, however long the machine takes.
 */
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({
    port: 0,
    pollIntervalSeconds: 1,
    slackLimits: false,
    slackPace: false,
    seedLiveScale: 0.1,
    engine: { checksDurationMs: 2_000, batchMaxWaitMs: 1_000 },
  });
}, 60_000);
afterAll(() => sandbox?.close());

/** Every message of #merge-queue's thread of a pull request, as text and blocks. */
function thread(number: number): string[] {
  const top = sandbox.world.slack.state
    .messages(SANDBOX_CHANNEL.id)
    .find((m) => m.text.startsWith(`${SANDBOX_REPOSITORY} #${number} `));
  return top ? [top, ...top.replies].map((m) => `${m.text} ${JSON.stringify(m.blocks ?? [])}`) : [];
}

describe("the sandbox's flake shield", () => {
  it("queues #112 again when ci/e2e fails for everyone, says so in its thread, and #112 then merges", async () => {
    const said = await eventually(
      () =>
        thread(112).find((m) =>
          m.includes("ci/e2e is failing for everyone: asked Mergify to queue it again, attempt 2 of 2"),
        ),
      180_000,
    );
    // #110 and #111 among others (a batch tested behind a failing one fails the check too, in its own run).
    expect(said).toMatch(/ci\/e2e also failed for [^\n]*\|#110>/);
    expect(said).toMatch(/ci\/e2e also failed for [^\n]*\|#111>/);
    await eventually(() => thread(112).some((m) => m.includes("Merged into")), 180_000);
    // The shield relayed `queue` on #112 as Yardmaster's bot, and said it in #112's summary comment.
    const comments = sandbox.world.github.state.comments(SANDBOX_REPOSITORY, 112).map((c) => c.body);
    expect(comments.filter((c) => c.startsWith("@mergifyio queue urgent"))).toHaveLength(1);
    expect(comments.join("\n")).toContain(
      "🛡️ ci/e2e is failing for everyone: asked Mergify to queue it again, attempt 2 of 2",
    );
  }, 400_000);
});
