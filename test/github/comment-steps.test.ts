import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { storedSteps } from "../../src/commands/steps.js";
import { type CommentPayload, handleComment } from "../../src/github/app.js";
import { commentReactions } from "../../src/github/comment-reactions.js";
import { type Octokit, octokitGateway } from "../../src/github/octokit-gateway.js";
import { SUMMARY_MARKER } from "../../src/github/summary-comment.js";
import { createLogger } from "../../src/logger.js";
import type { RelayFollower } from "../../src/relays/follower.js";
import { Repo } from "../../src/repo.js";
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
function run(body: string, held = true, relays?: { follower: RelayFollower; botLogin: string }) {
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
      ...(relays ? { relays } : {}),
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

  it("tells the relay follower where it answered once: a second run marks no relay superseded again", async () => {
    github();
    nock(MQ).put(`${MQ_REPO}/merge-queue/pause`).reply(200, paused);
    const told: string[] = [];
    const follower = {
      summaryWritten: async (repo: Repo, pull: number) => {
        told.push(`summary ${repo.fullName}#${pull}`);
      },
      presented: async () => {
        told.push("presented");
      },
    } as unknown as RelayFollower;
    await run("@yardmaster pause deploy", true, { follower, botLogin: "mergify[bot]" });
    await run("@yardmaster pause deploy", true, { follower, botLogin: "mergify[bot]" });
    expect(told).toEqual(["summary acme/widgets#42"]);
  });
});

describe("the reactions on a command's comment", () => {
  const target = () => ({
    octokit: new TestOctokit({ auth: "ghs_test" }) as unknown as Octokit,
    writes: testWrites(),
    repo: Repo.of("acme", "widgets"),
    commentId: 900,
    log,
  });
  const reactions = () =>
    commentReactions(target(), storedSteps(store, "d-1", log), async (step) => {
      return (await store.commandStep("d-1", step))?.result ?? null;
    });

  it("adds each reaction once across the runs of a command; one not added is added by a later run", async () => {
    // GitHub fails the first one (a 502 the write queue does not try again here).
    nock(GH).post(`${REPO}/issues/comments/900/reactions`).reply(502, { message: "Bad gateway" });
    const gh = github();
    expect(await reactions().add("eyes", "seen")).toBeNull();
    expect(await reactions().add("eyes", "seen")).toBe(501);
    expect(await reactions().add("eyes", "seen")).toBe(501);
    expect(await reactions().add("+1")).toBe(502);
    expect(await reactions().add("+1")).toBe(502);
    expect(gh.reactions).toEqual(["eyes", "+1"]);
  });

  it("adds none once cancelled (the answer was written first), and records none", async () => {
    const gh = github();
    const cancelled = AbortSignal.abort();
    expect(await reactions().add("eyes", "seen", cancelled)).toBeNull();
    expect(await store.commandStep("d-1", "reaction.eyes")).toBeNull();
    expect(gh.reactions).toEqual([]);
  });
});

describe("the relayed comment found again", () => {
  it("is the app's comment whose body holds the mark, on any page of the thread", async () => {
    const page = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => ({
        id: from + i,
        body: `comment ${from + i}`,
        html_url: `https://github.com/acme/widgets/pull/42#c${from + i}`,
        user: { login: "alice", type: "User" },
      }));
    const mark = "<!-- yardmaster:step 0b9f -->";
    nock(GH)
      .get(`${REPO}/issues/42/comments`)
      .query({ per_page: "100" })
      .reply(200, [...page(1, 99), { ...page(100, 1)[0], body: `@mergifyio queue\n${mark}` }], {
        link: `<${GH}${REPO}/issues/42/comments?per_page=100&page=2>; rel="next"`,
      })
      .get(`${REPO}/issues/42/comments`)
      .query({ per_page: "100", page: "2" })
      .reply(200, [
        {
          id: 200,
          body: `@mergifyio queue\n${mark}`,
          html_url: "https://github.com/acme/widgets/pull/42#c200",
          user: { login: "yardmaster[bot]", type: "Bot" },
        },
      ]);
    const gateway = octokitGateway(
      async () => new TestOctokit({ auth: "ghs_test" }) as unknown as Octokit,
      testWrites(),
    );
    // A person's comment quoting the mark is not the app's.
    expect(await gateway.findComment(Repo.of("acme", "widgets"), 42, mark)).toEqual({
      id: 200,
      url: "https://github.com/acme/widgets/pull/42#c200",
    });
  });

  it("is none when no comment of the app holds the mark", async () => {
    nock(GH).get(`${REPO}/issues/42/comments`).query(true).reply(200, []);
    const gateway = octokitGateway(
      async () => new TestOctokit({ auth: "ghs_test" }) as unknown as Octokit,
      testWrites(),
    );
    expect(
      await gateway.findComment(Repo.of("acme", "widgets"), 42, "<!-- yardmaster:step x -->"),
    ).toBeNull();
  });
});
