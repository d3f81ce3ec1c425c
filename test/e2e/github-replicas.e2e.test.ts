import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUMMARY_MARKER } from "../../src/github/summary-comment.js";
import type { Yardmaster } from "../../src/yardmaster.js";
import {
  GITHUB_SECONDARY_LIMITS,
  type RecordedRequest,
  scaleSecondaryLimits,
} from "../../tools/stand-ins/github/index.js";
import { GITHUB_PACE, startWorld, type World } from "../helpers/e2e.js";
import { useSchema } from "../helpers/postgres.js";

/**
 * Several replicas of one GitHub App on one PostgreSQL (issue 21): their writes keep one pace, GitHub's
 * (the stand-in enforces its secondary limits, 20 times faster, as the replicas pace themselves), answers
 * before reactions whichever replica has them; and one summary comment per pull request, whichever
 * replicas answer at once. No figure of time is asserted (`npm run bench -- github-replicas` prints
 * those): what is asserted is what the stand-in saw.
 */
const db = useSchema("ym_github_replicas");
const REPO = "acme/widgets";
let world: World;
let urls: string[];
let apps: Yardmaster[];

beforeAll(async () => {
  // 👀 only after a minute: a loaded test machine does not make a quick command slow. The stand-in
  // tolerates a burst of 6 writes rather than 3: at this pace (20 times GitHub's) a loaded machine's
  // jitter between a write's start and its arrival counts 20 times more; three replicas each keeping
  // the pace alone would still use it up within a few writes.
  world = await startWorld(
    { DATABASE_URL: db.url() },
    { githubAnswers: { seenAfterMs: 60_000 } },
    { githubLimits: { ...scaleSecondaryLimits(GITHUB_SECONDARY_LIMITS, GITHUB_PACE), writeBurst: 6 } },
  );
  const second = await world.replica();
  const third = await world.replica();
  urls = [world.url, second.url, third.url];
  apps = [world.yardmaster, second.app, third.app];
  world.github.state.addRepository(REPO);
  world.github.state.setPermission(REPO, "alice", "write");
}, 60_000);
afterAll(async () => {
  await world?.close();
});

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

/** A comment, its webhook sent to one replica (not awaited for its answer: the test waits on GitHub). */
const comment = (number: number, body: string, replica: number) =>
  world.github
    .deliverIssueComment({
      repository: REPO,
      number,
      body,
      author: "alice",
      url: `${urls[replica]}/api/github/webhooks`,
    })
    .catch(() => null);

const summaries = (number: number) =>
  world.github.state.comments(REPO, number).filter((c) => c.body.includes(SUMMARY_MARKER));
const commandIds = (numbers: number[]) =>
  numbers.map((n) => world.github.state.comments(REPO, n).find((c) => c.user.login === "alice")!.id);
const reactions = (commentId: number) => world.github.state.reactions(commentId).map((r) => r.content);
const since = (from: number) => world.github.requests.slice(from);
const isWrite = (r: RecordedRequest) => r.auth === "installation" && r.method !== "GET";

function describeWrite(write: RecordedRequest): string {
  if (/\/reactions$/.test(write.path)) return `react ${(write.body as { content: string }).content}`;
  const issue = /\/issues\/(\d+)\/comments$/.exec(write.path)?.[1];
  if (issue) return `summary #${issue}`;
  return /\/issues\/comments\/\d+$/.test(write.path) ? "summary edit" : `${write.method} ${write.path}`;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 4_500; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`never happened: ${what}`);
}

describe("three replicas of one GitHub App", () => {
  it("answer 30 simultaneous comments within GitHub's limits together, every answer before any 👍", {
    timeout: 120_000,
  }, async () => {
    const pulls = addPulls(201, 30);
    const from = world.github.requests.length;
    // GitHub is slow to answer the first writes: meanwhile every replica gets its answers ready, and
    // what follows is the shared pace's order alone.
    const release = world.github.faults.holdWrites();
    const sent = Promise.all(pulls.map((number, i) => comment(number, "@yardmaster status", i % 3)));
    // (A held request is not answered yet: status 0.)
    const held = () => since(from).filter((r) => r.method !== "GET" && r.status === 0).length;
    try {
      await until(() => commandIdsKnown(pulls) && held() > 0, "the first write held");
      // Each replica has at most one write under way: the others are queued.
      await until(() => queuedAnswers() + heldAnswers(from) === pulls.length, "every answer queued or held");
    } finally {
      release();
    }
    await sent;
    const ids = commandIds(pulls);
    await until(() => ids.every((id) => reactions(id).includes("+1")), "every command's 👍");
    await world.github.settle();

    const writes = since(from).filter(isWrite);
    expect(
      world.github.secondaryLimitHits,
      writes.map((w) => `${w.at} ${describeWrite(w)}`).join("\n"),
    ).toEqual([]);
    expect(writes.every((w) => w.status < 300)).toBe(true);
    for (const [i, number] of pulls.entries()) {
      expect(summaries(number)).toHaveLength(1);
      expect(reactions(ids[i]!)).toEqual(["+1"]);
    }
    // Every answer is written before any 👍, whichever replica has it.
    const order = writes.map(describeWrite);
    expect(order.filter((w) => w.startsWith("summary #"))).toHaveLength(pulls.length);
    expect(order.slice(0, pulls.length), order.join(", ")).toEqual(
      pulls.map(() => expect.stringMatching(/^summary #/)),
    );
    expect(order.slice(pulls.length)).toEqual(pulls.map(() => "react +1"));
  });
});

function commandIdsKnown(numbers: number[]): boolean {
  return numbers.every((n) => world.github.state.comments(REPO, n).some((c) => c.user.login === "alice"));
}

/** Answers waiting in the replicas' write queues. */
function queuedAnswers(): number {
  return apps.reduce((sum, app) => sum + (app.githubWrites?.pending.answer ?? 0), 0);
}

/** Summaries the stand-in holds unanswered. */
function heldAnswers(from: number): number {
  return since(from).filter(
    (r) => r.status === 0 && r.method === "POST" && /\/issues\/\d+\/comments$/.test(r.path),
  ).length;
}

describe("two replicas answering first commands on one pull request at the same instant", () => {
  it("make one summary comment, created by one and edited by the other", { timeout: 60_000 }, async () => {
    const [pull] = addPulls(301, 1);
    const from = world.github.requests.length;
    const release = world.github.faults.holdWrites();
    const sent = Promise.all([
      comment(pull!, "@yardmaster status", 0),
      comment(pull!, "@yardmaster help", 1),
    ]);
    const lists = () =>
      since(from).filter((r) => r.method === "GET" && r.path.endsWith(`/issues/${pull}/comments`));
    const creations = () =>
      since(from).filter((r) => r.method === "POST" && r.path.endsWith(`/issues/${pull}/comments`));
    try {
      // Both replicas looked for a summary on GitHub and found none; one creates it (held by GitHub):
      // the other, which found no summary either, must not create a second.
      await until(() => lists().length >= 2 && creations().length >= 1, "both replicas looked, one creates");
    } finally {
      release();
    }
    await sent;
    const ids = world.github.state
      .comments(REPO, pull!)
      .filter((c) => c.user.login === "alice")
      .map((c) => c.id);
    expect(ids).toHaveLength(2);
    await until(() => ids.every((id) => reactions(id).includes("+1")), "both commands' 👍");

    expect(creations()).toHaveLength(1);
    expect(summaries(pull!)).toHaveLength(1);
    // The one that did not create it edited it in place with its answer, after the creation.
    const created = (creations()[0]!.body as { body: string }).body;
    const other = created.includes("`@yardmaster status`") ? "help" : "status";
    expect(created).not.toContain(`\`@yardmaster ${other}\``);
    expect(summaries(pull!)[0]!.body).toContain(`latest command \`@yardmaster ${other}\` by **alice**`);
  });
});
