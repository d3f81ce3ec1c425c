import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUMMARY_MARKER } from "../../src/github/summary-comment.js";
import type { Yardmaster } from "../../src/yardmaster.js";
import { waitFor } from "../../tools/stand-ins/slack/wait-for.js";
import { startWorld, type World } from "../helpers/e2e.js";
import { useSchema } from "../helpers/postgres.js";

/**
 * The merge queue's answer to a relay on several replicas of one PostgreSQL (docs/commands.md,
 * "Following the merge queue's answer"): whichever replica receives the answer's webhook shows it, once,
 * and a relay is still followed after the replica that relayed it restarted.
 */
const db = useSchema("ym_relays");
const REPO = "acme/sprockets";
let world: World;
let second: { app: Yardmaster; url: string };

beforeAll(async () => {
  world = await startWorld({ DATABASE_URL: db.url() });
  second = await world.replica();
  world.sim.state.addRepository(REPO, { branches: ["main"] });
  world.github.state.addRepository(REPO);
  world.github.state.setPermission(REPO, "alice", "write");
  for (const number of [1, 2]) {
    world.github.state.addPullRequest({
      repository: REPO,
      number,
      author: "alice",
      title: `Pull ${number}`,
      base: "main",
    });
    world.sim.state.knowPullRequest(REPO, { number, base_ref: "main" });
    world.sim.state.setConditions(REPO, number, ["label=ready"]);
  }
});
afterAll(async () => {
  await world?.close();
});

function summary(number: number): { id: number; body: string } | undefined {
  const found = world.github.state
    .comments(REPO, number)
    .filter((c: { body: string }) => c.body.includes(SUMMARY_MARKER));
  expect(found.length).toBeLessThanOrEqual(1);
  return found[0];
}
const summarySays = (number: number, text: string) =>
  waitFor(() => summary(number)?.body.includes(text), 15_000);
/** Every webhook delivered, and both replicas done with what they recorded, twice over. */
async function quiet(): Promise<void> {
  for (let round = 0; round < 2; round++) {
    await world.github.settle();
    await Promise.all([world.yardmaster, second.app].map((app) => app.webhookWorkDone()));
  }
}
const edits = (id: number) =>
  world.github.findRequests({ method: "PATCH", path: `/repos/${REPO}/issues/comments/${id}` }).length;

describe("relays followed by replicas on one PostgreSQL", () => {
  it("shows the answer once, from the replica its webhook reached", async () => {
    await world.github.deliverIssueComment({
      repository: REPO,
      number: 1,
      body: "@yardmaster queue",
      author: "alice",
    });
    await summarySays(1, "⏳ The merge queue is waiting for conditions");
    await quiet();
    const { id } = summary(1)!;
    const before = edits(id);

    world.github.setWebhookUrl(`${second.url}/api/github/webhooks`);
    world.sim.state.setConditions(REPO, 1, []);
    await summarySays(1, "✅ #1 is in the merge queue `default` at position");
    // Both replicas are done with every webhook (and with those their own writes caused): an edit the
    // other replica would make twice would be made by now.
    await quiet();
    expect(edits(id) - before).toBe(1);
    world.github.setWebhookUrl(`${world.url}/api/github/webhooks`);
  });

  it("still follows a relay after the replica that relayed it restarted", async () => {
    await world.github.deliverIssueComment({
      repository: REPO,
      number: 2,
      body: "@yardmaster queue",
      author: "alice",
    });
    await summarySays(2, "⏳ The merge queue is waiting for conditions");
    await world.github.settle();
    await world.restart();
    world.sim.state.setConditions(REPO, 2, []);
    await summarySays(2, "✅ #2 is in the merge queue `default` at position");
    expect(
      world.github.state.comments(REPO, 2).filter((c: { body: string }) => c.body.startsWith("@mergifyio ")),
    ).toHaveLength(1);
  });
});
