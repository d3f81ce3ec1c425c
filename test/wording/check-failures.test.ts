import { describe, expect, it } from "vitest";
import type { CheckFailure, FailureDetails } from "../../src/core/check-failures.js";
import { mrkdwnFormat } from "../../src/slack/mrkdwn.js";
import {
  allowedLinks,
  failureBlocks,
  failureLines,
  failurePlain,
  summaryLines,
} from "../../src/wording/check-failures.js";
import { markdownFormat } from "../../src/wording/markdown.js";

// A removal's failed checks in their own words, on both surfaces: the check's author's text is untrusted.

const GITHUB = "https://github.com";
const slack = mrkdwnFormat();
const github = markdownFormat("yardmaster");
const allow = allowedLinks(GITHUB, "https://ci.example/job/1");

const failure = (extra: Partial<CheckFailure> = {}): CheckFailure => ({
  name: "ci/test",
  kind: "check-run",
  conclusion: "failure",
  url: "https://github.com/acme/widgets/runs/1",
  detailsUrl: "https://ci.example/job/1",
  title: "3 tests failed",
  summary: null,
  annotations: [],
  description: null,
  ...extra,
});

describe("a check's summary, in each surface's markup", () => {
  it("keeps bold, italic, code, headings and list items, as mrkdwn and as Markdown", () => {
    const md = "## Failed\n- **cache** evicts _too early_\n- `api` retries\n\n1. third";
    expect(summaryLines(md, slack, allow)).toEqual([
      "*Failed*",
      "• *cache* evicts _too early_",
      "• `api` retries",
      "• third",
    ]);
    expect(summaryLines(md, github, allow)).toEqual([
      "**Failed**",
      "• **cache** evicts _too early_",
      "• `api` retries",
      "• third",
    ]);
  });

  it("neutralises every mention: Slack's special ones, people, teams; GitHub's @user", () => {
    const md = "<!channel> <!here> <@U012AB> <#C0GENERAL> @here @channel @octocat @acme/team";
    const [s] = summaryLines(md, slack, allow);
    expect(s).not.toMatch(/<[!@#]/);
    expect(s).not.toMatch(/@(here|channel|octocat)/);
    expect(s).toContain("&lt;!channel&gt;");
    expect(s).toContain("@\u200bhere");
    const [g] = summaryLines(md, github, allow);
    expect(g).not.toMatch(/@(here|channel|octocat|acme)/);
    expect(g).toContain("@\u200boctocat");
  });

  it("links only to GitHub and to the run's own CI host; other addresses are made inert", () => {
    const md =
      "[log](https://ci.example/job/1/log) [pr](https://github.com/acme/widgets/pull/2) [bad](https://evil.example/x) see https://evil.example/y and <https://evil.example/z>";
    const [s] = summaryLines(md, slack, allow);
    expect(s).toContain("<https://ci.example/job/1/log|log>");
    expect(s).toContain("<https://github.com/acme/widgets/pull/2|pr>");
    expect(s).not.toContain("<https://evil.example");
    expect(s).toContain("bad");
    expect(s).toContain("https:\u200b//evil.example/y");
    const [g] = summaryLines(md, github, allow);
    expect(g).toContain("[log](https://ci.example/job/1/log)");
    expect(g).not.toContain("](https://evil.example");
    expect(g).not.toContain("https://evil.example");
    // A link to another port, or a javascript: one, is not the CI's host.
    expect(allow("https://ci.example:8443/x")).toBe(false);
    expect(allow("javascript:alert(1)")).toBe(false);
  });

  it("drops HTML, images, rules and table separators; keeps cells and fenced code as code", () => {
    const md =
      "<details><summary>Why</summary>\n<!-- hidden -->\n![chart](https://x/y.png)\n---\n| a | b |\n|---|---|\n| 1 | 2 |\n```\nnpm test\n```";
    expect(summaryLines(md, slack, allow)).toEqual(["Why", "chart", "a · b", "1 · 2", "`npm test`"]);
  });

  it("shows at most 300 characters of text and five lines, cut with …", () => {
    const long = summaryLines("y".repeat(1_000), slack, allow);
    expect(long).toEqual([`${"y".repeat(299)}…`]);
    const many = summaryLines(Array.from({ length: 9 }, (_, i) => `line ${i}`).join("\n"), slack, allow);
    expect(many).toEqual(["line 0", "line 1", "line 2", "line 3", "line 4"]);
    const spread = summaryLines(`${"a".repeat(200)}\n${"b".repeat(200)}\nc`, slack, allow);
    expect(spread).toEqual(["a".repeat(200), `${"b".repeat(99)}…`]);
  });
});

describe("a failed check's lines", () => {
  it("name linked, conclusion in words, title, summary, annotations as path:line — message linked to the file", () => {
    const lines = failureLines(
      failure({
        conclusion: "timed_out",
        summary: "Ran **215** tests",
        annotations: [
          {
            path: "src/a.ts",
            line: 3,
            message: "boom *x*\nsecond line",
            url: `${GITHUB}/acme/widgets/blob/abc/src/a.ts#L3`,
          },
          { path: "src/b.ts", line: null, message: "", url: `${GITHUB}/acme/widgets/blob/abc/src/b.ts` },
          { path: "src/c.ts", line: 1, message: "c", url: `${GITHUB}/acme/widgets/blob/abc/src/c.ts#L1` },
          { path: "src/d.ts", line: 1, message: "d", url: `${GITHUB}/acme/widgets/blob/abc/src/d.ts#L1` },
        ],
      }),
      slack,
      GITHUB,
    );
    expect(lines).toEqual([
      "❌ *<https://github.com/acme/widgets/runs/1|ci/test>* timed out: *3 tests failed*",
      "Ran *215* tests",
      "• <https://github.com/acme/widgets/blob/abc/src/a.ts#L3|src/a.ts:3> — boom \u200b*\u200bx\u200b*\u200b",
      "• <https://github.com/acme/widgets/blob/abc/src/b.ts|src/b.ts>",
      "• <https://github.com/acme/widgets/blob/abc/src/c.ts#L1|src/c.ts:1> — c",
    ]);
  });

  it("a commit status: its description; a cancelled one says so", () => {
    const lines = failureLines(
      failure({
        kind: "status",
        title: null,
        conclusion: "cancelled",
        description: "Jenkins <@U1> build #4 aborted",
      }),
      github,
      GITHUB,
    );
    expect(lines[0]).toBe("❌ **[ci/test](https://github.com/acme/widgets/runs/1)** was cancelled");
    expect(lines[1]).toBe("Jenkins &lt;@\u200bU1&gt; build \\#4 aborted");
  });

  it("three checks detailed, the rest counted; a plain line for the fallback text", () => {
    const details: FailureDetails = { checks: [failure(), failure({ name: "lint", title: null })], more: 4 };
    const blocks = failureBlocks(details, slack, GITHUB);
    expect(blocks).toHaveLength(3);
    expect(blocks[2]).toBe("…and 4 more failed checks");
    expect(failurePlain(details)).toBe("ci/test: 3 tests failed");
  });
});
