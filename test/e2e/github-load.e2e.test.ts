import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUMMARY_MARKER } from "../../src/github/summary-comment.js";
import { createLogger } from "../../src/logger.js";
import type { RecordedRequest } from "../../tools/stand-ins/github/index.js";
import { startWorld, type World } from "../helpers/e2e.js";

/**
 * GitHub answers under load and when GitHub fails, end to end: the GitHub stand-in enforces GitHub's
 * secondary rate limits (20 times faster, as Yardmaster paces itself: test/helpers/e2e.ts), webhooks
 * are signed, Yardmaster runs its real server. No figure of time is asserted (`npm run bench -- github`
 * measures those at GitHub's own pace): what is asserted is what the stand-in saw, in its order.
 */
let world: World;
const REPO = "acme/widgets";
const SEEN_AFTER_MS = 3_000;
const logs: { level: number; msg: string; status?: number }[] = [];

beforeAll(async () => {
  world = await startWorld(
    {},
    {
      logger: createLogger({ level: "info" }, { write: (line: string) => logs.push(JSON.parse(line)) }),
      // 👀 after 3 s rather than GitHub's 1 s: a loaded test machine does not make a quick command slow.
      githubAnswers: {
        retry: { retries: 1, backoffMs: () => 50 },
        answerRetryDelayMs: 200,
        seenAfterMs: SEEN_AFTER_MS,
      },
    },
  );
  world.github.state.addRepository(REPO);
  world.github.state.setPermission(REPO, "alice", "write");
});
afterAll(() => world.close());

const COMMENTS = 40;

function addPulls(first: number, count: number): number[] {
  const numbers = Array.from({ length: count }, (_, i) => first + i);
  for (const number of numbers) {
    world.github.state.addPullRequest({
      repository: REPO,
      number,
      author: "alice",
      title: `Change ${number}`,
    });
  }
  return numbers;
}

const comment = (number: number, body: string) =>
  world.github.deliverIssueComment({ repository: REPO, number, body, author: "alice" });

const errors = () => logs.filter((l) => l.level >= 50).map((l) => l.msg);
const reactions = (commentId: number) => world.github.state.reactions(commentId).map((r) => r.content);
const summaries = (number: number) =>
  world.github.state.comments(REPO, number).filter((c) => c.body.includes(SUMMARY_MARKER));

/** The app's writes the stand-in received since `from` (an index into its request log), in order. */
function appWrites(from: number): RecordedRequest[] {
  return world.github.requests
    .slice(from)
    .filter((r) => r.auth === "installation" && ["POST", "PATCH", "PUT", "DELETE"].includes(r.method));
}

function describeWrite(write: RecordedRequest): string {
  if (/\/reactions$/.test(write.path)) return `react ${(write.body as { content: string }).content}`;
  if (/\/reactions\/\d+$/.test(write.path)) return "unreact";
  const issue = /\/issues\/(\d+)\/comments$/.exec(write.path)?.[1];
  return issue ? `summary #${issue}` : `${write.method} ${write.path}`;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 3_000; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`never happened: ${what}`);
}

describe("GitHub answers under load", () => {
  it(`answers ${COMMENTS} simultaneous status comments, each with one summary, answers first, no secondary limit hit`, {
    timeout: 90_000,
  }, async () => {
    const pulls = addPulls(201, COMMENTS);
    const from = world.github.requests.length;
    // GitHub is slow to answer the first write: meanwhile every command gets its answer ready, and
    // what follows is the write queue's order alone, whatever the pace at which commands finished.
    const release = world.github.faults.holdWrites();
    // Yardmaster answers each webhook when its command is done (or 202 after 9 s); a delivery the
    // stand-in gave up on after 10 s, as GitHub would, changes nothing here: the command runs on.
    const sent = Promise.all(pulls.map((number) => comment(number, "@yardmaster status").catch(() => null)));
    const writes = world.yardmaster.githubWrites!;
    // The held write is an answer, or a 👀 if no command was done within a second.
    const heldAnswers = () =>
      world.github.requests
        .slice(from)
        .filter((r) => r.status === 0 && r.method === "POST" && /\/issues\/\d+\/comments$/.test(r.path))
        .length;
    try {
      await until(() => writes.pending.answer + heldAnswers() === COMMENTS, "every answer queued");
    } finally {
      release();
    }
    await sent;
    const ids = pulls.map(
      (number) => world.github.state.comments(REPO, number).find((c) => c.user.login === "alice")!.id,
    );
    await until(() => ids.every((id) => reactions(id).includes("+1")), "every command's 👍");
    await world.github.settle();

    expect(
      world.github.secondaryLimitHits,
      appWrites(from)
        .map((w) => `${w.at} ${describeWrite(w)}`)
        .join("\n"),
    ).toEqual([]);
    for (const [i, number] of pulls.entries()) {
      expect(summaries(number)).toHaveLength(1);
      expect(summaries(number)[0]?.body).toContain("latest command `@yardmaster status` by **alice**");
      // 👍 alone, but for the held first write's command if it was a 👀 (nothing done within a second).
      expect(reactions(ids[i]!).filter((r) => r !== "eyes")).toEqual(["+1"]);
    }
    const order = appWrites(from).map(describeWrite);
    expect(appWrites(from).every((w) => w.status < 300)).toBe(true);
    // The nth answer is among the first n + 1 writes (the first write went before the others were
    // ready: it may be a 👀), no other 👀 is written, and every 👍 comes after the last answer.
    const answerAt = order.flatMap((w, at) => (w.startsWith("summary") ? [at] : []));
    expect(answerAt).toHaveLength(COMMENTS);
    expect(
      answerAt.filter((at, n) => at > n + 1),
      order.join(", "),
    ).toEqual([]);
    expect(
      order.filter((w, at) => w === "react eyes" && at > 0),
      order.join(", "),
    ).toEqual([]);
    const afterAnswers = order.slice(answerAt.at(-1)! + 1);
    expect(afterAnswers, order.join(", ")).toEqual(Array(COMMENTS).fill("react +1"));
  });
});

describe("GitHub answers: 👀 only for a slow command", () => {
  it("a command answered quickly gets 👍 alone", async () => {
    const [pull] = addPulls(301, 1);
    const { commentId } = await comment(pull!, "@yardmaster status");
    expect(reactions(commentId)).toEqual(["+1"]);
  });

  it("a command still running after SEEN_AFTER_MS gets 👀, then its answer, then 👍", {
    timeout: 30_000,
  }, async () => {
    const [pull] = addPulls(302, 1);
    // The merge queue takes longer to answer than the time after which 👀 is sent.
    world.sim.faults.set(REPO, { latencyMs: SEEN_AFTER_MS + 1_500 });
    const from = world.github.requests.length;
    try {
      const { commentId } = await comment(pull!, "@yardmaster status");
      expect(reactions(commentId)).toEqual(["eyes", "+1"]);
    } finally {
      world.sim.faults.clear(REPO);
    }
    expect(appWrites(from).map(describeWrite)).toEqual(["react eyes", "summary #302", "react +1"]);
  });
});

describe("GitHub answers: an answer GitHub would not take", () => {
  it("ends with 😕 when the summary gets GitHub's 500, logs why, writes it once more later, then 👍", async () => {
    const [pull] = addPulls(401, 1);
    const summaryPath = `/api/v3/repos/${REPO}/issues/${pull}/comments`;
    // The attempt and the write queue's one retry.
    world.github.faults.fail({ method: "POST", path: summaryPath, status: 500, count: 2 });
    const from = world.github.requests.length;
    const { commentId } = await comment(pull!, "@yardmaster pause release freeze");
    expect(world.sim.state.pauseData(REPO)).toMatchObject({ paused: true, reason: "release freeze" });

    expect(appWrites(from).map((w) => `${describeWrite(w)} ${w.status}`)).toEqual([
      `summary #${pull} 500`,
      `summary #${pull} 500`,
      "react confused 201",
      // Later: the answer once more, then 👍 in place of 😕.
      `summary #${pull} 201`,
      "react +1 201",
      "unreact 204",
    ]);
    expect(reactions(commentId)).toEqual(["+1"]);
    expect(summaries(pull!)).toHaveLength(1);
    expect(summaries(pull!)[0]?.body).toContain("is **paused**: release freeze");
    expect(errors()).toContainEqual(
      expect.stringMatching(
        /^could not write the answer \(the summary comment\): GitHub answered 500 \(Server Error.*\); trying once more later$/,
      ),
    );
    await comment(pull!, "@yardmaster unpause");
  });

  it("keeps 😕 when the later try fails too, and tries no more", async () => {
    const [pull] = addPulls(402, 1);
    world.github.faults.fail({
      method: "POST",
      path: `/api/v3/repos/${REPO}/issues/${pull}/comments`,
      status: 503,
      count: 4,
    });
    const from = world.github.requests.length;
    const { commentId } = await comment(pull!, "@yardmaster status");
    expect(appWrites(from).map((w) => `${describeWrite(w)} ${w.status}`)).toEqual([
      `summary #${pull} 503`,
      `summary #${pull} 503`,
      "react confused 201",
      `summary #${pull} 503`,
      `summary #${pull} 503`,
    ]);
    expect(reactions(commentId)).toEqual(["confused"]);
    expect(summaries(pull!)).toEqual([]);
    expect(errors()).toContainEqual(
      expect.stringMatching(/^could not write the answer on the later try either: GitHub answered 503 \(/),
    );
  });
});
