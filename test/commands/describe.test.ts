import { describe, expect, it } from "vitest";
import { mergifyEntry, mergifyPause, mergifyState } from "../../src/backends/mergify/backend.js";
import {
  classifyCommandAnswer,
  type LogEvent,
  type PauseState,
  type PullRequestQueueDetails,
  type QueueStatus,
} from "../../src/backends/mergify/index.js";
import { fromMergifyLog } from "../../src/backends/mergify/queue-events.js";
import { COMMAND_NAMES, type CommandName, type CommandResult } from "../../src/commands/catalog.js";
import { describeFailure, describeResult } from "../../src/commands/describe.js";
import { CommandError, CommandErrorCode } from "../../src/commands/errors.js";
import type { PullRequestInfo } from "../../src/commands/ports.js";
import type { QueueState } from "../../src/commands/queue-state.js";
import type { QueuePause } from "../../src/core/pause.js";
import type { QueueEvent } from "../../src/core/queue.js";
import { listed } from "../../src/freezes/present.js";
import { factsOf, periodFigures } from "../../src/history/figures.js";
import { Repo } from "../../src/repo.js";
import type { Description, Part, TextFormat } from "../../src/wording/description.js";
import { pauseState, pullRequestDetails, queueStatus } from "../backends/mergify/fixtures.js";

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
  entry: mergifyEntry(pullRequestDetails(42) as unknown as PullRequestQueueDetails),
};
const unknown: QueueState = {
  state: "unknown",
  error: new CommandError(CommandErrorCode.MergeQueueUnavailable, { status: 503 }),
};
const relayed = (name: "queue" | "dequeue" | "requeue", queue: QueueState) =>
  ({
    name,
    repo,
    pull,
    relayed: name === "requeue" ? "queue" : name,
    relayCommentUrl: `${pull.url}#c1`,
    queue,
  }) as CommandResult;

/** Results of every command, in each state that reads differently. */
const RESULTS: [string, CommandResult][] = [
  ["queue, queued", relayed("queue", queued)],
  ["queue, not picked up", relayed("queue", { state: "not_queued" })],
  ["queue, unknown", relayed("queue", unknown)],
  ["requeue, queued", relayed("requeue", queued)],
  ["dequeue, out", relayed("dequeue", { state: "not_queued" })],
  ["dequeue, still listed", relayed("dequeue", queued)],
  ["pause", { name: "pause", repo, pause: mergifyPause(pauseState() as PauseState) as QueuePause }],
  ["unpause", { name: "unpause", repo }],
  ["retry, on", { name: "retry", repo, enabled: true, was: false, heard: true }],
  ["retry, off", { name: "retry", repo, enabled: false, was: true, heard: true }],
  ["retry, already on", { name: "retry", repo, enabled: true, was: true, heard: true }],
  ["retry, on but unheard", { name: "retry", repo, enabled: true, was: false, heard: false }],
  [
    "drain",
    {
      name: "drain",
      repo,
      pause: {
        reason: "deploy <now>",
        pausedAt: now.toISOString(),
        by: "alice",
        branch: "main",
        drain: { drainedAt: null, entries: 2 },
      },
    },
  ],
  [
    "drain, drained at once",
    {
      name: "drain",
      repo,
      pause: {
        reason: "deploy",
        pausedAt: now.toISOString(),
        by: "alice",
        branch: "main",
        drain: { drainedAt: now.toISOString(), entries: 0 },
      },
    },
  ],
  [
    "let, passed",
    {
      name: "let",
      repo,
      pull: 12,
      outcome: { kind: "passed", branch: "main", pulls: [10, 12], passedNow: true },
    },
  ],
  [
    "let, others",
    { name: "let", repo, pull: 12, outcome: { kind: "others", branch: "main", others: [10, 11] } },
  ],
  ["freeze", { name: "freeze", repo, freeze: listedWeekend() }],
  ["freezes", { name: "freezes", repo, freezes: [listedWeekend()] }],
  ["freezes, none", { name: "freezes", repo, freezes: [] }],
  ["unfreeze", { name: "unfreeze", repo, removed: { number: 1, name: "weekend <freeze>" } }],
  [
    "status",
    {
      name: "status",
      repo,
      branch: "main",
      batches: true,
      state: mergifyState(queueStatus() as unknown as QueueStatus, "main"),
    },
  ],
  [
    "status, flake shield on",
    {
      name: "status",
      repo,
      batches: true,
      state: mergifyState(queueStatus() as unknown as QueueStatus, null),
      shield: { repository: repo, enabled: true, changedBy: "alice", surface: "slack", changedAt: now },
    },
  ],
  [
    "status, GitHub's queue, flake shield on",
    {
      name: "status",
      repo,
      batches: false,
      state: null,
      shield: { repository: repo, enabled: true, changedBy: "alice", surface: "slack", changedAt: now },
    },
  ],
  ["stats", statsResult()],
  ["pr", { name: "pr", repo, pull: 42, batches: true, queue: queued }],
  ["branches", { name: "branches", repo, branches: ["main"] }],
  ["subscribe", { name: "subscribe", repo, branchGlob: null, groups: ["queue"], created: true }],
  ["unsubscribe", { name: "unsubscribe", repo }],
  ["subscriptions", { name: "subscriptions", subscriptions: [] }],
  ["login", { name: "login", url: "https://github.com/login/oauth/authorize?state=x", expiresInMinutes: 10 }],
  ["logout", { name: "logout", login: "alice" }],
  ["whoami", { name: "whoami", login: "alice" }],
  [
    "doctor",
    {
      name: "doctor",
      report: {
        failed: true,
        lines: [
          {
            check: "Slack token",
            status: "fail",
            message: "Slack refused the token (invalid_auth)",
            fix: "copy it",
          },
          { check: "PUBLIC_URL", status: "pass", message: "https://x.example is https" },
        ],
      },
    },
  ],
  [
    "notify",
    {
      name: "notify",
      change: { kind: "repo", repo, muted: true },
      enabled: true,
      groups: ["queue"],
      muted: ["acme/widgets"],
    },
  ],
  ["help", { name: "help", surface: "slack" }],
];

/** A week with a merge, a leave for failed checks and a pause, and the week before it empty. */
function statsResult(): CommandResult {
  const period = { from: new Date(now.getTime() - 7 * 86_400_000), to: now };
  const previous = { from: new Date(period.from.getTime() - 7 * 86_400_000), to: period.from };
  const facts = factsOf([
    logEvent("action.queue.merged", { queued_at: "2025-11-04T10:00:00Z" }, "2025-11-04T10:30:00Z"),
    logEvent(
      "action.queue.leave",
      {
        merged: false,
        dequeue_code: "CHECKS_FAILED",
        reason: "unit failed",
        unsuccessful_checks: [{ name: "unit", url: "https://ci.example/1" }],
      },
      "2025-11-04T11:00:00Z",
    ),
  ]);
  return {
    name: "stats",
    repo,
    period: "7d",
    current: periodFigures(period, facts),
    previous: periodFigures(previous, factsOf([])),
  };
}

function logEvent(type: string, metadata: Record<string, unknown>, at: string): QueueEvent {
  return fromMergifyLog({
    id: 1,
    received_at: at,
    trigger: "t",
    repository: "acme/widgets",
    pull_request: 1,
    base_ref: "main",
    type,
    metadata,
  } as LogEvent);
}

/**
 * The results whose words still differ between the surfaces, and why: GitHub's summary comment and
 * Slack's message are each pinned by their end-to-end tests (test/e2e/github.e2e.test.ts, the Block Kit
 * snapshot). Help lists each surface's own commands and grammar.
 */
const WORDED_PER_SURFACE = new Set(["queue, queued", "requeue, queued", "pause", "let, others"]);

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

  it("stats: says why pull requests left in words, not the service's codes", () => {
    const said = words(on("slack", statsResult()));
    expect(said).toContain("its checks failed × 1");
    expect(said.join(" ")).not.toContain("CHECKS_FAILED");
  });

  it("stats: shows the p90s and thresholds the health alerts judge on, where known", () => {
    const result = statsResult();
    expect(words(on("slack", result)).join(" ")).not.toContain("Health alerts");
    const MIN = 60_000;
    const withNormal = {
      ...result,
      normal: { mergeGapP90: 12 * MIN, checksP90: 8 * MIN, stallAfterMs: 36 * MIN, slowAfterMs: null },
    } as CommandResult;
    expect(words(on("slack", withNormal)).join(" ")).toContain(
      "last 7 days: time between merges p90 12 min, checks p90 8 min · stalled after 36 min without a merge, checks slow after —",
    );
  });

  it("status says when the flake shield is on, and who turned it on", () => {
    const line =
      "🛡️ Flake shield on (turned on by alice, 2025-11-05 13:40 UTC): a pull request that leaves the merge queue for a check that also failed for two other pull requests within the hour is queued again, once.";
    for (const [name, result] of RESULTS.filter(([n]) => n.includes("flake shield on")))
      expect(words(on("slack", result)), name).toContain(line);
    const plain = RESULTS.find(([n]) => n === "status")?.[1] as CommandResult;
    expect(words(on("slack", plain)).join(" ")).not.toContain("Flake shield");
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

  describe("with the merge queue's answer", () => {
    const answered = (name: "queue" | "dequeue", queue: QueueState, body: string): CommandResult =>
      ({
        ...(relayed(name, queue) as object),
        answer: { read: classifyCommandAnswer(body), url: `${pull.url}#answer` },
      }) as CommandResult;
    const MARKED: TextFormat = { ...NEUTRAL, escape: (t) => `<${t}>` };
    const said = (result: CommandResult) =>
      words(describeResult(result, { surface: "github", now, githubWebUrl: "https://github.com" })).join(
        "\n",
      );
    const saidIn = (result: CommandResult, f: TextFormat) =>
      describeResult(result, { surface: "github", now, githubWebUrl: "https://github.com" }).parts.flatMap(
        (p) => (p.kind === "sentence" ? [p.text(f)] : p.kind === "note" ? p.texts.map((t) => t(f)) : []),
      );

    it("says where an accepted queue stands, and quotes the answer with a link to it", () => {
      const text = said(
        answered("queue", queued, "> queue\n\n#### 🟠 The pull request is the 1st in the queue to be merged"),
      );
      expect(text).toContain("#42 is in the merge queue {default} at position 1");
      expect(text).toContain(
        "[The merge queue's answer](https://github.com/acme/widgets/pull/42#answer): “The pull request is the 1st in the queue to be merged”",
      );
    });

    it("says what to change when the merge queue refused, escaping its words", () => {
      const result = answered(
        "queue",
        { state: "not_queued" },
        "@yardmaster[bot] is not allowed to run commands",
      );
      const [sentence = "", note = ""] = saidIn(result, MARKED)
        .slice(0, 1)
        .concat(saidIn(result, MARKED).slice(2));
      expect(sentence).toMatch(
        /^😕 The merge queue refused \{queue\} for .*: “<@yardmaster\[bot\] is not allowed to run commands>”/,
      );
      expect(sentence).toContain("{commands_restrictions}");
      expect(sentence).toContain("{.mergify.yml}");
      expect(sentence).toContain("Mergify setup for relayed commands");
      expect(note).toContain("“<@yardmaster[bot] is not allowed to run commands>”");
    });

    it("says which conditions a queue waits for, at most three", () => {
      const details = ["a", "b", "c", "d", "e"].map((c) => `- [ ] \`label=${c}\``).join("\n");
      const text = said(
        answered(
          "queue",
          { state: "not_queued" },
          `> queue\n\n#### 🟠 Waiting for conditions to match\n\n<details>\n\n${details}\n\n</details>`,
        ),
      );
      expect(text).toContain("⏳ The merge queue is waiting for conditions before it queues");
      expect(text).toContain("{label=a}, {label=b}, {label=c} and 2 more.");
    });

    it("says a dequeue the merge queue did not understand, and quotes any other answer", () => {
      expect(said(answered("dequeue", queued, "Sorry but I didn't understand the command."))).toContain(
        "😕 The merge queue did not understand {dequeue}",
      );
      expect(
        said(answered("queue", queued, "> queue\n\n#### ☑️ This pull request is already queued")),
      ).toContain("the merge queue answered “This pull request is already queued”");
    });
  });
});

/** A weekly freeze as the freeze commands list it, with a name to escape. */
function listedWeekend() {
  return listed(
    {
      id: "f1",
      repository: repo,
      number: 1,
      name: "weekend <freeze>",
      schedule: {
        kind: "weekly",
        start: { day: 5, hour: 18, minute: 0 },
        end: { day: 1, hour: 8, minute: 0 },
      },
      zone: "Europe/Paris",
      createdBy: "alice",
      surface: "slack",
      createdAt: now,
    },
    now,
  );
}
