import { describe, expect, it } from "vitest";
import type { CheckFailure, FailureDetails } from "../../src/core/check-failures.js";
import type { QueueEventOf } from "../../src/core/queue.js";
import { renderRemovalSummary } from "../../src/github/removal-summary.js";
import { MAX_COMMENT_LENGTH } from "../../src/github/render-markdown.js";
import { Repo } from "../../src/repo.js";
import { SLACK_LIMITS } from "../../src/slack/render-kit.js";
import { slackNotices as notificationRenderer } from "../helpers/slack-notices.js";

// A removal for failed checks with why they failed: the pull request's summary comment (Markdown) and its
// Slack notice (Block Kit), escaped and cut to each surface's limits.

const GITHUB = "https://github.com";
const removal: QueueEventOf<"left"> = {
  id: 5,
  at: "2026-01-01T10:00:00Z",
  repository: "acme/widgets",
  pull: 42,
  branch: "main",
  queue: "default",
  origin: "action.queue.leave",
  kind: "left",
  merged: false,
  reason: "its checks failed",
  code: "CHECKS_FAILED",
  failedChecks: ["ci/test", "lint", "e2e", "docs"].map((name) => ({
    name,
    url: `https://ci.example/${name}`,
    state: "failure",
  })),
};

/** A check whose every text is as long and as hostile as its author may make it. */
const hostile = (name: string): CheckFailure => ({
  name,
  kind: "check-run",
  conclusion: "failure",
  url: `${GITHUB}/acme/widgets/runs/1`,
  detailsUrl: "https://ci.example/job/1",
  title: `@octocat <!channel> ${"t".repeat(70_000)}`,
  summary: `${"s".repeat(65_535)}`,
  annotations: Array.from({ length: 3 }, (_, i) => ({
    path: `${"p/".repeat(500)}file${i}.ts`,
    line: i + 1,
    message: `@here ${"m".repeat(5_000)}`,
    url: `${GITHUB}/acme/widgets/blob/abc/${"p/".repeat(500)}file${i}.ts#L${i + 1}`,
  })),
  description: null,
});
const details: FailureDetails = { checks: [hostile("ci/test"), hostile("lint"), hostile("e2e")], more: 1 };

describe("a removal's failures, cut to each surface", () => {
  it("the summary comment: within GitHub's limit, escaped, the rest counted, and what to do", () => {
    const body = renderRemovalSummary({
      appSlug: "yardmaster",
      event: removal,
      details,
      githubWebUrl: GITHUB,
    });
    expect(body.length).toBeLessThanOrEqual(MAX_COMMENT_LENGTH);
    expect(
      body.startsWith(
        "<!-- yardmaster:summary -->\n**Yardmaster** · ❌ left the merge queue `default` without merging: its checks failed",
      ),
    ).toBe(true);
    expect(body).not.toMatch(/@(octocat|here)/);
    expect(body).toContain("&lt;\\!channel&gt;");
    expect(body).toContain("…and 1 more failed check");
    expect(body).toContain("Queue it again once fixed: `@yardmaster queue`.");
  });

  it("without details (GitHub could not say): the failed checks, linked", () => {
    const body = renderRemovalSummary({
      appSlug: "yardmaster",
      event: removal,
      details: null,
      githubWebUrl: GITHUB,
    });
    expect(body).toContain("- [ci/test](https://ci.example/ci/test) (failure)");
  });

  it("says what the flake shield did in place of what to do, so its note is not lost", () => {
    const body = renderRemovalSummary({
      appSlug: "yardmaster",
      event: { ...removal, notes: { shield: { check: "ci/test", outcome: "requeued", detail: null } } },
      details: null,
      githubWebUrl: GITHUB,
    });
    expect(body).toMatch(/ci\/test.*queued again/i);
    expect(body).not.toContain("Queue it again once fixed");
  });

  it("the Slack notice: a section per check within 3,000 characters, within 50 blocks", () => {
    const message = notificationRenderer.event(
      removal,
      { number: 42, title: "Widgets", url: `${GITHUB}/acme/widgets/pull/42` },
      { repo: Repo.from("acme/widgets"), githubWebUrl: GITHUB, now: new Date(removal.at), failures: details },
    );
    expect(message.blocks.length).toBeLessThanOrEqual(SLACK_LIMITS.blocks);
    const sections = message.blocks.flatMap((b) => (b.type === "section" && b.text ? [b.text.text] : []));
    expect(sections).toHaveLength(5);
    for (const text of sections) expect(text.length).toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
    expect(sections[4]).toBe("…and 1 more failed check");
    expect(JSON.stringify(message)).not.toMatch(/<!channel>|@(octocat|here)/);
    expect(message.text.length).toBeLessThanOrEqual(SLACK_LIMITS.messageText);
  });
});
