import { describe, expect, it } from "vitest";
import { readMergedPull } from "../../src/github/merged-pulls.js";
import { Repo } from "../../src/repo.js";

// GitHub's `pull_request` `closed` webhook, read for src/outside-merges (src/github/merged-pulls.ts).

const RECEIVED = new Date("2026-11-23T10:00:05Z");
const closed = (pull: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  action: "closed",
  number: 31,
  sender: { login: "dana" },
  pull_request: { base: { ref: "main" }, title: "Hotfix", ...pull },
  repository: { name: "ships", owner: { login: "acme" } },
  ...extra,
});

describe("a merged pull request, from its closed webhook", () => {
  it("reads who merged it, where, when and its commit", () => {
    const merge = readMergedPull(
      closed({
        merged: true,
        merged_at: "2026-11-23T10:00:00Z",
        merge_commit_sha: "d".repeat(40),
        merged_by: { login: "Dana" },
      }),
      RECEIVED,
    );
    expect(merge).toEqual({
      repository: Repo.of("acme", "ships"),
      number: 31,
      branch: "main",
      mergedAt: new Date("2026-11-23T10:00:00Z"),
      by: "Dana",
      sha: "d".repeat(40),
      title: "Hotfix",
    });
  });

  it("without merged_by, the sender merged it; without merged_at, it was merged when heard of", () => {
    expect(readMergedPull(closed({ merged: true, merged_by: null }), RECEIVED)).toMatchObject({
      by: "dana",
      mergedAt: RECEIVED,
      sha: null,
    });
  });

  it("a pull request closed without merging says nothing; a payload without its fields is refused", () => {
    expect(readMergedPull(closed({ merged: false }), RECEIVED)).toBeNull();
    expect(() => readMergedPull(closed({ merged: true, base: undefined }), RECEIVED)).toThrow();
    expect(() => readMergedPull({ action: "closed", number: 31 }, RECEIVED)).toThrow();
  });
});
