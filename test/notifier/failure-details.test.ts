import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FailureDetails } from "../../src/core/check-failures.js";
import type { QueueEvent, QueueEventOf } from "../../src/core/queue.js";
import { createLogger } from "../../src/logger.js";
import { Backoffs } from "../../src/notifier/backoff.js";
import type { PostedMessage } from "../../src/notifier/chat.js";
import { Deliverer } from "../../src/notifier/deliverer.js";
import { dispatchEvent } from "../../src/notifier/dispatch.js";
import { DETAILS_WAIT_MS, FailureDetailsKeeper } from "../../src/notifier/failure-details.js";
import { notificationRenderer } from "../../src/notifier/render-notification.js";
import { Repo } from "../../src/repo.js";
import { SlackHolds } from "../../src/slack/slack-holds.js";
import type { SlackNoticePoster } from "../../src/slack/slack-poster.js";
import { openStore, type Store } from "../../src/store/index.js";
import { WorkRunner } from "../../src/work/runner.js";
import { slackLaidOut } from "../helpers/slack-notices.js";

/**
 * Why a removal's checks failed, in its notices (src/notifier/failure-details.ts): read once, waited for
 * at most 10 s, else posted without and edited in place when read; never a failed notice for them. On
 * SQLite in memory, with Slack in memory and the real renderer; the clock is the test's.
 */

const logger = createLogger({ level: "silent" });
const WIDGETS = Repo.of("acme", "widgets");
const SUBSCRIPTION = {
  channelId: "C1",
  teamId: "T1",
  repository: WIDGETS,
  branchGlob: null,
  groups: ["queue"],
  createdBy: "alice",
  createdAt: new Date(0),
};

class Slack implements SlackNoticePoster {
  posts: { channel: string; ts: string; text: string; blocks: string }[] = [];
  updates: { channel: string; ts: string; blocks: string }[] = [];
  async post(m: { channel: string; text: string; blocks: unknown[] }): Promise<PostedMessage> {
    const ts = `1700000000.${String(this.posts.length + 1).padStart(6, "0")}`;
    this.posts.push({ channel: m.channel, ts, text: m.text, blocks: JSON.stringify(m.blocks) });
    return { ts, threadTs: null };
  }
  async update(m: { channel: string; ts: string; blocks: unknown[] }) {
    this.updates.push({ channel: m.channel, ts: m.ts, blocks: JSON.stringify(m.blocks) });
  }
  async findPosted() {
    return new Map();
  }
}

const DETAILS: FailureDetails = {
  more: 0,
  checks: [
    {
      name: "ci/test",
      kind: "check-run",
      conclusion: "failure",
      url: "https://github.com/acme/widgets/runs/1",
      detailsUrl: null,
      title: "3 tests failed",
      summary: "**cache** evicts too early",
      annotations: [
        {
          path: "src/a.ts",
          line: 3,
          message: "boom",
          url: "https://github.com/acme/widgets/blob/abc/src/a.ts#L3",
        },
      ],
      description: null,
    },
  ],
};

let store: Store;
let slack: Slack;
let clock: number;

/** A reading that resolves (or fails) when the test says. */
function deferred() {
  let resolve!: (d: FailureDetails) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<FailureDetails>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

function replica(owner: string, read: () => Promise<FailureDetails>, inlineWaitMs = 20) {
  const reads: number[] = [];
  const summaries: (FailureDetails | null)[] = [];
  const tracked: Promise<unknown>[] = [];
  const pokes = { count: 0 };
  const work = new WorkRunner({ store, owner, now: () => new Date(clock), logger });
  const keeper = new FailureDetailsKeeper({
    store,
    work,
    read: async () => {
      reads.push(clock);
      return read();
    },
    summarize: async (_r, _e, details) => {
      summaries.push(details);
    },
    deliver: () => {
      pokes.count += 1;
    },
    track: (w) => tracked.push(w),
    owner,
    logger,
    clock: () => clock,
    inlineWaitMs,
  });
  const deliverer = new Deliverer({
    store,
    poster: slackLaidOut(slack),
    holds: new SlackHolds(store),
    render: notificationRenderer,
    pullInfo: async (_r, n) => ({
      number: n,
      title: `PR ${n}`,
      url: `https://github.com/acme/widgets/pull/${n}`,
    }),
    backoffs: new Backoffs(store),
    githubWebUrl: "https://github.com",
    owner,
    logger,
    now: () => new Date(clock),
    details: keeper,
  });
  const settled = () => Promise.all(tracked);
  return { keeper, deliverer, reads, summaries, pokes, settled };
}

let nextId = 100;
function event(kind: "entered" | "left"): QueueEvent {
  const base = {
    id: nextId++,
    at: new Date(clock).toISOString(),
    repository: "acme/widgets",
    pull: 42,
    branch: "main",
    queue: "default",
    origin: kind,
  };
  return kind === "entered"
    ? { ...base, kind }
    : ({
        ...base,
        kind,
        merged: false,
        reason: "its checks failed",
        code: "CHECKS_FAILED",
        failedChecks: [{ name: "ci/test", url: "https://ci.example/1", state: "failure" }],
        ranOn: { sha: "a".repeat(40), pull: null },
      } as QueueEventOf<"left">);
}

/** The pull request's thread started, then the removal handed to the outbox (reading its details). */
async function removal(r: ReturnType<typeof replica>) {
  await dispatchEvent({ deliverer: r.deliverer }, WIDGETS, event("entered"), [SUBSCRIPTION]);
  await r.deliverer.deliverPending();
  const left = event("left");
  await dispatchEvent({ deliverer: r.deliverer, details: r.keeper }, WIDGETS, left, [SUBSCRIPTION]);
  return left;
}

const removalPosts = () => slack.posts.filter((p) => p.blocks.includes("Left the merge queue"));

beforeEach(async () => {
  store = await openStore({ kind: "sqlite", path: ":memory:" });
  slack = new Slack();
  clock = Date.parse("2026-01-01T10:00:00Z");
});
afterEach(async () => {
  await store.close();
});

describe("a removal's notice and why its checks failed", () => {
  it("waits for them (at most 10 s), then is posted with them, not edited", async () => {
    const reading = deferred();
    const r = replica("r1", () => reading.promise);
    await removal(r);
    const held = await r.deliverer.deliverPending();
    expect(removalPosts()).toEqual([]);
    expect(held.nextAt?.getTime()).toBe(clock + DETAILS_WAIT_MS);
    clock += 2_000;
    reading.resolve(DETAILS);
    await r.settled();
    expect(r.pokes.count).toBe(1);
    await r.deliverer.deliverPending();
    const [posted] = removalPosts();
    expect(posted?.blocks).toContain("*3 tests failed*");
    expect(posted?.blocks).toContain(
      "<https://github.com/acme/widgets/blob/abc/src/a.ts#L3|src/a.ts:3> — boom",
    );
    expect(posted?.text).toContain("its checks failed (ci/test) — ci/test: 3 tests failed");
    await r.deliverer.deliverPending();
    expect(slack.updates.filter((u) => u.blocks.includes("3 tests failed"))).toEqual([]);
    expect(r.summaries).toEqual([DETAILS]);
  });

  it("the replica reading them posts it with them in the same pass when they come at once", async () => {
    // GitHub answers a moment after the delivery began (real time: the pass waits for it).
    const r = replica("r1", () => new Promise((resolve) => setTimeout(() => resolve(DETAILS), 200)), 5_000);
    await removal(r);
    const report = await r.deliverer.deliverPending();
    expect(report.nextAt).toBeUndefined();
    expect(removalPosts()).toHaveLength(1);
    expect(removalPosts()[0]?.blocks).toContain("*3 tests failed*");
  });

  it("after 10 s it goes without them, and is edited in place, once, when they come", async () => {
    const reading = deferred();
    const r = replica("r1", () => reading.promise);
    await removal(r);
    await r.deliverer.deliverPending();
    clock += DETAILS_WAIT_MS;
    await r.deliverer.deliverPending();
    const [posted] = removalPosts();
    expect(posted?.blocks).toContain("its checks failed");
    expect(posted?.blocks).not.toContain("3 tests failed");
    clock += 20_000;
    reading.resolve(DETAILS);
    await r.settled();
    await r.deliverer.deliverPending();
    const edits = slack.updates.filter((u) => u.blocks.includes("3 tests failed"));
    expect(edits).toEqual([expect.objectContaining({ channel: "C1", ts: posted?.ts })]);
    expect(edits[0]?.blocks).toContain("src/a.ts:3> — boom");
    await r.deliverer.deliverPending();
    expect(slack.updates.filter((u) => u.blocks.includes("3 tests failed"))).toHaveLength(1);
  });

  it("when GitHub cannot say (403, a timeout), the notice goes as it is at once; nothing fails", async () => {
    const r = replica("r1", () => Promise.reject(Object.assign(new Error("Forbidden"), { status: 403 })));
    await removal(r);
    await r.settled();
    const report = await r.deliverer.deliverPending();
    expect(report.failedChannels).toBe(0);
    expect(removalPosts()).toHaveLength(1);
    expect(removalPosts()[0]?.blocks).toContain("its checks failed");
    // The summary comment is still written, without them.
    expect(r.summaries).toEqual([null]);
    expect(slack.updates.filter((u) => u.blocks.includes("Left the merge queue"))).toEqual([]);
  });

  it("is read once, whichever replicas hand the removal over", async () => {
    const a = replica("r1", async () => DETAILS);
    const b = replica("r2", async () => DETAILS);
    const left = await removal(a);
    await dispatchEvent({ deliverer: b.deliverer, details: b.keeper }, WIDGETS, left, [SUBSCRIPTION]);
    await Promise.all([a.settled(), b.settled()]);
    expect(a.reads.length + b.reads.length).toBe(1);
  });

  it("a replica that died while reading them: another's runner takes the reading over once its claim lapses", async () => {
    const dead = replica("r1", () => new Promise<FailureDetails>(() => {}));
    const left = await removal(dead);
    const live = replica("r2", async () => DETAILS);
    // Within the claim, the live replica waits (and would post without them after 10 s).
    await live.deliverer.deliverPending();
    expect(await live.keeper.takeOver()).toBe(0);
    expect(live.reads).toEqual([]);
    clock += 59_000;
    expect(await live.keeper.takeOver()).toBe(0);
    // Its notice went without them meanwhile.
    await live.deliverer.deliverPending();
    expect(removalPosts()).toHaveLength(1);
    clock += 2_000;
    expect(await live.keeper.takeOver()).toBe(1);
    expect(live.reads).toHaveLength(1);
    expect(live.pokes.count).toBe(1);
    expect(live.summaries).toEqual([DETAILS]);
    // Taken over once: no replica reads it again.
    clock += 120_000;
    expect(await live.keeper.takeOver()).toBe(0);
    await live.deliverer.deliverPending();
    await live.deliverer.deliverPending();
    const shown = [...removalPosts(), ...slack.updates].filter((m) => m.blocks.includes("3 tests failed"));
    expect(shown.length).toBeGreaterThan(0);
    expect((await store.getFailureDetails(left.id))?.status).toBe("read");
  });
});
