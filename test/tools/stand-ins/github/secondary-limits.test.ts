import { afterEach, describe, expect, it } from "vitest";
import {
  CONTENT_MESSAGE,
  GITHUB_SECONDARY_LIMITS,
  type GitHubStandIn,
  type GitHubStandInOptions,
  scaleSecondaryLimits,
  WRITE_PACE_MESSAGE,
} from "../../../../tools/stand-ins/github/index.js";
import { call, installationOctokit, startSeededStandIn, type TestOctokit, tokenOctokit } from "./helpers.js";

const repo = { owner: "acme", repo: "widgets" };
let standIn: GitHubStandIn | undefined;
afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
});

async function start(secondaryLimits: GitHubStandInOptions["secondaryLimits"]) {
  standIn = await startSeededStandIn({ secondaryLimits });
  return { gh: standIn, octokit: await installationOctokit(standIn) };
}

const comment = (octokit: TestOctokit, body = "hi") =>
  octokit.rest.issues.createComment({ ...repo, issue_number: 1, body });

describe("GitHub stand-in: secondary rate limits on the app's writes", () => {
  it("has GitHub's figures by default: a write a second (a burst of 3), 80 creations a minute, 500 an hour", async () => {
    const { gh } = await start({});
    expect(gh.secondaryLimits).toEqual(GITHUB_SECONDARY_LIMITS);
    expect(scaleSecondaryLimits(GITHUB_SECONDARY_LIMITS, 0.05)).toEqual({
      writeIntervalMs: 50,
      writeBurst: 3,
      content: [
        { limit: 80, windowMs: 3_000 },
        { limit: 500, windowMs: 180_000 },
      ],
    });
  });

  it("answers 403 with retry-after, as GitHub does, to writes faster than the pace beyond the burst", async () => {
    // One write a minute, a burst of 3: the fourth write in a row is one too many.
    const { gh, octokit } = await start({ writeIntervalMs: 60_000, writeBurst: 3, content: [] });
    await comment(octokit);
    const created = await comment(octokit);
    await octokit.rest.issues.updateComment({ ...repo, comment_id: created.data.id, body: "edited" });
    const refused = await comment(octokit).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 403, response: { data: { message: WRITE_PACE_MESSAGE } } });
    const retryAfter = Number(
      (refused as { response: { headers: Record<string, string> } }).response.headers["retry-after"],
    );
    expect(retryAfter).toBeGreaterThanOrEqual(59);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Reads are never limited; the refused comment was not created.
    await octokit.rest.issues.listComments({ ...repo, issue_number: 1 });
    expect(gh.state.comments("acme/widgets", 1)).toHaveLength(2);
    expect(gh.secondaryLimitHits).toEqual([
      {
        at: expect.any(String),
        method: "POST",
        path: "/repos/acme/widgets/issues/1/comments",
        rule: "write-pace",
        retryAfterSeconds: retryAfter,
      },
    ]);
  });

  it("answers 403 to the content-creating request beyond the window's limit; edits still go", async () => {
    const { gh, octokit } = await start({
      writeIntervalMs: 0,
      writeBurst: 1,
      content: [{ limit: 3, windowMs: 60_000 }],
    });
    const first = await comment(octokit);
    await comment(octokit);
    await octokit.rest.reactions.createForIssueComment({ ...repo, comment_id: first.data.id, content: "+1" });
    const refused = await octokit.rest.reactions
      .createForIssueComment({ ...repo, comment_id: first.data.id, content: "eyes" })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({
      status: 403,
      response: { data: { message: CONTENT_MESSAGE }, headers: { "retry-after": "60" } },
    });
    await octokit.rest.issues.updateComment({ ...repo, comment_id: first.data.id, body: "edited" });
    await octokit.rest.reactions.deleteForIssueComment({
      ...repo,
      comment_id: first.data.id,
      reaction_id: gh.state.reactions(first.data.id)[0]!.id,
    });
    expect(gh.secondaryLimitHits.map((h) => [h.rule, h.path])).toEqual([
      ["content", `/repos/acme/widgets/issues/comments/${first.data.id}/reactions`],
    ]);
  });

  it("counts only the app's own writes (installation tokens), not a person's", async () => {
    const { gh } = await start({ writeIntervalMs: 60_000, writeBurst: 1, content: [] });
    const alice = tokenOctokit(gh, gh.userToken("alice"));
    for (let i = 0; i < 3; i++) await comment(alice);
    expect(gh.secondaryLimitHits).toEqual([]);
  });

  it("records the app's writes as the limits counted them: content or not, refused or not", async () => {
    const { gh, octokit } = await start({ writeIntervalMs: 60_000, writeBurst: 2, content: [] });
    const created = await comment(octokit);
    await octokit.rest.issues.updateComment({ ...repo, comment_id: created.data.id, body: "edited" });
    await comment(octokit).catch(() => undefined);
    await tokenOctokit(gh, gh.userToken("alice")).rest.issues.createComment({
      ...repo,
      issue_number: 1,
      body: "x",
    });
    const path = "/repos/acme/widgets/issues/1/comments";
    expect(
      gh.appWrites.map(({ method, path, content, limited }) => ({ method, path, content, limited })),
    ).toEqual([
      { method: "POST", path, content: true, limited: false },
      {
        method: "PATCH",
        path: `/repos/acme/widgets/issues/comments/${created.data.id}`,
        content: false,
        limited: false,
      },
      { method: "POST", path, content: true, limited: true },
    ]);
    expect(gh.appWrites.every((w) => Number.isFinite(w.at))).toBe(true);
  });

  it("is off with secondaryLimits: false", async () => {
    const { gh, octokit } = await start(false);
    for (let i = 0; i < 5; i++) await comment(octokit);
    expect(gh.secondaryLimits).toBeNull();
    expect(gh.secondaryLimitHits).toEqual([]);
  });
});

describe("GitHub stand-in: faults", () => {
  it("answers the next matching requests with an error", async () => {
    const { gh, octokit } = await start(false);
    gh.faults.fail({ method: "POST", path: /\/issues\/1\/comments$/, status: 500, count: 2 });
    await expect(comment(octokit)).rejects.toMatchObject({ status: 500 });
    const raw = await call(`${gh.apiUrl}/repos/acme/widgets/issues/1/comments`, {
      method: "POST",
      headers: {
        authorization: `token ${((await octokit.auth({ type: "installation" })) as { token: string }).token}`,
      },
      body: JSON.stringify({ body: "x" }),
    });
    expect(raw).toMatchObject({ status: 500, json: { message: "Server Error" } });
    await comment(octokit);
    expect(gh.state.comments("acme/widgets", 1)).toHaveLength(1);
  });

  it("holds the app's writes until released; reads go on", async () => {
    const { gh, octokit } = await start(false);
    const release = gh.faults.holdWrites();
    let done = false;
    const pending = comment(octokit).then(() => {
      done = true;
    });
    await octokit.rest.issues.listComments({ ...repo, issue_number: 1 });
    await octokit.rest.issues.listComments({ ...repo, issue_number: 1 });
    expect(done).toBe(false);
    expect(gh.state.comments("acme/widgets", 1)).toHaveLength(0);
    release();
    await pending;
    expect(gh.state.comments("acme/widgets", 1)).toHaveLength(1);
  });
});
