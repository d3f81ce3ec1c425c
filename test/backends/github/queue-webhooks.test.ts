import { describe, expect, it } from "vitest";
import { readQueueWebhook } from "../../../src/backends/github/queue-webhooks.js";
import { Repo } from "../../../src/repo.js";

const ships = Repo.of("acme", "ships");
const repository = { name: "ships", full_name: "acme/ships", owner: { login: "acme" } };
const SHA = "0123456789abcdef0123456789abcdef01234567";

/** The fields of GitHub's `pull_request` payload that are read, as GitHub sends them. */
const pullRequest = (
  action: string,
  extra: Record<string, unknown> = {},
  pull: Record<string, unknown> = {},
) => ({
  action,
  number: 12,
  pull_request: { number: 12, merged: false, merge_commit_sha: null, base: { ref: "main" }, ...pull },
  repository,
  sender: { login: "alice", type: "User" },
  ...extra,
});

const mergeGroup = (action: string, extra: Record<string, unknown> = {}, headRef?: string) => ({
  action,
  merge_group: {
    head_sha: SHA,
    head_ref: headRef ?? `refs/heads/gh-readonly-queue/release/2026/pr-12-${"f".repeat(40)}`,
    base_sha: "e".repeat(40),
    base_ref: "refs/heads/release/2026",
  },
  repository,
  ...extra,
});

describe("GitHub's merge-queue webhooks, read", () => {
  it("a pull request entering the queue, with who put it there (the sender)", () => {
    expect(readQueueWebhook("pull_request", pullRequest("enqueued"))).toEqual({
      kind: "entered",
      repository: ships,
      number: 12,
      baseRef: "main",
      by: "alice",
    });
    const { sender: _, ...anonymous } = pullRequest("enqueued");
    expect(readQueueWebhook("pull_request", anonymous)).toMatchObject({ kind: "entered", by: null });
  });

  it("a removal, with GitHub's reason and who removed it", () => {
    expect(readQueueWebhook("pull_request", pullRequest("dequeued", { reason: "CI_FAILURE" }))).toEqual({
      kind: "removed",
      repository: ships,
      number: 12,
      baseRef: "main",
      reason: "CI_FAILURE",
      by: "alice",
    });
    expect(readQueueWebhook("pull_request", pullRequest("dequeued"))).toMatchObject({
      reason: "UNKNOWN_REMOVAL_REASON",
    });
  });

  it("a merge, with its commit; a pull request closed without merging says nothing", () => {
    expect(
      readQueueWebhook("pull_request", pullRequest("closed", {}, { merged: true, merge_commit_sha: SHA })),
    ).toEqual({ kind: "merged", repository: ships, number: 12, baseRef: "main", mergeCommitSha: SHA });
    expect(readQueueWebhook("pull_request", pullRequest("closed"))).toBeNull();
    expect(readQueueWebhook("pull_request", pullRequest("opened"))).toBeNull();
  });

  it("merge groups, for the pull request their branch names (a base branch with slashes too)", () => {
    expect(readQueueWebhook("merge_group", mergeGroup("checks_requested"))).toEqual({
      kind: "group-built",
      repository: ships,
      number: 12,
      baseRef: "release/2026",
      sha: SHA,
    });
    expect(readQueueWebhook("merge_group", mergeGroup("destroyed", { reason: "invalidated" }))).toMatchObject(
      {
        kind: "group-gone",
        reason: "invalidated",
      },
    );
    expect(readQueueWebhook("merge_group", mergeGroup("destroyed"))).toMatchObject({ reason: null });
  });

  it("refuses a payload without what it needs, and a branch that is no merge group's", () => {
    expect(() => readQueueWebhook("pull_request", { action: "enqueued", repository })).toThrow();
    expect(() => readQueueWebhook("merge_group", mergeGroup("destroyed", { reason: "exploded" }))).toThrow();
    expect(() =>
      readQueueWebhook("merge_group", mergeGroup("checks_requested", {}, "refs/heads/feature/pr-12-x")),
    ).toThrow(/not a merge group's branch/);
    expect(() =>
      readQueueWebhook("pull_request", {
        ...pullRequest("enqueued"),
        repository: { name: "../x", owner: { login: "acme" } },
      }),
    ).toThrow();
  });
});
