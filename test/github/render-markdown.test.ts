import { describe, expect, it } from "vitest";
import { mergifyState } from "../../src/backends/mergify/backend.js";
import type { QueueStatus } from "../../src/backends/mergify/index.js";
import type { CommandResult } from "../../src/commands/catalog.js";
import { describeError, describeResult } from "../../src/commands/describe.js";
import { CommandError, CommandErrorCode } from "../../src/commands/errors.js";
import { MAX_COMMENT_LENGTH, renderMarkdown, renderSummary } from "../../src/github/render-markdown.js";
import { Repo } from "../../src/repo.js";
import { markdownFormat } from "../../src/wording/markdown.js";
import { queuedPullRequest, queueStatus } from "../backends/mergify/fixtures.js";

const f = markdownFormat("yardmaster");
const REPO = Repo.of("acme", "widgets");

/** A result as the GitHub summary comment lays it out. */
function render(result: CommandResult, now = new Date()): string {
  return renderMarkdown(
    describeResult(result, { surface: "github", now, githubWebUrl: "https://github.com" }),
    f,
  );
}

describe("GitHub rendering", () => {
  it("has a sentence for every error code, without placeholders", () => {
    for (const code of Object.values(CommandErrorCode)) {
      const text = describeError(
        new CommandError(code, {
          command: "pause",
          repository: "acme/widgets",
          pull: 42,
          argument: "reason",
        }),
        f,
        "github",
      );
      expect(text.length, code).toBeGreaterThan(10);
      expect(text, code).not.toMatch(/undefined|null|\[object/);
    }
  });

  it("lists every GitHub command in help, with what it needs", () => {
    const help = render({ name: "help", surface: "github" });
    for (const word of ["queue", "dequeue", "requeue", "pause", "unpause", "status", "help"]) {
      expect(help).toContain(`\`@yardmaster ${word}`);
    }
    expect(help).toContain("`resume`");
    expect(help).toContain("Needs write");
    expect(help).not.toContain("subscribe");
  });

  it("renders batches, sub-batches, waiting pull requests, scope queues and the pause", () => {
    const status = queueStatus() as unknown as QueueStatus;
    status.pause = { paused: true, reason: "deploy", paused_at: "2025-11-05T13:00:00Z" };
    status.scope_queues = { __default__: ["a"], frontend: ["b", "c"] };
    const text = render(
      { name: "status", repo: REPO, branch: "main", batches: true, state: mergifyState(status, null) },
      new Date("2025-11-05T13:40:00Z"),
    );
    expect(text).toContain("⏸️ **Paused** since 2025-11-05 13:00 UTC: deploy");
    expect(text).toContain("| Batch 1 | CI running | [\\#1421](https://github.com/acme/widgets/pull/1421)");
    expect(text).toContain("| 45/67 | in 10 min |");
    expect(text).toMatch(/\| ↳ .* \|/);
    expect(text).toContain("**Waiting**");
    expect(text).toContain("**Scope queues**\n\n- `__default__` 1 batch\n- `frontend` 2 batches");
  });

  it("cuts long queues with 'and N more' and stays under GitHub's comment limit", () => {
    const status = queueStatus() as unknown as QueueStatus;
    status.waiting_pull_requests = Array.from({ length: 500 }, (_, i) => ({
      ...queuedPullRequest(i + 1),
      title: "x".repeat(300),
    })) as QueueStatus["waiting_pull_requests"];
    const text = render({ name: "status", repo: REPO, batches: true, state: mergifyState(status, null) });
    expect(text).toContain("**Waiting** (500)");
    expect(text).toContain("- …and 470 more");
    const summary = renderSummary(
      {
        marker: "<!-- m -->",
        typed: "status",
        author: "alice",
        commentUrl: "https://github.com/acme/widgets/pull/1#c",
        outcome: {
          ok: true,
          result: { name: "status", repo: REPO, batches: true, state: mergifyState(status, null) },
        },
        at: new Date(),
      },
      f,
    );
    expect(summary.length).toBeLessThanOrEqual(MAX_COMMENT_LENGTH);
  });
});
