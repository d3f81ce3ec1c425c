import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUMMARY_MARKER } from "../../src/github/summary-comment.js";
import type { Yardmaster } from "../../src/yardmaster.js";
import { startWorld, type World } from "../helpers/e2e.js";
import { useSchema } from "../helpers/postgres.js";

/**
 * A comment command's webhook is answered once the command is recorded, and the command runs after
 * (docs/architecture.md, "A command's path"): end to end, two replicas on one PostgreSQL, the GitHub
 * stand-in holding what the test wants held. No time is asserted (`npm run bench -- github` prints the
 * answers' latency): what is asserted is what GitHub saw, in its order.
 */
const db = useSchema("ym_webhook_jobs");
const REPO = "acme/widgets";
let world: World;
let doomed: { app: Yardmaster; url: string };

beforeAll(async () => {
  // A claim lapses after a second without renewal (it is renewed three times a second while its replica
  // lives); each replica's runner looks for lapsed ones at least once a second. No 👀 within the test.
  const answers = { jobLeaseMs: 1_000, seenAfterMs: 600_000 };
  world = await startWorld({ DATABASE_URL: db.url() }, { githubAnswers: answers });
  doomed = await world.replica();
  world.github.state.addRepository(REPO);
  world.github.state.setPermission(REPO, "alice", "write");
  for (const number of [1, 2, 3]) {
    world.github.state.addPullRequest({
      repository: REPO,
      number,
      author: "alice",
      title: `Change ${number}`,
    });
  }
});
afterAll(async () => {
  await world?.close();
});

const summaries = (number: number) =>
  world.github.state.comments(REPO, number).filter((c) => c.body.includes(SUMMARY_MARKER));
const reactions = (commentId: number) => world.github.state.reactions(commentId).map((r) => r.content);
/** The app's writes of a pull request's summary comment GitHub accepted (created or edited). */
const summaryWrites = (number: number) => {
  const edits = summaries(number).map((c) => `/issues/comments/${c.id}`);
  return world.github.requests.filter(
    (r) =>
      r.auth === "installation" &&
      r.status >= 200 &&
      r.status < 300 &&
      ((r.method === "POST" && r.path.endsWith(`/issues/${number}/comments`)) ||
        (r.method === "PATCH" && edits.some((edit) => r.path.endsWith(edit)))),
  );
};
/** Requests GitHub holds unanswered. */
const pending = (method: string, path: RegExp) =>
  world.github.requests.filter((r) => r.status === 0 && r.method === method && path.test(r.path));

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 3_000; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`never happened: ${what}`);
}

const comment = (number: number, options: { answerOnly?: boolean; body?: string } = {}) =>
  world.github.deliverIssueComment({
    repository: REPO,
    number,
    body: options.body ?? "@yardmaster status",
    author: "alice",
    ...options,
  });

describe("a comment command's webhook, answered before its command runs", () => {
  it("is answered while its answer's write is held at GitHub; the summary and 👍 follow", {
    timeout: 90_000,
  }, async () => {
    const release = world.github.faults.holdWrites();
    let answered: Awaited<ReturnType<typeof comment>>;
    try {
      answered = await comment(1, { answerOnly: true });
      // Answered at once (a 202 would say Probot gave up waiting for the command after 9 s).
      expect(answered.status).toBe(200);
      expect(summaries(1)).toEqual([]);
      // The command ran meanwhile, and its answer waits at GitHub.
      await until(
        () => pending("POST", /\/issues\/1\/comments$/).length > 0,
        "the summary's write held at GitHub",
      );
    } finally {
      release();
    }
    await world.yardmaster.webhookWorkDone();
    expect(summaries(1)).toHaveLength(1);
    expect(summaries(1)[0]?.body).toContain("latest command `@yardmaster status` by **alice**");
    expect(reactions(answered.commentId)).toEqual(["+1"]);
  });

  it("is run once when GitHub redelivers it: the redelivery changes nothing", {
    timeout: 90_000,
  }, async () => {
    const first = await comment(2);
    expect(summaryWrites(2)).toHaveLength(1);
    const again = await world.github.redeliver(first.deliveryId);
    expect(again.status).toBe(200);
    await world.yardmaster.webhookWorkDone();
    expect(summaryWrites(2)).toHaveLength(1);
    expect(summaries(2)).toHaveLength(1);
    expect(reactions(first.commentId)).toEqual(["+1"]);
  });

  it("is run by another replica when the one that recorded it stops before running it, and answered once", {
    timeout: 120_000,
  }, async () => {
    // The doomed replica receives the webhook; its command waits for GitHub's answer to its first read
    // (the author's permission: a pause needs write) when the replica stops, abandoning it.
    const permission = /\/collaborators\/alice\/permission$/;
    const pauses = () => world.sim.state.events(REPO).filter((e) => e.type === "queue.pause.create").length;
    const pausedBefore = pauses();
    const release = world.github.faults.hold({ method: "GET", path: permission });
    world.github.setWebhookUrl(`${doomed.url}/api/github/webhooks`);
    let commentId: number;
    try {
      const answered = await comment(3, { answerOnly: true, body: "@yardmaster pause replica drill" });
      commentId = answered.commentId;
      expect(answered.status).toBe(200);
      await until(() => pending("GET", permission).length > 0, "the command's first read held at GitHub");
      const stopped = await doomed.app.close();
      expect(stopped.abandoned).toBeGreaterThan(0);
    } finally {
      world.github.setWebhookUrl(`${world.url}/api/github/webhooks`);
      // GitHub answers the stopped replica's read now: whatever it does next, it writes nothing.
      release();
    }
    await until(() => reactions(commentId).includes("+1"), "the other replica's 👍");
    await Promise.all([world.yardmaster.webhookWorkDone(), doomed.app.webhookWorkDone()]);
    await world.github.settle();
    expect(summaryWrites(3)).toHaveLength(1);
    expect(summaries(3)).toHaveLength(1);
    expect(summaries(3)[0]?.body).toContain("latest command `@yardmaster pause replica drill` by **alice**");
    expect(reactions(commentId)).toEqual(["+1"]);
    // Paused once: the merge queue's log has one pause more.
    expect(pauses()).toBe(pausedBefore + 1);
  });
});
