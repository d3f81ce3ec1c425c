import { describe, expect, it } from "vitest";
import { mergifyEntry, mergifyPause, mergifyState } from "../../src/backends/mergify/backend.js";
import type { PullRequestQueueDetails, QueueStatus } from "../../src/backends/mergify/index.js";
import { logEventSchema } from "../../src/backends/mergify/index.js";
import { fromMergifyLog } from "../../src/backends/mergify/queue-events.js";
import { COMMANDS, type CommandResult } from "../../src/commands/catalog.js";
import { CommandError, CommandErrorCode } from "../../src/commands/errors.js";
import type { PullRequestInfo } from "../../src/commands/ports.js";
import type { QueueState } from "../../src/commands/queue-state.js";
import type { QueuePause } from "../../src/core/pause.js";
import { Repo } from "../../src/repo.js";
import { ACTION_IDS, readAction } from "../../src/slack/actions.js";
import {
  type RenderContext,
  renderErrorMessage,
  renderHelpMessage,
  renderResultMessage,
  renderUnexpectedMessage,
  type SlackMessage,
} from "../../src/slack/render-blocks.js";
import { validateBlocks } from "../../tools/stand-ins/slack/block-kit-limits.js";
import {
  pauseState,
  pullRequestDetails,
  queuedPullRequest,
  queueLeaveEvent,
  queueStatus,
} from "../backends/mergify/fixtures.js";
import { slackNotices as notificationRenderer } from "../helpers/slack-notices.js";

/** The command a button's value runs, or the code of its refusal. */
function commandOfAction(actionId: string, value: string) {
  const read = readAction(actionId, value);
  return read.kind === "command" ? read.command : read.error.code;
}

const REPO = Repo.of("acme", "widgets");
const NOW = new Date("2025-11-05T13:40:00Z");
const CTX: RenderContext = { now: NOW, githubWebUrl: "https://github.com", ranBy: "U123" };
const QUIET: RenderContext = { now: NOW, githubWebUrl: "https://github.com" };
const PULLS_LINK = "<https://github.com/acme/widgets/pulls|all pull requests on GitHub>";

// ---------------------------------------------------------------------------------------------------
// Slack's limits, checked on every object of a message.

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

function textOf(node: unknown): string {
  return isObject(node) && typeof node.text === "string" ? node.text : "";
}

/** Every limit of Slack's Block Kit that a Yardmaster message could break, recursively. */
function assertWithinSlackLimits(message: SlackMessage): void {
  const problems: string[] = [];
  const check = (ok: boolean, what: string, at: string) => {
    if (!ok) problems.push(`${what} at ${at}`);
  };
  check(message.text.length > 0 && message.text.length <= 40_000, "text fallback 1..40000", "/text");
  check(message.blocks.length > 0 && message.blocks.length <= 50, "1..50 blocks", "/blocks");
  const blockIds = new Set<string>();
  const actionIds = new Set<string>();
  const allowedActions = new Set<string>(Object.values(ACTION_IDS));

  const visit = (node: unknown, at: string): void => {
    if (Array.isArray(node)) {
      node.forEach((child, i) => {
        visit(child, `${at}/${i}`);
      });
      return;
    }
    if (!isObject(node)) return;
    if (node.type === "plain_text" || node.type === "mrkdwn") {
      check(typeof node.text === "string" && node.text.length > 0, "non-empty text object", at);
    }
    switch (node.type) {
      case "section": {
        check(node.text !== undefined || node.fields !== undefined, "section text or fields", at);
        if (node.text !== undefined) check(textOf(node.text).length <= 3000, "section text ≤ 3000", at);
        if (Array.isArray(node.fields)) {
          check(node.fields.length <= 10, "≤ 10 fields", at);
          for (const field of node.fields) check(textOf(field).length <= 2000, "field text ≤ 2000", at);
        }
        break;
      }
      case "header":
        check(isObject(node.text) && node.text.type === "plain_text", "header is plain_text", at);
        check(textOf(node.text).length <= 150, "header text ≤ 150", at);
        break;
      case "actions":
        check(Array.isArray(node.elements) && node.elements.length <= 25, "≤ 25 actions", at);
        break;
      case "context":
        check(Array.isArray(node.elements) && node.elements.length <= 10, "≤ 10 context elements", at);
        for (const element of (node.elements as unknown[]) ?? []) {
          check(textOf(element).length <= 3000, "context text ≤ 3000", at);
        }
        break;
      case "button":
        check(isObject(node.text) && node.text.type === "plain_text", "button text is plain_text", at);
        check(textOf(node.text).length <= 75, "button text ≤ 75", at);
        if (node.value !== undefined) check(String(node.value).length <= 2000, "button value ≤ 2000", at);
        if (node.url !== undefined) check(String(node.url).length <= 3000, "button url ≤ 3000", at);
        if (node.action_id !== undefined) {
          const id = String(node.action_id);
          check(id.length <= 255, "action_id ≤ 255", at);
          check(allowedActions.has(id), "action_id from ACTION_IDS", at);
          check(!actionIds.has(id), "unique action_id", at);
          actionIds.add(id);
        }
        break;
    }
    if (node.block_id !== undefined) {
      const id = String(node.block_id);
      check(id.length > 0 && id.length <= 255, "block_id 1..255", at);
      check(!blockIds.has(id), "unique block_id", at);
      blockIds.add(id);
    }
    for (const [key, value] of Object.entries(node)) visit(value, `${at}/${key}`);
  };
  visit(message.blocks, "/blocks");
  expect(problems).toEqual([]);
  // And the Slack stand-in, which refuses what Slack refuses, agrees.
  expect(validateBlocks(message.blocks)).toEqual([]);
}

/** Every text of a message, fallback included. */
function everything(message: SlackMessage): string {
  return JSON.stringify(message);
}

function sectionTexts(message: SlackMessage): string[] {
  return message.blocks.flatMap((b) => (b.type === "section" && b.text ? [b.text.text] : []));
}

function buttons(message: SlackMessage): { action_id?: string; value?: string; text: string }[] {
  return message.blocks.flatMap((b) => {
    const elements =
      b.type === "actions" ? b.elements : b.type === "section" && b.accessory ? [b.accessory] : [];
    return elements.flatMap((e) =>
      e.type === "button" ? [{ action_id: e.action_id, value: e.value, text: e.text.text }] : [],
    );
  });
}

// ---------------------------------------------------------------------------------------------------
// Data.

function status(): QueueStatus {
  return queueStatus() as unknown as QueueStatus;
}

function details(): PullRequestQueueDetails {
  return pullRequestDetails(42) as unknown as PullRequestQueueDetails;
}

function pull(overrides: Partial<PullRequestInfo> = {}): PullRequestInfo {
  return {
    number: 42,
    title: "Add retry to the webhook sender",
    url: "https://github.com/acme/widgets/pull/42",
    state: "open",
    merged: false,
    baseRef: "main",
    headSha: "4f1c0a7e9b2d3c4e5f60718293a4b5c6d7e8f901",
    author: { login: "james", id: 123 },
    ...overrides,
  };
}

function relayed(
  name: "queue" | "requeue" | "dequeue",
  queue: QueueState,
  overrides: Partial<PullRequestInfo> = {},
): Extract<CommandResult, { name: "queue" | "requeue" | "dequeue" }> {
  return {
    name,
    repo: REPO,
    pull: pull(overrides),
    relayed: name === "queue" ? "queue urgent" : name === "requeue" ? "queue" : name,
    relayCommentUrl: "https://github.com/acme/widgets/pull/42#issuecomment-998877",
    queue,
  };
}

const queued: QueueState = { state: "queued", entry: mergifyEntry(details()) };
const notQueued: QueueState = { state: "not_queued" };
const unknown: QueueState = {
  state: "unknown",
  error: new CommandError(CommandErrorCode.MergeQueueUnavailable, {
    status: 503,
    repository: "acme/widgets",
  }),
};

// ---------------------------------------------------------------------------------------------------

describe("status", () => {
  function pausedStatus(): QueueStatus {
    const s = status();
    s.pause = pauseState();
    s.scope_queues = { __default__: ["a"], frontend: ["b", "c"] };
    return s;
  }

  it("shows the pause with Unpause, batches with sub-batches, waiting pull requests, scope queues and Refresh", () => {
    const message = renderResultMessage(
      {
        name: "status",
        repo: REPO,
        branch: "main",
        batches: true,
        state: mergifyState(pausedStatus(), null),
      },
      CTX,
    );
    assertWithinSlackLimits(message);
    expect(message).toMatchSnapshot();

    const [head, facts] = message.blocks;
    expect(head).toMatchObject({
      type: "header",
      text: { type: "plain_text", text: "Merge queue of acme/widgets" },
    });
    expect(JSON.stringify(facts)).toContain("branch `main`");
    const texts = sectionTexts(message).join("\n");
    expect(texts).toContain("⏸️ *Paused* since 2025-11-05 15:00 UTC: release freeze");
    expect(texts).toContain(
      "*Batch 1* — CI running · checks 45/67 · ETA in 10 min\n\u2003• <https://github.com/acme/widgets/pull/1421|#1421> feat(auth)",
    );
    expect(texts).toContain("\u2003↳ *Sub Batch 2* — CI running · checks 15/15");
    expect(texts).toMatch(/\u2003{3}• <https:\/\/github\.com\/acme\/widgets\/pull\/1422\|#1422>/);
    expect(texts).toContain("*Waiting* (1)\n• <https://github.com/acme/widgets/pull/1430|#1430>");
    expect(texts).toContain("ETA unknown · scopes `frontend`");
    expect(texts).toContain("*Scope queues*\n• `__default__` 1 batch\n• `frontend` 2 batches");

    const [unpause, refresh] = buttons(message);
    expect(unpause).toMatchObject({ action_id: ACTION_IDS.unpause, text: "Unpause" });
    expect(refresh).toMatchObject({ action_id: ACTION_IDS.refresh, text: "Refresh" });
    expect(commandOfAction(ACTION_IDS.refresh, refresh?.value ?? "")).toEqual({
      name: "status",
      repo: REPO,
      branch: "main",
    });
    expect(commandOfAction(ACTION_IDS.unpause, unpause?.value ?? "")).toEqual({
      name: "unpause",
      repo: REPO,
    });

    expect(message.text).toBe(
      "Merge queue of acme/widgets (branch main); paused since 2025-11-05 15:00 UTC: release freeze; 2 batches (Batch 1 CI running, Batch 2 bisecting); 1 pull request waiting. Asked by <@U123>.",
    );
  });

  it("has no pause and no scope queues when there are none, and says so when the queue is empty", () => {
    const s = status();
    const message = renderResultMessage(
      { name: "status", repo: REPO, batches: true, state: mergifyState(s, null) },
      QUIET,
    );
    assertWithinSlackLimits(message);
    expect(everything(message)).not.toContain("Paused");
    expect(everything(message)).not.toContain("Scope queues");
    expect(buttons(message).map((b) => b.action_id)).toEqual([ACTION_IDS.refresh]);
    expect(commandOfAction(ACTION_IDS.refresh, buttons(message)[0]?.value ?? "")).toEqual({
      name: "status",
      repo: REPO,
    });

    s.batches = [];
    s.waiting_pull_requests = [];
    const empty = renderResultMessage(
      { name: "status", repo: REPO, batches: true, state: mergifyState(s, null) },
      QUIET,
    );
    assertWithinSlackLimits(empty);
    expect(sectionTexts(empty)).toEqual(["No batch is running.", "No pull request is waiting."]);
    expect(empty.text).toContain("no batch running; 0 pull requests waiting");
  });

  it("gives every rendering new block ids, so that Refresh can replace the message", () => {
    const a = renderResultMessage(
      { name: "status", repo: REPO, batches: true, state: mergifyState(status(), null) },
      QUIET,
    );
    const b = renderResultMessage(
      { name: "status", repo: REPO, batches: true, state: mergifyState(status(), null) },
      { ...QUIET, now: new Date(NOW.getTime() + 60_000) },
    );
    const ids = (m: SlackMessage) => m.blocks.map((x) => x.block_id);
    expect(ids(a).filter((id) => ids(b).includes(id))).toEqual([]);
  });

  it("cuts a huge queue to Slack's limits with 'and N more' and a link to the pull requests", () => {
    const s = status();
    const longTitle = `${"&<>*_~`".repeat(60)} ${"x".repeat(400)}`;
    const pr = (n: number) => ({
      ...queuedPullRequest(n),
      title: longTitle,
      scopes: ["a".repeat(300), "b", "c"],
    });
    s.waiting_pull_requests = Array.from({ length: 500 }, (_, i) => pr(10_000 + i));
    const template = s.batches[1]!;
    s.batches = Array.from({ length: 60 }, (_, i) => ({
      ...template,
      name: `Batch ${i + 1} ${"&".repeat(500)}`,
      pull_requests: Array.from({ length: 20 }, (_, j) => pr(i * 100 + j)),
      sub_batches: Array.from({ length: 10 }, (_, k) => ({
        ...template,
        name: `Sub ${k} ${"<".repeat(500)}`,
        pull_requests: Array.from({ length: 20 }, (_, j) => pr(50_000 + i * 1000 + k * 20 + j)),
      })),
    }));
    s.scope_queues = Object.fromEntries(
      Array.from({ length: 200 }, (_, i) => [`scope-${i}-${"_".repeat(200)}`, ["x"]]),
    );
    s.pause = { paused: true, reason: "&".repeat(255), paused_at: "2025-11-05T13:00:00Z" };

    const message = renderResultMessage(
      { name: "status", repo: REPO, branch: "<".repeat(255), batches: true, state: mergifyState(s, null) },
      CTX,
    );
    assertWithinSlackLimits(message);
    expect(message.blocks.length).toBeLessThanOrEqual(50);
    const texts = sectionTexts(message).join("\n");

    const batchesMore = /…and (\d+) more batches \(([^)]*)\)/.exec(texts);
    expect(batchesMore?.[2]).toBe(PULLS_LINK);
    const batchesShown = texts.match(/^\*Batch \d+ /gm)?.length ?? 0;
    expect(batchesShown).toBeGreaterThan(0);
    expect(batchesShown + Number(batchesMore?.[1])).toBe(60);
    expect(texts).toContain("\u2003…and 15 more pull requests");
    expect(texts).toContain("\u2003↳ …and 5 more sub-batches");

    const waitingMore = /…and (\d+) more pull requests \(([^)]*)\)/.exec(texts);
    expect(waitingMore?.[2]).toBe(PULLS_LINK);
    const waitingShown =
      texts.match(/^• <https:\/\/github\.com\/acme\/widgets\/pull\/1\d{4}\|/gm)?.length ?? 0;
    expect(waitingShown).toBeGreaterThan(0);
    expect(waitingShown + Number(waitingMore?.[1])).toBe(500);
    expect(texts).toContain("…and 180 more scope queues");
    expect(message.text).toContain("60 batches (");
    expect(message.text).toContain(", and 55 more); 500 pull requests waiting");
  });
});

describe("pause and unpause", () => {
  it("names who paused, the reason and since when, with an Unpause button", () => {
    const message = renderResultMessage(
      { name: "pause", repo: REPO, pause: mergifyPause(pauseState()) as QueuePause },
      CTX,
    );
    assertWithinSlackLimits(message);
    expect(message).toMatchSnapshot();
    expect(sectionTexts(message)).toEqual([
      "⏸️ <@U123> paused the merge queue of `acme/widgets`: release freeze",
    ]);
    expect(message.text).toBe(
      "⏸️ <@U123> paused the merge queue of acme/widgets: release freeze (since 2025-11-05 15:00 UTC).",
    );
    const [unpause] = buttons(message);
    expect(unpause?.action_id).toBe(ACTION_IDS.unpause);
    expect(commandOfAction(ACTION_IDS.unpause, unpause?.value ?? "")).toEqual({
      name: "unpause",
      repo: REPO,
    });
  });

  it("reads without a person, and without a reason", () => {
    const message = renderResultMessage(
      { name: "pause", repo: REPO, pause: mergifyPause({ paused: true, reason: null }) as QueuePause },
      QUIET,
    );
    assertWithinSlackLimits(message);
    expect(sectionTexts(message)).toEqual(["⏸️ Merge queue of `acme/widgets` paused: no reason given"]);
    expect(message.blocks.map((b) => b.type)).toEqual(["section", "actions"]);
  });

  it("says the queue runs again, naming who", () => {
    const message = renderResultMessage({ name: "unpause", repo: REPO }, CTX);
    assertWithinSlackLimits(message);
    expect(sectionTexts(message)).toEqual([
      "▶️ <@U123> unpaused the merge queue of `acme/widgets`: it is running again.",
    ]);
    expect(message.text).toBe("▶️ <@U123> unpaused the merge queue of acme/widgets: it is running again.");
    expect(renderResultMessage({ name: "unpause", repo: REPO }, QUIET).text).toBe(
      "▶️ The merge queue of acme/widgets is running again.",
    );
  });

  it("never makes a mention of a ranBy that is not a Slack user id", () => {
    const message = renderResultMessage({ name: "unpause", repo: REPO }, { ...CTX, ranBy: "<!channel>" });
    expect(everything(message)).not.toContain("<!channel>");
  });
});

describe("relayed commands", () => {
  const cases: [string, CommandResult, RenderContext, string, string[]][] = [
    [
      "queue, queued",
      relayed("queue", queued),
      CTX,
      "✅ <@U123> queued <https://github.com/acme/widgets/pull/42|#42> Add retry to the webhook sender: it is at position 1 in the merge queue `default`, ETA in 55 min.",
      [],
    ],
    [
      "queue, not picked up yet",
      relayed("queue", notQueued),
      CTX,
      "📨 <@U123> relayed `queue urgent` for <https://github.com/acme/widgets/pull/42|#42> Add retry to the webhook sender to the merge queue; the merge queue has not picked it up yet.",
      [],
    ],
    [
      "queue, state unknown",
      relayed("queue", unknown),
      CTX,
      "📨 <@U123> relayed `queue urgent` for <https://github.com/acme/widgets/pull/42|#42> Add retry to the webhook sender to the merge queue; its state is unknown: The merge queue is unavailable right now (503). Try again in a minute.",
      [],
    ],
    [
      "requeue, queued, nobody named",
      relayed("requeue", { state: "queued", entry: mergifyEntry({ ...details(), position: 2 }) }),
      QUIET,
      "✅ <https://github.com/acme/widgets/pull/42|#42> Add retry to the webhook sender is at position 3 in the merge queue `default`, ETA in 55 min.",
      [],
    ],
    [
      "requeue, not picked up yet, nobody named",
      relayed("requeue", notQueued),
      QUIET,
      "📨 Relayed `queue` for <https://github.com/acme/widgets/pull/42|#42> Add retry to the webhook sender to the merge queue; the merge queue has not picked it up yet.",
      [],
    ],
    [
      "dequeue, left the queue",
      relayed("dequeue", notQueued),
      CTX,
      "✅ <@U123> dequeued <https://github.com/acme/widgets/pull/42|#42> Add retry to the webhook sender: it is not in the merge queue any more.",
      [ACTION_IDS.requeue],
    ],
    [
      "dequeue, still listed",
      relayed("dequeue", queued),
      CTX,
      "📨 <@U123> relayed `dequeue` for <https://github.com/acme/widgets/pull/42|#42> Add retry to the webhook sender to the merge queue; it is still listed at position 1 in the merge queue `default` until the merge queue processes the command.",
      [],
    ],
    [
      "dequeue, state unknown",
      relayed("dequeue", unknown),
      CTX,
      "📨 <@U123> relayed `dequeue` for <https://github.com/acme/widgets/pull/42|#42> Add retry to the webhook sender to the merge queue; its state is unknown: The merge queue is unavailable right now (503). Try again in a minute.",
      [],
    ],
    [
      "dequeue of a merged pull request",
      relayed("dequeue", notQueued, { merged: true, state: "closed" }),
      QUIET,
      "✅ <https://github.com/acme/widgets/pull/42|#42> Add retry to the webhook sender is not in the merge queue any more.",
      [],
    ],
  ];

  it.each(cases)("%s", (_name, result, ctx, sentence, actionIds) => {
    const message = renderResultMessage(result, ctx);
    assertWithinSlackLimits(message);
    expect(message).toMatchSnapshot();
    expect(sectionTexts(message)).toEqual([sentence]);
    const contextBlock = message.blocks.find((b) => b.type === "context");
    expect(JSON.stringify(contextBlock)).toContain(
      "in <https://github.com/acme/widgets/pull/42#issuecomment-998877|a comment> on #42",
    );
    expect(buttons(message).map((b) => b.action_id)).toEqual(actionIds);
    // The fallback says the same, without markup.
    expect(message.text).toContain("#42 Add retry to the webhook sender");
    expect(message.text).not.toMatch(/[`*]|<http/);
  });

  it("carries a Requeue button that requeues that pull request", () => {
    const message = renderResultMessage(relayed("dequeue", notQueued), CTX);
    const [requeue] = buttons(message);
    expect(requeue?.text).toBe("Requeue #42");
    expect(commandOfAction(ACTION_IDS.requeue, requeue?.value ?? "")).toEqual({
      name: "requeue",
      repo: REPO,
      pull: 42,
    });
  });
});

describe("pr", () => {
  it("shows the place, queue, ETA, CI state and the checks with links", () => {
    const message = renderResultMessage(
      { name: "pr", repo: REPO, pull: 42, batches: true, queue: queued },
      QUIET,
    );
    assertWithinSlackLimits(message);
    expect(message).toMatchSnapshot();
    const texts = sectionTexts(message);
    expect(texts[0]).toBe(
      "📍 <https://github.com/acme/widgets/pull/42|#42> of `acme/widgets` is at position 1 in the merge queue `default`, ETA in 55 min.",
    );
    expect(texts[1]).toBe(
      "*Checks*\n• ⏳ <https://github.com/acme/widgets/actions/runs/1|ci/test> — pending: Running tests",
    );
    const fields = message.blocks.flatMap((b) => (b.type === "section" && b.fields ? b.fields : []));
    expect(fields.map((f) => f.text)).toContain("*CI*\n⏳ pending (in draft pull request #1501)");
    expect(message.text).toBe(
      "📍 #42 of acme/widgets is at position 1 in the merge queue default, ETA in 55 min. CI: ⏳ pending (in draft pull request #1501).",
    );
  });

  it("cuts a long list of checks", () => {
    const d = details();
    const first = d.mergeability_check!.checks[0]!;
    d.mergeability_check!.checks = Array.from({ length: 100 }, (_, i) => ({
      ...first,
      name: `ci/${i} ${"&".repeat(300)}`,
      description: "<".repeat(1000),
    }));
    d.checks_timeout_at = "2025-11-05T15:00:00Z";
    const message = renderResultMessage(
      {
        name: "pr",
        repo: REPO,
        pull: 42,
        batches: true,
        queue: { state: "queued", entry: mergifyEntry(d) },
      },
      QUIET,
    );
    assertWithinSlackLimits(message);
    expect(sectionTexts(message).join("\n")).toMatch(
      /…and \d+ more checks \(<https:\/\/github\.com\/acme\/widgets\/pulls\|/,
    );
  });

  it("says when the pull request is in no queue, or when its state could not be read", () => {
    const none = renderResultMessage(
      { name: "pr", repo: REPO, pull: 7, batches: true, queue: notQueued },
      QUIET,
    );
    assertWithinSlackLimits(none);
    expect(sectionTexts(none)).toEqual([
      "<https://github.com/acme/widgets/pull/7|#7> of `acme/widgets` is not in any merge queue.",
    ]);
    expect(none.text).toBe("#7 of acme/widgets is not in any merge queue.");
    const failed = renderResultMessage(
      { name: "pr", repo: REPO, pull: 7, batches: true, queue: unknown },
      QUIET,
    );
    assertWithinSlackLimits(failed);
    expect(failed.text).toBe(
      "⚠️ The merge-queue state of #7 of acme/widgets could not be read: The merge queue is unavailable right now (503). Try again in a minute.",
    );
  });
});

describe("branches", () => {
  it("lists the branches, or says there are none", () => {
    const message = renderResultMessage(
      { name: "branches", repo: REPO, branches: ["main", "release/2025"] },
      QUIET,
    );
    assertWithinSlackLimits(message);
    expect(sectionTexts(message)).toEqual([
      "*Branches with an active merge queue* in `acme/widgets` (2)\n• `main`\n• `release/2025`",
    ]);
    expect(message.text).toBe("Branches with an active merge queue in acme/widgets: main, release/2025.");
    const none = renderResultMessage({ name: "branches", repo: REPO, branches: [] }, QUIET);
    expect(sectionTexts(none)).toEqual(["No branch of `acme/widgets` has an active merge queue."]);
  });

  it("cuts a thousand long branch names", () => {
    const branches = Array.from({ length: 1000 }, (_, i) => `${i}-${"&".repeat(250)}`);
    const message = renderResultMessage({ name: "branches", repo: REPO, branches }, QUIET);
    assertWithinSlackLimits(message);
    expect(sectionTexts(message).join("\n")).toMatch(/…and \d+ more branches$/);
    expect(message.text).toContain(", and 980 more.");
  });
});

describe("subscriptions and identity", () => {
  it("renders subscribe (created and updated), unsubscribe and the channel's subscriptions", () => {
    const created = renderResultMessage(
      { name: "subscribe", repo: REPO, branchGlob: "release/*", groups: ["queue", "pause"], created: true },
      CTX,
    );
    assertWithinSlackLimits(created);
    expect(created).toMatchSnapshot();
    expect(sectionTexts(created)).toEqual([
      "🔔 <@U123> subscribed this channel to `acme/widgets`: `queue`, `pause` events on branches matching `release/*`.",
    ]);
    expect(created.text).toBe(
      "🔔 <@U123> subscribed this channel to acme/widgets: queue, pause events on branches matching release/​*​.",
    );
    const updated = renderResultMessage(
      { name: "subscribe", repo: REPO, branchGlob: null, groups: ["checks"], created: false },
      QUIET,
    );
    expect(sectionTexts(updated)).toEqual([
      "🔔 This channel's subscription to `acme/widgets` is updated: `checks` events on every branch.",
    ]);
    const gone = renderResultMessage({ name: "unsubscribe", repo: REPO }, CTX);
    expect(sectionTexts(gone)).toEqual(["🔕 <@U123> unsubscribed this channel from `acme/widgets`."]);

    const list = renderResultMessage(
      {
        name: "subscriptions",
        subscriptions: [
          { repository: "acme/widgets", branchGlob: null, groups: ["queue", "pause"] },
          { repository: "acme/gadgets", branchGlob: "main", groups: ["checks"] },
        ],
      },
      QUIET,
    );
    assertWithinSlackLimits(list);
    expect(sectionTexts(list)).toEqual([
      "*Subscriptions of this channel* (2)\n• `acme/widgets`: `queue`, `pause` events on every branch\n• `acme/gadgets`: `checks` events on branches matching `main`",
    ]);
    const empty = renderResultMessage({ name: "subscriptions", subscriptions: [] }, QUIET);
    expect(sectionTexts(empty)).toEqual([
      "This channel has no subscriptions. Subscribe with `/mq subscribe &lt;repo&gt; [branch=&lt;glob&gt;] [events=&lt;group,...&gt;] [digest=weekly]`.",
    ]);
  });

  it("cuts a long list of subscriptions", () => {
    const subscriptions = Array.from({ length: 300 }, (_, i) => ({
      repository: `acme/repo-${i}`,
      branchGlob: "&".repeat(255),
      groups: ["queue", "checks", "bisection", "pause"],
    }));
    const message = renderResultMessage({ name: "subscriptions", subscriptions }, QUIET);
    assertWithinSlackLimits(message);
    expect(sectionTexts(message).join("\n")).toMatch(/…and \d+ more subscriptions$/);
  });

  it("answers login with a sign-in link that says what it does and when it expires", () => {
    const url = "https://github.com/login/oauth/authorize?client_id=Iv1.abc&state=xyz";
    const message = renderResultMessage({ name: "login", url, expiresInMinutes: 10 }, QUIET);
    assertWithinSlackLimits(message);
    expect(message).toMatchSnapshot();
    const [text] = sectionTexts(message);
    expect(text).toContain(
      "*<https://github.com/login/oauth/authorize?client_id=Iv1.abc&amp;state=xyz|Sign in with GitHub>*",
    );
    expect(text).toContain("link your Slack account to your GitHub login");
    expect(text).toContain("expires in 10 minutes");
    // The link is someone's own: passed on, it links another GitHub login to them.
    expect(text).toContain("for your Slack account only and must not be passed on");
    expect(message.text).not.toContain("state=xyz");
    expect(renderResultMessage({ name: "login", url, expiresInMinutes: 1 }, QUIET).text).toContain(
      "expires in 1 minute.",
    );
  });

  it("answers logout and whoami", () => {
    expect(sectionTexts(renderResultMessage({ name: "logout", login: "james" }, QUIET))).toEqual([
      "👋 Your Slack account is no longer linked to the GitHub login `james`.",
    ]);
    expect(sectionTexts(renderResultMessage({ name: "whoami", login: "james" }, QUIET))).toEqual([
      "🪪 Your Slack account is linked to the GitHub login `james`.",
    ]);
    const notLinked = renderResultMessage({ name: "whoami", login: null }, QUIET);
    expect(sectionTexts(notLinked)).toEqual([
      "🪪 Your Slack account is not linked to a GitHub login: `/mq login`.",
    ]);
    expect(notLinked.text).toBe("🪪 Your Slack account is not linked to a GitHub login: /mq login.");
  });
});

describe("help", () => {
  it("lists every Slack command with its usage, summary and what it needs", () => {
    const message = renderHelpMessage();
    assertWithinSlackLimits(message);
    expect(message).toMatchSnapshot();
    const texts = sectionTexts(message).join("\n");
    const slackCommands = Object.values(COMMANDS).filter((c) => c.surfaces.includes("slack"));
    expect(slackCommands.length).toBe(24);
    for (const c of slackCommands) {
      const usage = (c.usage.slack ?? "").replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
      expect(texts).toContain(`\`/mq ${usage}\``);
      expect(texts).toContain(c.summary);
      expect(message.text).toContain(c.summary);
    }
    expect(texts).toContain(
      "`/mq queue &lt;pr&gt; [queue-name] [--jump]`: add the pull request to the merge queue (--jump: at the head; for GitHub's merge queue only, refused where the repository's is Mergify). _Needs a linked GitHub account and write permission on the repository._",
    );
    expect(texts).toContain("`/mq unpause [repo] [branch=&lt;name&gt;]` (or `resume`)");
    expect(texts).toContain(
      "`/mq unsubscribe &lt;repo&gt;`: stop posting this repository's events in this channel. _Needs a linked GitHub account._",
    );
    expect(texts).toContain(
      "`/mq status [repo] [branch]`: show the merge queue: batches, waiting pull requests, pause.\n",
    );
    expect(renderResultMessage({ name: "help", surface: "slack" }, QUIET)).toEqual(message);
  });
});

describe("errors", () => {
  const details = {
    command: "pause" as const,
    repository: "acme/widgets",
    pull: 42,
    argument: "reason",
    typed: "staus",
    suggestion: "status",
    needed: "write" as const,
    held: "read" as const,
    login: "james",
    status: 503,
  };

  it.each(Object.values(CommandErrorCode))("%s: one section, 🚫 for refusals, ⚠️ for failures", (code) => {
    const error = new CommandError(code, details);
    const message = renderErrorMessage(error, CTX);
    assertWithinSlackLimits(message);
    expect(message.blocks).toHaveLength(1);
    const [text] = sectionTexts(message);
    expect(text?.startsWith(error.isRefusal ? "🚫 " : "⚠️ ")).toBe(true);
    expect(message.text.startsWith(error.isRefusal ? "🚫 " : "⚠️ ")).toBe(true);
    expect(everything(message)).not.toMatch(/undefined|null|\[object/);
    expect(message.text).not.toMatch(/[`*]/);
  });

  it("renders each family as a sentence", () => {
    const family = [
      new CommandError(CommandErrorCode.UnknownCommand, { typed: "staus", suggestion: "status" }),
      new CommandError(CommandErrorCode.MissingArgument, {
        command: "pause",
        argument: "reason",
        surface: "slack",
      }),
      new CommandError(CommandErrorCode.NotLinked, { command: "queue" }),
      new CommandError(CommandErrorCode.PermissionDenied, {
        command: "pause",
        needed: "write",
        held: "read",
        login: "james",
        repository: "acme/widgets",
      }),
      new CommandError(CommandErrorCode.MergeQueueInvalid, { detail: "Reason is too long" }),
      new CommandError(CommandErrorCode.MergeQueueUnavailable, { status: 502 }),
      new CommandError(CommandErrorCode.NotPaused, { repository: "acme/widgets" }),
      new CommandError(CommandErrorCode.GitHubFailed, { detail: "Bad credentials" }),
    ];
    const rendered = family.map((e) => renderErrorMessage(e, CTX));
    for (const m of rendered) assertWithinSlackLimits(m);
    expect(rendered).toMatchSnapshot();
    expect(sectionTexts(rendered[0]!)).toEqual([
      "🚫 `staus` is not a command. Did you mean `status`? Try `/mq help` for the list.",
    ]);
    expect(rendered[0]!.text).toBe(
      "🚫 staus is not a command. Did you mean status? Try /mq help for the list.",
    );
    expect(sectionTexts(rendered[3]!)).toEqual([
      "🚫 `pause` needs *write* permission on `acme/widgets`; james has *read*.",
    ]);
    expect(sectionTexts(rendered[5]!)).toEqual([
      "⚠️ The merge queue is unavailable right now (502). Try again in a minute.",
    ]);
  });

  it("escapes the limits and arguments that describeError writes as they are", () => {
    const message = renderErrorMessage(
      new CommandError(CommandErrorCode.InvalidArgument, {
        command: "subscribe",
        argument: "option",
        limit: "branch=<glob> or events=<group,...>",
      }),
      CTX,
    );
    assertWithinSlackLimits(message);
    expect(sectionTexts(message)[0]).toContain(
      "The option must be branch=&lt;glob&gt; or events=&lt;group,...&gt;:",
    );
    expect(everything(message)).not.toContain("<glob>");
  });

  it("keeps a very long detail of the merge queue within a section", () => {
    const message = renderErrorMessage(
      new CommandError(CommandErrorCode.MergeQueueInvalid, { detail: "&<>".repeat(5000) }),
      CTX,
    );
    assertWithinSlackLimits(message);
    expect(message.text.length).toBeLessThan(3000);
  });

  it("describes unexpected errors without their internals", () => {
    const message = renderUnexpectedMessage();
    assertWithinSlackLimits(message);
    expect(sectionTexts(message)).toEqual([
      "⚠️ Something went wrong inside Yardmaster; the error is in its logs.",
    ]);
    expect(message.text).toBe("⚠️ Something went wrong inside Yardmaster; the error is in its logs.");
  });
});

describe("escaping what people typed", () => {
  const NASTY =
    "<!channel> <!here> <!everyone> @channel @here <@U123> <#C1|general> <https://evil.example|click> & *bold* _it_ ~del~ `code` ```block```\nline two\n> quote";
  const ctx: RenderContext = { ...CTX, ranBy: "U999" };

  function nastyStatus(): QueueStatus {
    const s = status();
    s.pause = { paused: true, reason: NASTY, paused_at: "2025-11-05T13:00:00Z" };
    const batch = s.batches[1]!;
    batch.name = NASTY;
    batch.status = { code: NASTY };
    batch.pull_requests = [{ ...queuedPullRequest(7), title: NASTY, scopes: [NASTY] }];
    batch.sub_batches = [
      { ...batch, name: NASTY, pull_requests: [{ ...queuedPullRequest(8), title: NASTY }] },
    ];
    s.waiting_pull_requests = [{ ...queuedPullRequest(9), title: NASTY, scopes: [NASTY] }];
    s.scope_queues = { [NASTY]: ["a"], other: ["b"] };
    return s;
  }

  function nastyDetails(): PullRequestQueueDetails {
    const d = details();
    d.queue_rule_name = NASTY;
    d.priority_rule_name = NASTY;
    const check = d.mergeability_check!;
    check.ci_state = NASTY;
    check.check_type = NASTY;
    check.checks = [
      { ...check.checks[0]!, name: NASTY, description: NASTY, state: NASTY, url: "javascript:x" },
    ];
    return d;
  }

  const messages: [string, SlackMessage][] = [
    [
      "pause",
      renderResultMessage(
        { name: "pause", repo: REPO, pause: mergifyPause({ ...pauseState(), reason: NASTY }) as QueuePause },
        ctx,
      ),
    ],
    [
      "status",
      renderResultMessage(
        {
          name: "status",
          repo: REPO,
          branch: NASTY,
          batches: true,
          state: mergifyState(nastyStatus(), null),
        },
        ctx,
      ),
    ],
    [
      "queue",
      renderResultMessage({ ...relayed("queue", queued, { title: NASTY }), relayed: `queue ${NASTY}` }, ctx),
    ],
    [
      "queue, queued in a nasty queue",
      renderResultMessage(relayed("queue", { state: "queued", entry: mergifyEntry(nastyDetails()) }), ctx),
    ],
    ["dequeue", renderResultMessage(relayed("dequeue", notQueued, { title: NASTY }), ctx)],
    [
      "requeue, unknown",
      renderResultMessage(
        relayed("requeue", {
          state: "unknown",
          error: new CommandError(CommandErrorCode.MergeQueueInvalid, { detail: NASTY }),
        }),
        ctx,
      ),
    ],
    [
      "pr",
      renderResultMessage(
        {
          name: "pr",
          repo: REPO,
          pull: 42,
          batches: true,
          queue: { state: "queued", entry: mergifyEntry(nastyDetails()) },
        },
        ctx,
      ),
    ],
    ["branches", renderResultMessage({ name: "branches", repo: REPO, branches: [NASTY, "main"] }, ctx)],
    [
      "subscribe",
      renderResultMessage(
        { name: "subscribe", repo: REPO, branchGlob: NASTY, groups: [NASTY], created: true },
        ctx,
      ),
    ],
    [
      "subscriptions",
      renderResultMessage(
        { name: "subscriptions", subscriptions: [{ repository: NASTY, branchGlob: NASTY, groups: [NASTY] }] },
        ctx,
      ),
    ],
    ["login", renderResultMessage({ name: "login", url: `javascript:${NASTY}`, expiresInMinutes: 10 }, ctx)],
    ["logout", renderResultMessage({ name: "logout", login: NASTY }, ctx)],
    ["whoami", renderResultMessage({ name: "whoami", login: NASTY }, ctx)],
    ...[
      CommandErrorCode.UnknownCommand,
      CommandErrorCode.MissingArgument,
      CommandErrorCode.WrongPlace,
      CommandErrorCode.UnexpectedArgument,
      CommandErrorCode.InvalidArgument,
      CommandErrorCode.PermissionDenied,
      CommandErrorCode.MergeQueueInvalid,
      CommandErrorCode.MergeQueueForbidden,
      CommandErrorCode.GitHubFailed,
      CommandErrorCode.Unavailable,
    ].map((code): [string, SlackMessage] => [
      `error ${code}`,
      renderErrorMessage(
        new CommandError(code, {
          command: "pause",
          typed: NASTY,
          suggestion: NASTY,
          argument: NASTY,
          login: NASTY,
          detail: NASTY,
          repository: "acme/widgets",
          needed: "write",
          held: "read",
        }),
        ctx,
      ),
    ]),
  ];

  it.each(messages)("%s: nothing typed pings, mentions, links or breaks the markup", (name, message) => {
    assertWithinSlackLimits(message);
    const all = everything(message);
    for (const raw of [
      "<!",
      "<@U123",
      "<#C1",
      "<https://evil",
      "<http://evil",
      "javascript:",
      "@channel",
      "@here",
    ]) {
      expect(all).not.toContain(raw);
    }
    // The only mention is ours, of the person who ran the command.
    expect(all.replace(/<@U999>/g, "")).not.toContain("<@");
    // What is shown (button values are data, read back by readAction, never displayed).
    const shown = JSON.stringify(message, (key, value) => (key === "value" ? undefined : value));
    for (const bare of ["```", "`code`", "line two\\n", "\\n&gt; quote"]) expect(shown).not.toContain(bare);
    // Inside our code spans nothing is formatted; outside them, typed markers cannot pair.
    const outsideCode = shown.replace(/`[^`]*`/g, "");
    for (const marker of ["*bold*", "_it_", "~del~"]) expect(outsideCode).not.toContain(marker);
    if (name !== "login") expect(shown).toContain("&lt;!channel&gt;");
  });

  it("keeps a typed branch intact in the Refresh button's value", () => {
    // A branch may hold anything but white space and control characters: the worst of it here.
    const branch = "<!channel>@here<@U123><#C1|general>&*bold*_it_~del~`code`\\\"'\u202e";
    const message = renderResultMessage(
      { name: "status", repo: REPO, branch, batches: true, state: mergifyState(status(), null) },
      ctx,
    );
    const refresh = buttons(message).find((b) => b.action_id === ACTION_IDS.refresh);
    expect(refresh?.value).not.toMatch(/[<>&@]/);
    expect(commandOfAction(ACTION_IDS.refresh, refresh?.value ?? "")).toEqual({
      name: "status",
      repo: REPO,
      branch,
    });
  });
});

describe("notices", () => {
  it("says a removal in one sentence, in words, with the failed checks linked, and Requeue", () => {
    const raw = queueLeaveEvent();
    const event = logEventSchema.parse({
      ...raw,
      metadata: {
        ...raw.metadata,
        unsuccessful_checks: [
          { ...raw.metadata.unsuccessful_checks[0], name: "ci/test" },
          {
            ...raw.metadata.unsuccessful_checks[0],
            name: "lint",
            details_url: "https://ci.example.com/runs/8",
          },
        ],
      },
    });
    const message = notificationRenderer.event(
      fromMergifyLog(event),
      { number: 42, title: "Fix the cache", url: "https://github.com/acme/widgets/pull/42" },
      { repo: REPO, githubWebUrl: "https://github.com", now: NOW },
    );
    assertWithinSlackLimits(message);
    expect(message).toMatchSnapshot();
    expect(sectionTexts(message)[0]).toBe(
      "<https://github.com/acme/widgets/pull/42|#42> Fix the cache · ❌ Left the merge queue `default` without merging: its checks failed (<https://ci.example.com/runs/7|ci/test>, <https://ci.example.com/runs/8|lint>)",
    );
    expect(everything(message)).not.toContain("CHECKS_FAILED");
    expect(buttons(message).map((b) => b.action_id)).toEqual([ACTION_IDS.requeue]);
  });
});
