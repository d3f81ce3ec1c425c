import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GitHubStandIn } from "../../../../tools/stand-ins/github/index.js";
import { installationOctokit, startSeededStandIn, type TestOctokit } from "./helpers.js";

describe("GitHub stand-in: repositories, permissions, pull requests and issues", () => {
  let standIn: GitHubStandIn;
  let octokit: TestOctokit;

  beforeAll(async () => {
    standIn = await startSeededStandIn();
    octokit = await installationOctokit(standIn);
  });
  afterAll(() => standIn.close());

  it("reports each role: permission collapsed, role_name real", async () => {
    const expected = [
      ["admin", "admin"],
      ["maintain", "write"],
      ["write", "write"],
      ["triage", "read"],
      ["read", "read"],
    ] as const;
    for (const [role, permission] of expected) {
      standIn.state.setPermission("acme/widgets", "dave", role);
      const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
        owner: "acme",
        repo: "widgets",
        username: "dave",
      });
      expect({ permission: data.permission, role_name: data.role_name }).toEqual({
        permission,
        role_name: role,
      });
      expect(data.user).toMatchObject({ login: "dave", type: "User" });
    }
    standIn.state.setPermission("acme/widgets", "dave", "none");
    const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
      owner: "acme",
      repo: "widgets",
      username: "dave",
    });
    expect(data).toMatchObject({ permission: "none", role_name: "none" });
  });

  it("answers none for an existing non-collaborator and 404 'is not a user' for an unknown login", async () => {
    const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
      owner: "acme",
      repo: "widgets",
      username: "carol",
    });
    expect(data).toMatchObject({ permission: "none", role_name: "none", user: { login: "carol", id: 503 } });
    await expect(
      octokit.rest.repos.getCollaboratorPermissionLevel({
        owner: "acme",
        repo: "widgets",
        username: "ghost",
      }),
    ).rejects.toMatchObject({ status: 404, response: { data: { message: "ghost is not a user" } } });
  });

  it("gives read to everyone on a public repository and admin to a personal repository's owner", async () => {
    standIn.state.addRepository("acme/open", { private: false });
    standIn.state.addUser({ login: "erin" });
    standIn.state.addRepository("erin/dotfiles");
    const open = await octokit.rest.repos.getCollaboratorPermissionLevel({
      owner: "acme",
      repo: "open",
      username: "carol",
    });
    expect(open.data).toMatchObject({ permission: "read", role_name: "read" });
    const erin = await installationOctokit(standIn, "erin/dotfiles");
    const own = await erin.rest.repos.getCollaboratorPermissionLevel({
      owner: "erin",
      repo: "dotfiles",
      username: "erin",
    });
    expect(own.data).toMatchObject({ permission: "admin", role_name: "admin" });
  });

  it("serves a pull request", async () => {
    const { data } = await octokit.rest.pulls.get({ owner: "acme", repo: "widgets", pull_number: 1 });
    expect(data).toMatchObject({
      number: 1,
      title: "Add sprockets",
      state: "open",
      draft: false,
      merged: false,
      body: "Adds sprockets.",
      html_url: `${standIn.url}/acme/widgets/pull/1`,
      url: `${standIn.apiUrl}/repos/acme/widgets/pulls/1`,
      user: { login: "alice", id: 501, type: "User" },
      base: { ref: "main", repo: { full_name: "acme/widgets" } },
      head: { ref: "sprockets", sha: "a".repeat(40) },
      author_association: "COLLABORATOR",
    });
  });

  it("serves issues, with pull_request only for pull requests", async () => {
    const issue = await octokit.rest.issues.get({ owner: "acme", repo: "widgets", issue_number: 2 });
    expect(issue.data).toMatchObject({
      number: 2,
      title: "Widgets squeak",
      state: "open",
      user: { login: "bob" },
    });
    expect(issue.data.html_url).toBe(`${standIn.url}/acme/widgets/issues/2`);
    expect(issue.data).not.toHaveProperty("pull_request");
    const pr = await octokit.rest.issues.get({ owner: "acme", repo: "widgets", issue_number: 1 });
    expect(pr.data.pull_request).toMatchObject({
      url: `${standIn.apiUrl}/repos/acme/widgets/pulls/1`,
      html_url: `${standIn.url}/acme/widgets/pull/1`,
    });
    await expect(
      octokit.rest.pulls.get({ owner: "acme", repo: "widgets", pull_number: 2 }),
    ).rejects.toMatchObject({
      status: 404,
    });
    await expect(
      octokit.rest.issues.get({ owner: "acme", repo: "widgets", issue_number: 99 }),
    ).rejects.toMatchObject({
      status: 404,
    });
  });

  it("reflects later changes to a pull request and lists pull requests", async () => {
    standIn.state.addPullRequest({ repository: "acme/widgets", author: "bob", title: "Draft", draft: true });
    standIn.state.updatePullRequest("acme/widgets", 3, { merged: true });
    const { data } = await octokit.rest.pulls.get({ owner: "acme", repo: "widgets", pull_number: 3 });
    expect(data).toMatchObject({ number: 3, state: "closed", merged: true, draft: true });
    expect(data.merged_at).toEqual(expect.any(String));
    const open = await octokit.rest.pulls.list({ owner: "acme", repo: "widgets" });
    expect(open.data.map((p) => p.number)).toEqual([1]);
    const all = await octokit.rest.pulls.list({ owner: "acme", repo: "widgets", state: "all" });
    expect(all.data.map((p) => p.number)).toEqual([3, 1]);
  });
});
