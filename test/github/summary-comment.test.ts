import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import type { Octokit } from "../../src/github/octokit-gateway.js";
import { type SummaryClaims, upsertSummaryComment } from "../../src/github/summary-comment.js";
import { Repo } from "../../src/repo.js";
import { TestOctokit, testWrites } from "../helpers/github-app.js";

// The summary comment with the store's records (one per issue across replicas), HTTP mocked with nock;
// the race of two replicas runs end to end in test/e2e/github-replicas.e2e.test.ts.

const GH = "https://api.github.com";
const ISSUE = "/repos/acme/widgets/issues/42";
const repo = Repo.from("acme/widgets");
const octokit = new TestOctokit({ auth: "token" }) as unknown as Octokit;
const BOT = "yardmaster[bot]";

/** The store's records in memory, as one replica sees them; `claimedBy` plays another replica's claim. */
function memoryRecords(initial: { commentId?: number; claimedBy?: string } = {}) {
  let commentId = initial.commentId ?? null;
  let claimedBy = initial.claimedBy ?? null;
  const calls: string[] = [];
  const records: SummaryClaims["records"] = {
    async getSummaryComment() {
      return commentId;
    },
    async claimOnce(_scope, _key, { owner }) {
      calls.push(`claim ${owner}`);
      if (claimedBy !== null) return "held";
      claimedBy = owner;
      return "claimed";
    },
    async renewOnce(_scope, _key, owner) {
      return claimedBy === owner;
    },
    async recordSummaryComment(_r, _n, id) {
      calls.push(`record ${id}`);
      commentId = id;
    },
    async releaseOnce(_scope, _key, owner) {
      calls.push(`release ${owner}`);
      if (claimedBy === owner) claimedBy = null;
    },
    async forgetSummaryComment(_r, _n, id) {
      calls.push(`forget ${id}`);
      if (commentId === id) commentId = null;
    },
  };
  return {
    records,
    calls,
    recordAsOther: (id: number) => records.recordSummaryComment(repo, 42, id, new Date()),
  };
}

const upsert = (records: SummaryClaims["records"]) =>
  upsertSummaryComment(octokit, testWrites(), repo, 42, BOT, "summary", {
    records,
    owner: "me",
    pollMs: 5,
  });

afterEach(() => {
  expect(nock.isDone()).toBe(true);
  nock.cleanAll();
});

describe("the summary comment, one per issue across replicas", () => {
  it("edits the one the store knows, without looking on GitHub", async () => {
    const { records } = memoryRecords({ commentId: 7 });
    nock(GH).patch("/repos/acme/widgets/issues/comments/7", { body: "summary" }).reply(200, { id: 7 });
    expect(await upsert(records)).toEqual({ id: 7, created: false });
  });

  it("records one found on GitHub (written before the store kept them), then edits it", async () => {
    const { records, calls } = memoryRecords();
    nock(GH)
      .get(`${ISSUE}/comments`)
      .query(true)
      .reply(200, [{ id: 8, body: "<!-- yardmaster:summary --> old", user: { login: BOT } }]);
    nock(GH).patch("/repos/acme/widgets/issues/comments/8").reply(200, { id: 8 });
    expect(await upsert(records)).toEqual({ id: 8, created: false });
    expect(calls).toEqual(["record 8"]);
  });

  it("claims the creation, creates, records the id", async () => {
    const { records, calls } = memoryRecords();
    nock(GH).get(`${ISSUE}/comments`).query(true).reply(200, []);
    nock(GH).post(`${ISSUE}/comments`, { body: "summary" }).reply(201, { id: 9 });
    expect(await upsert(records)).toEqual({ id: 9, created: true });
    expect(calls).toEqual(["claim me", "record 9", "release me"]);
  });

  it("waits while another replica creates it, then edits what it recorded", async () => {
    const other = memoryRecords({ claimedBy: "other" });
    nock(GH).get(`${ISSUE}/comments`).query(true).reply(200, []);
    nock(GH).patch("/repos/acme/widgets/issues/comments/10").reply(200, { id: 10 });
    const done = upsert(other.records);
    // The other replica's creation lands while this one waits.
    while (other.calls.filter((c) => c === "claim me").length < 2) await new Promise((r) => setTimeout(r, 5));
    await other.recordAsOther(10);
    expect(await done).toEqual({ id: 10, created: false });
  });

  it("edits what another replica recorded just before this one claimed, creating nothing", async () => {
    const { records, calls } = memoryRecords();
    nock(GH)
      .get(`${ISSUE}/comments`)
      .query(true)
      .reply(200, () => {
        // The other replica records its summary (and releases its claim) after this one looked.
        void records.recordSummaryComment(repo, 42, 13, new Date());
        return [];
      });
    nock(GH).patch("/repos/acme/widgets/issues/comments/13").reply(200, { id: 13 });
    expect(await upsert(records)).toEqual({ id: 13, created: false });
    expect(calls).toEqual(["record 13", "claim me", "release me"]);
  });

  it("gives its claim up when the creation fails, so that the next command tries again", async () => {
    const { records, calls } = memoryRecords();
    nock(GH).get(`${ISSUE}/comments`).query(true).reply(200, []);
    nock(GH).post(`${ISSUE}/comments`).reply(422, { message: "Validation Failed" });
    await expect(upsert(records)).rejects.toMatchObject({ status: 422 });
    expect(calls).toEqual(["claim me", "release me"]);
  });

  it("writes it again when the one recorded was deleted on GitHub", async () => {
    const { records, calls } = memoryRecords({ commentId: 11 });
    nock(GH).patch("/repos/acme/widgets/issues/comments/11").reply(404, { message: "Not Found" });
    nock(GH).get(`${ISSUE}/comments`).query(true).reply(200, []);
    nock(GH).post(`${ISSUE}/comments`).reply(201, { id: 12 });
    expect(await upsert(records)).toEqual({ id: 12, created: true });
    expect(calls).toEqual(["forget 11", "claim me", "record 12", "release me"]);
  });
});
