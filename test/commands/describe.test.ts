import { describe, expect, it } from "vitest";
import { COMMAND_NAMES, type CommandName, type CommandResult } from "../../src/commands/catalog.js";
import { describeFailure, describeResult } from "../../src/commands/describe.js";
import type { Description, Part, TextFormat } from "../../src/commands/description.js";
import { CommandError, CommandErrorCode } from "../../src/commands/errors.js";
import type { PullRequestInfo } from "../../src/commands/ports.js";
import type { QueueState } from "../../src/commands/queue-state.js";
import type { PauseState, PullRequestQueueDetails, QueueStatus } from "../../src/merge-queue/index.js";
import { Repo } from "../../src/repo.js";
import { pauseState, pullRequestDetails, queueStatus } from "../merge-queue/fixtures.js";

const repo = Repo.of("acme", "widgets");
const now = new Date("2025-11-05T13:40:00Z");
const pull: PullRequestInfo = {
  number: 42,
  title: "Add widgets",
  url: "https://github.com/acme/widgets/pull/42",
  state: "open",
  merged: false,
  baseRef: "main",
  headSha: "abc",
  author: { login: "alice", id: 1 },
};
const queued: QueueState = {
  state: "queued",
  details: pullRequestDetails(42) as unknown as PullRequestQueueDetails,
};
const unknown: QueueState = {
  state: "unknown",
  error: new CommandError(CommandErrorCode.MergeQueueUnavailable, { status: 503 }),
};
const relayed = (name: "queue" | "dequeue" | "requeue", queue: QueueState) =>
  ({ name, repo, pull, relayed: name, relayCommentUrl: `${pull.url}#c1`, queue }) as CommandResult;

/** Results of every command, in each state that reads differently. */
const RESULTS: [string, CommandResult][] = [
  ["queue, queued", relayed("queue", queued)],
  ["queue, not picked up", relayed("queue", { state: "not_queued" })],
  ["queue, unknown", relayed("queue", unknown)],
  ["requeue, queued", relayed("requeue", queued)],
  ["dequeue, out", relayed("dequeue", { state: "not_queued" })],
  ["dequeue, still listed", relayed("dequeue", queued)],
  ["pause", { name: "pause", repo, pause: pauseState() as PauseState }],
  ["unpause", { name: "unpause", repo }],
  ["status", { name: "status", repo, branch: "main", status: queueStatus() as unknown as QueueStatus }],
  ["pr", { name: "pr", repo, pull: 42, queue: queued }],
  ["branches", { name: "branches", repo, branches: ["main"] }],
  ["subscribe", { name: "subscribe", repo, branchGlob: null, groups: ["queue"], created: true }],
  ["unsubscribe", { name: "unsubscribe", repo }],
  ["subscriptions", { name: "subscriptions", subscriptions: [] }],
  ["login", { name: "login", url: "https://github.com/login/oauth/authorize?state=x", expiresInMinutes: 10 }],
  ["logout", { name: "logout", login: "alice" }],
  ["whoami", { name: "whoami", login: "alice" }],
  ["help", { name: "help", surface: "slack" }],
];

/**
 * The results whose words still differ between the surfaces, and why: GitHub's summary comment and
 * Slack's message are each pinned by their end-to-end tests (test/e2e/github.e2e.test.ts, the Block Kit
 * snapshot). Help lists each surface's own commands and grammar.
 */
const WORDED_PER_SURFACE = new Set(["queue, queued", "requeue, queued", "pause"]);

/** Writes the words with visible markup, so that two descriptions compare by what they say. */
const NEUTRAL: TextFormat = {
  escape: (t) => t,
  code: (t) => `{${t}}`,
  bold: (t) => `*${t}*`,
  italic: (t) => `_${t}_`,
  strong: (m) => `*${m}*`,
  link: (url, label) => `[${label}](${url})`,
  invocation: "<invoke>",
};

function words(description: Description): string[] {
  const part = (p: Part): string[] => {
    switch (p.kind) {
      case "title":
        return [p.text];
      case "sentence":
        return [p.text(NEUTRAL)];
      case "note":
        return p.texts.map((t) => t(NEUTRAL));
      case "fields":
        return p.fields.map(([label, value]) => `${label}: ${value(NEUTRAL)}`);
      case "list":
        return [p.heading?.(NEUTRAL) ?? "", ...p.items.map((i) => i(NEUTRAL)), p.more(3)(NEUTRAL)];
      case "batches":
        return [p.heading(NEUTRAL), ...p.rows.flatMap((r) => [r.name, r.status, r.eta]), p.more(3)(NEUTRAL)];
      case "buttons":
        return p.buttons.map((b) => b.label);
      case "divider":
        return [];
    }
  };
  return [...description.parts.flatMap(part), description.summary(NEUTRAL)];
}

const on = (surface: "github" | "slack", result: CommandResult) =>
  describeResult(result, { surface, now, githubWebUrl: "https://github.com" });

describe("descriptions", () => {
  it("cover every command", () => {
    const described = new Set(RESULTS.map(([, result]) => result.name));
    expect(COMMAND_NAMES.filter((name: CommandName) => !described.has(name))).toEqual([]);
  });

  it.each(RESULTS)("%s: says the same words on both surfaces", (name, result) => {
    if (WORDED_PER_SURFACE.has(name)) {
      expect(words(on("github", result))).not.toEqual(words(on("slack", result)));
    } else {
      expect(words(on("github", result))).toEqual(words(on("slack", result)));
    }
  });

  it("names who ran a command only when asked to", () => {
    const result: CommandResult = { name: "unpause", repo };
    expect(words(on("slack", result)).join(" ")).not.toContain("<@U1>");
    const posted = describeResult(result, {
      surface: "slack",
      now,
      githubWebUrl: "https://github.com",
      by: "<@U1>",
    });
    expect(posted.summary(NEUTRAL)).toBe(
      "▶️ <@U1> unpaused the merge queue of {acme/widgets}: it is running again.",
    );
  });

  it("marks refusals 🚫 and failures ⚠️, the same on both surfaces", () => {
    const refused = new CommandError(CommandErrorCode.NotLinked, { command: "queue" });
    const failed = new CommandError(CommandErrorCode.MergeQueueTimeout, {});
    for (const surface of ["github", "slack"] as const) {
      expect(describeFailure(refused, surface).summary(NEUTRAL)).toMatch(/^🚫 /);
      expect(describeFailure(failed, surface).summary(NEUTRAL)).toMatch(/^⚠️ /);
    }
  });
});
