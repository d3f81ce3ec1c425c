import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CommentPayload, handleComment } from "../../src/github/app.js";
import type { Octokit } from "../../src/github/octokit-gateway.js";
import { SUMMARY_MARKER } from "../../src/github/summary-comment.js";
import { createLogger } from "../../src/logger.js";
import { openStore, type Store, type WebhookJob } from "../../src/store/index.js";
import { ORIGIN as MQ, makeClient, mergifyQueues } from "../backends/mergify/fixtures.js";
import { DEFAULT_PERMISSIONS, inlineJobs, TestOctokit, testWrites } from "../helpers/github-app.js";

/**
 * A comment command's steps on the GitHub surface (docs/architecture.md, "A command's path"): a command
 * run a second time for its delivery (a replica taking it over) pauses once, answers once and reacts
 * once.
 */
const GH = "https://api.github.com";
const REPO = "/repos/acme/widgets";
const MQ_REPO = "/v1/repos/acme/widgets";
const log = createLogger({ level: "silent" });

let store: Store;
beforeEach(async () => {
  store = await openStore({ kind: "sqlite", path: ":memory:" });
});
afterEach(async () => {
  await store.close();
  nock.cleanAll();
});

const job = (body: string): Omit<WebhookJob, "payload"> & { payload: CommentPayload } => ({
  deliveryId: "d-1",
  kind: "comment",
  installationId: 77,
  receivedAt: new Date(),
  payload: {
    comment: { id: 900, body, html_url: "https://github.com/acme/widgets/pull/42#c900", author: "alice" },
    issue: { number: 42, isPullRequest: true },
    repository: { owner: "acme", name: "widgets" },
  },
});

/** One run of the comment's command, as a replica runs its job; `held`: what its claim says once it ran. */
function run(body: string, held = true) {
  return handleComment(
    job(body),
    {
      octokit: new TestOctokit({ auth: "ghs_test" }) as unknown as Octokit,
      log,
      claim: { ran: async () => held },
    },
    {
      appSlug: "yardmaster",
      queues: mergifyQueues(makeClient({ retry: { retries: 0 } })),
      permissions: DEFAULT_PERMISSIONS,
      commandPrefix: "@mergifyio",
      logger: log,
      jobs: inlineJobs(),
      writes: testWrites(),
      commandSteps: store,
      seenAfterMs: 60_000,
    },
  );
}

/** GitHub as the app sees it: the permission, the thread's comments, the reactions on the command. */
function github() {
  const reactions: string[] = [];
  const removed: number[] = [];
  const comments: { id: number; body: string }[] = [];
  nock(GH)
    .persist()
    .get(`${REPO}/collaborators/alice/permission`)
    .reply(200, { permission: "write", role_name: "write", user: { login: "alice" } })
    .get(`${REPO}/issues/42/comments`)
    .query(true)
    .reply(200, () => comments.map((c) => ({ ...c, user: { login: "yardmaster[bot]", type: "Bot" } })))
    .post(`${REPO}/issues/42/comments`)
    .reply(201, (_uri, body) => {
      const made = { id: 1000 + comments.length, body: (body as { body: string }).body };
      comments.push(made);
      return { ...made, html_url: `https://github.com/acme/widgets/pull/42#c${made.id}` };
    })
    .patch(/\/issues\/comments\/\d+$/)
    .reply(200, {})
    .post(`${REPO}/issues/comments/900/reactions`)
    .reply(201, (_uri, body) => {
      const { content } = body as { content: string };
      reactions.push(content);
      return { id: 500 + reactions.length, content };
    })
    .delete(/\/issues\/comments\/900\/reactions\/\d+$/)
    .reply(204, (uri) => {
      removed.push(Number(uri.split("/").pop()));
      return "";
    });
  return { reactions, removed, summaries: () => comments.filter((c) => c.body.includes(SUMMARY_MARKER)) };
}

const paused = { paused: true, reason: "deploy", paused_at: "2026-11-23T11:59:00Z" };

describe("a comment command run again for its delivery (taken over)", () => {
  it("pauses once, answers once and adds its reaction once", async () => {
    const gh = github();
    const put = nock(MQ).put(`${MQ_REPO}/merge-queue/pause`).once().reply(200, paused);
    await run("@yardmaster pause deploy");
    await run("@yardmaster pause deploy");
    expect(put.isDone()).toBe(true);
    expect(gh.summaries()).toHaveLength(1);
    expect(gh.reactions).toEqual(["+1"]);
  });

  it("is answered by the replica that took it over: the first, whose claim lapsed, paused and wrote nothing", async () => {
    const gh = github();
    nock(MQ).put(`${MQ_REPO}/merge-queue/pause`).once().reply(200, paused);
    await run("@yardmaster pause deploy", false);
    expect(gh.summaries()).toEqual([]);
    expect(gh.reactions).toEqual([]);
    await run("@yardmaster pause deploy");
    expect(gh.summaries()).toHaveLength(1);
    expect(gh.summaries()[0]?.body).toContain("is **paused**: deploy");
    expect(gh.reactions).toEqual(["+1"]);
    expect(nock.pendingMocks().filter((m) => m.includes("merge-queue"))).toEqual([]);
  });

  it("takes back the 😕 an earlier run added when it could not answer, once it answers", async () => {
    const gh = github();
    // The first run could not write the answer (😕), and died before its later try.
    await store.recordCommandStep("d-1", "reaction.confused", 777, new Date());
    nock(MQ).put(`${MQ_REPO}/merge-queue/pause`).reply(200, paused);
    await run("@yardmaster pause deploy");
    expect(gh.reactions).toEqual(["+1"]);
    expect(gh.removed).toEqual([777]);
  });
});
