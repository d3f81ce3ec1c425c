import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUMMARY_MARKER } from "../../src/github/summary-comment.js";
import type { Yardmaster } from "../../src/yardmaster.js";
import { eventually, startWorld, type World } from "../helpers/e2e.js";
import { useSchema } from "../helpers/postgres.js";

/**
 * A comment command's steps (docs/architecture.md, "A command's path"), end to end on two replicas of
 * one PostgreSQL: the replica that ran a relayed `queue` posted the relayed comment, then died before
 * the command was done; the other takes the command over once its claim lapsed, does not relay it a
 * second time, and answers it.
 */
const db = useSchema("ym_command_steps");
const REPO = "acme/gears";
let world: World;
let doomed: { app: Yardmaster; url: string };

beforeAll(async () => {
  // A claim lapses after a second without renewal; each replica's runner looks for lapsed ones (its
  // safety look, a second at most).
  const answers = { jobLeaseMs: 1_000, seenAfterMs: 600_000 };
  world = await startWorld({ DATABASE_URL: db.url() }, { githubAnswers: answers });
  doomed = await world.replica();
  world.sim.state.addRepository(REPO, { branches: ["main"] });
  world.github.state.addRepository(REPO);
  world.github.state.setPermission(REPO, "alice", "write");
  world.github.state.addPullRequest({
    repository: REPO,
    number: 1,
    author: "alice",
    title: "Change 1",
    base: "main",
  });
  world.sim.state.knowPullRequest(REPO, { number: 1, base_ref: "main" });
});
afterAll(async () => {
  await world?.close();
});

const comments = (number: number) => world.github.state.comments(REPO, number);
const relayed = (number: number) => comments(number).filter((c) => c.body.startsWith("@mergifyio queue"));
const summaries = (number: number) => comments(number).filter((c) => c.body.includes(SUMMARY_MARKER));
const reactions = (commentId: number) => world.github.state.reactions(commentId).map((r) => r.content);
async function stepDone(deliveryId: string, step: string): Promise<boolean> {
  const { rows } = await db
    .admin()
    .query(`SELECT 1 FROM "${db.name}".command_steps WHERE run_id = $1 AND step = $2`, [deliveryId, step]);
  return rows.length === 1;
}

describe("a relayed command taken over from a replica that died", () => {
  it("is not relayed a second time, and is answered once by the replica that took it over", {
    timeout: 120_000,
  }, async () => {
    // The merge queue answers the doomed replica's read after the relay 20 s late: it dies meanwhile.
    world.sim.faults.set(REPO, { latencyMs: 20_000 });
    world.github.setWebhookUrl(`${doomed.url}/api/github/webhooks`);
    let commentId: number;
    try {
      const asked = await world.github.deliverIssueComment({
        repository: REPO,
        number: 1,
        body: "@yardmaster queue",
        author: "alice",
        answerOnly: true,
      });
      commentId = asked.commentId;
      expect(asked.status).toBe(200);
      await eventually(() => relayed(1).length === 1);
      await eventually(() => stepDone(asked.deliveryId, "relay.comment"));
      const stopped = await doomed.app.close();
      expect(stopped.abandoned).toBeGreaterThan(0);
    } finally {
      world.github.setWebhookUrl(`${world.url}/api/github/webhooks`);
      world.sim.faults.clear(REPO);
    }
    // The other replica takes the command over once the claim lapsed, and answers it.
    await eventually(() => reactions(commentId).includes("+1"), 60_000);
    await world.yardmaster.webhookWorkDone();
    await world.github.settle();
    expect(relayed(1)).toHaveLength(1);
    expect(summaries(1)).toHaveLength(1);
    const [summary] = summaries(1);
    expect(summary?.body).toContain("latest command `@yardmaster queue` by **alice**");
    // The answer links the one relayed comment, posted by the replica that died.
    expect(summary?.body).toContain(`#issuecomment-${relayed(1)[0]?.id}`);
    expect(reactions(commentId)).toEqual(["+1"]);
  });
});
