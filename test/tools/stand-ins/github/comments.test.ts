import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GitHubStandIn } from "../../../../tools/stand-ins/github/index.js";
import { call, installationOctokit, startSeededStandIn, type TestOctokit, tokenOctokit } from "./helpers.js";

const repo = { owner: "acme", repo: "widgets" };

describe("GitHub stand-in: issue comments and reactions", () => {
  let standIn: GitHubStandIn;
  let octokit: TestOctokit;

  beforeAll(async () => {
    standIn = await startSeededStandIn();
    octokit = await installationOctokit(standIn);
  });
  afterAll(() => standIn.close());

  it("creates a comment as the app's bot, GitHub-shaped", async () => {
    const { status, data } = await octokit.rest.issues.createComment({
      ...repo,
      issue_number: 1,
      body: "Hello",
    });
    expect(status).toBe(201);
    expect(data).toMatchObject({
      body: "Hello",
      user: { login: "yardmaster[bot]", type: "Bot" },
      issue_url: `${standIn.apiUrl}/repos/acme/widgets/issues/1`,
      html_url: `${standIn.url}/acme/widgets/pull/1#issuecomment-${data.id}`,
      author_association: "NONE",
      performed_via_github_app: { id: 4242, slug: "yardmaster" },
    });
    expect(data.node_id).toEqual(expect.any(String));
    expect(data.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(data.updated_at).toBe(data.created_at);
    expect(standIn.state.comments("acme/widgets", 1).map((c) => [c.body, c.user.login])).toEqual([
      ["Hello", "yardmaster[bot]"],
    ]);
  });

  it("refuses an empty body or a too long one with 422 Validation Failed, and 404s an unknown issue", async () => {
    await expect(
      octokit.rest.issues.createComment({ ...repo, issue_number: 1, body: "" }),
    ).rejects.toMatchObject({
      status: 422,
      response: {
        data: {
          message: "Validation Failed",
          errors: [{ resource: "IssueComment", code: "missing_field", field: "body" }],
        },
      },
    });
    await expect(
      octokit.rest.issues.createComment({ ...repo, issue_number: 1, body: "x".repeat(65_537) }),
    ).rejects.toMatchObject({ status: 422 });
    await expect(
      octokit.rest.issues.createComment({ ...repo, issue_number: 77, body: "hi" }),
    ).rejects.toMatchObject({
      status: 404,
    });
  });

  it("lists comments with per_page/page and a real Link header", async () => {
    for (let i = 1; i <= 7; i++) {
      await octokit.rest.issues.createComment({ ...repo, issue_number: 2, body: `comment ${i}` });
    }
    const first = await octokit.rest.issues.listComments({ ...repo, issue_number: 2, per_page: 3 });
    expect(first.data.map((c) => c.body)).toEqual(["comment 1", "comment 2", "comment 3"]);
    const base = `${standIn.apiUrl}/repos/acme/widgets/issues/2/comments`;
    expect(first.headers.link).toBe(
      `<${base}?per_page=3&page=2>; rel="next", <${base}?per_page=3&page=3>; rel="last"`,
    );
    const second = await octokit.rest.issues.listComments({ ...repo, issue_number: 2, per_page: 3, page: 2 });
    expect(second.data.map((c) => c.body)).toEqual(["comment 4", "comment 5", "comment 6"]);
    expect(second.headers.link).toContain('rel="prev"');
    expect(second.headers.link).toContain('rel="first"');
    const last = await octokit.rest.issues.listComments({ ...repo, issue_number: 2, per_page: 3, page: 3 });
    expect(last.data.map((c) => c.body)).toEqual(["comment 7"]);
    expect(last.headers.link).not.toContain('rel="next"');

    const all = await octokit.paginate(octokit.rest.issues.listComments, {
      ...repo,
      issue_number: 2,
      per_page: 2,
    });
    expect(all).toHaveLength(7);
    // Default 30 per page, at most 100: no Link header when everything fits.
    const defaults = await octokit.rest.issues.listComments({ ...repo, issue_number: 2 });
    expect(defaults.data).toHaveLength(7);
    expect(defaults.headers.link).toBeUndefined();
  });

  it("gets, updates and deletes a comment by id", async () => {
    const { data: created } = await octokit.rest.issues.createComment({
      ...repo,
      issue_number: 2,
      body: "v1",
    });
    const got = await octokit.rest.issues.getComment({ ...repo, comment_id: created.id });
    expect(got.data.body).toBe("v1");
    const updated = await octokit.rest.issues.updateComment({ ...repo, comment_id: created.id, body: "v2" });
    expect(updated.data).toMatchObject({ id: created.id, body: "v2" });
    expect(standIn.state.getComment(created.id)?.body).toBe("v2");
    await expect(
      octokit.rest.issues.updateComment({ ...repo, comment_id: created.id, body: " " }),
    ).rejects.toMatchObject({ status: 422 });
    await octokit.rest.issues.deleteComment({ ...repo, comment_id: created.id });
    await expect(octokit.rest.issues.getComment({ ...repo, comment_id: created.id })).rejects.toMatchObject({
      status: 404,
    });
    await expect(
      octokit.rest.issues.getComment({ owner: "acme", repo: "other", comment_id: created.id }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it("adds reactions: 201 new, 200 again for the same user and content; lists and deletes them", async () => {
    const { data: comment } = await octokit.rest.issues.createComment({
      ...repo,
      issue_number: 1,
      body: "react",
    });
    const eyes = await octokit.rest.reactions.createForIssueComment({
      ...repo,
      comment_id: comment.id,
      content: "eyes",
    });
    expect(eyes.status).toBe(201);
    expect(eyes.data).toMatchObject({ content: "eyes", user: { login: "yardmaster[bot]", type: "Bot" } });
    const again = await octokit.rest.reactions.createForIssueComment({
      ...repo,
      comment_id: comment.id,
      content: "eyes",
    });
    expect(again.status).toBe(200);
    expect(again.data.id).toBe(eyes.data.id);
    const thumbs = await octokit.rest.reactions.createForIssueComment({
      ...repo,
      comment_id: comment.id,
      content: "+1",
    });
    expect(thumbs.status).toBe(201);
    // Another person (a user token) reacting with the same content is a new reaction.
    const alice = tokenOctokit(standIn, standIn.userToken("alice"));
    const aliceEyes = await alice.rest.reactions.createForIssueComment({
      ...repo,
      comment_id: comment.id,
      content: "eyes",
    });
    expect(aliceEyes.status).toBe(201);
    expect(aliceEyes.data.user?.login).toBe("alice");

    const list = await octokit.rest.reactions.listForIssueComment({ ...repo, comment_id: comment.id });
    expect(list.data.map((r) => [r.content, r.user?.login])).toEqual([
      ["eyes", "yardmaster[bot]"],
      ["+1", "yardmaster[bot]"],
      ["eyes", "alice"],
    ]);
    const onlyEyes = await octokit.rest.reactions.listForIssueComment({
      ...repo,
      comment_id: comment.id,
      content: "eyes",
    });
    expect(onlyEyes.data).toHaveLength(2);
    const rollup = await octokit.rest.issues.getComment({ ...repo, comment_id: comment.id });
    expect(rollup.data.reactions).toMatchObject({ total_count: 3, eyes: 2, "+1": 1 });

    const deleted = await octokit.rest.reactions.deleteForIssueComment({
      ...repo,
      comment_id: comment.id,
      reaction_id: eyes.data.id,
    });
    expect(deleted.status).toBe(204);
    expect(standIn.state.reactions(comment.id).map((r) => r.content)).toEqual(["+1", "eyes"]);
    await expect(
      octokit.rest.reactions.deleteForIssueComment({
        ...repo,
        comment_id: comment.id,
        reaction_id: eyes.data.id,
      }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it("refuses an unknown reaction content with 422", async () => {
    const { data: comment } = await octokit.rest.issues.createComment({
      ...repo,
      issue_number: 1,
      body: "bad",
    });
    const token = standIn.userToken("bob");
    const res = await call(`${standIn.apiUrl}/repos/acme/widgets/issues/comments/${comment.id}/reactions`, {
      method: "POST",
      headers: { authorization: `token ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ content: "thumbsup" }),
    });
    expect(res.status).toBe(422);
    expect(res.json).toMatchObject({
      message: "Validation Failed",
      errors: [{ resource: "Reaction", field: "content", code: "invalid" }],
    });
  });

  it("records requests with parsed bodies and without the authorization header", () => {
    const posts = standIn.findRequests({ method: "POST", path: /\/issues\/\d+\/comments$/ });
    expect(posts.length).toBeGreaterThan(0);
    const first = posts[0];
    expect(first?.body).toEqual({ body: "Hello" });
    expect(first?.status).toBe(201);
    expect(first?.auth).toBe("installation");
    expect(first?.headers).not.toHaveProperty("authorization");
    expect(first?.headers["content-type"]).toContain("application/json");
  });
});
