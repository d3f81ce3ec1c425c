import { describe, expect, it } from "vitest";
import { logEventSchema } from "../../src/backends/mergify/index.js";
import { fromMergifyLog } from "../../src/backends/mergify/queue-events.js";
import type { QueueEvent } from "../../src/core/queue.js";
import type { NotificationContext, PullInfo } from "../../src/notifier/types.js";
import { Repo } from "../../src/repo.js";
import { ACTION_IDS, unpauseValue } from "../../src/slack/actions.js";
import {
  checksChangeEvent,
  checksEndEvent,
  pauseCreateEvent,
  queueEnterEvent,
  queueLeaveEvent,
  queueMergedEvent,
  unknownTypeEvent,
} from "../backends/mergify/fixtures.js";
import { slackNotices as render } from "../helpers/slack-notices.js";

const ctx: NotificationContext = {
  repo: Repo.of("acme", "widgets"),
  githubWebUrl: "https://github.com",
  now: new Date("2025-11-05T16:00:00Z"),
};
const pull: PullInfo = {
  number: 42,
  title: "Add <!channel> widgets *now*",
  url: "https://github.com/acme/widgets/pull/42",
};
const parse = (e: unknown): QueueEvent => fromMergifyLog(logEventSchema.parse(e));
const all = (m: { text: string; blocks: unknown[] }) => `${m.text}\n${JSON.stringify(m.blocks)}`;

const session = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
const base = queueEnterEvent();
const more = {
  checksStart: {
    ...base,
    id: 2001,
    type: "action.queue.checks_start",
    metadata: {
      branch: "main",
      priority_rule_name: null,
      queue_name: "default",
      queued_at: base.received_at,
      start_reason: "batch",
      speculative_check_pull_request: checksEndEvent().metadata.speculative_check_pull_request,
      batch_id: null,
      train_car_id: null,
      batch_name: "Batch 7",
      scopes: [],
      parent_batch_ids: [],
      previous_batch_id: null,
      previous_batch_name: null,
      session_id: session,
    },
  },
  notStarted: {
    ...base,
    id: 2002,
    type: "action.queue.checks_not_started",
    metadata: {
      branch: "main",
      priority_rule_name: null,
      queue_name: "default",
      queued_at: base.received_at,
      reason: "waiting for a CI slot",
      session_id: session,
    },
  },
  change: {
    ...base,
    id: 2003,
    type: "action.queue.change",
    metadata: { queue_name: "default", priority_rule_name: null, size: 3 },
  },
  bisectStart: {
    ...base,
    id: 2004,
    pull_request: null,
    type: "action.queue.batch_bisection_start",
    metadata: {
      queue_name: "default",
      priority_rule_name: null,
      original_batch_pr_numbers: [41, 42],
      batch_size_before_split: 2,
      number_of_sub_batches: 2,
      bisection_depth: 1,
      is_top_level: true,
      session_id: session,
      batch_id: null,
      train_car_id: null,
      batch_name: null,
    },
  },
  bisectEnd: {
    ...base,
    id: 2005,
    pull_request: null,
    type: "action.queue.batch_bisection_end",
    metadata: {
      queue_name: "default",
      priority_rule_name: null,
      original_batch_pr_numbers: [41, 42],
      culprit_found: true,
      culprit_pr_numbers: [42],
      confirmed_culprit_pr_numbers: [42],
      dropped_unverified_pr_numbers: null,
      remaining_pr_numbers: [41],
      max_failure_resolution_reached: false,
      session_id: session,
      batch_id: null,
      train_car_id: null,
      batch_name: null,
    },
  },
  pauseUpdate: {
    ...pauseCreateEvent(),
    id: 2006,
    type: "queue.pause.update",
    metadata: {
      reason: "still frozen",
      updated_by: { type: "user", id: 1, name: "hubot" },
      updated_by_staff: false,
    },
  },
  pauseDelete: {
    ...pauseCreateEvent(),
    id: 2007,
    type: "queue.pause.delete",
    metadata: { deleted_by: { type: "user", id: 1, name: "hubot" }, deleted_by_staff: false },
  },
};

describe("notification messages", () => {
  it("says something useful for every notified event type", () => {
    const cases: [unknown, RegExp][] = [
      [queueEnterEvent(), /Entered the merge queue `default` for `main`/],
      [
        queueLeaveEvent(),
        /Left the merge queue `default` without merging: its checks failed \(<https:\/\/ci.example.com\/runs\/7\|ci\/test>\)"/,
      ],
      [
        {
          ...queueMergedEvent(),
          metadata: { ...queueMergedEvent().metadata, merge_commit_sha: "abcdef1234567" },
        },
        /Merged into `main` as <https:\/\/github.com\/acme\/widgets\/commit\/abcdef1234567\|abcdef1>/,
      ],
      [checksEndEvent(), /Checks ended: `failure`/],
      [checksChangeEvent(), /2 checks running/],
      [more.checksStart, /Checks started in `Batch 7`/],
      [more.notStarted, /Checks not started: waiting for a CI slot/],
      [more.change, /now holds 3 pull requests/],
      [more.bisectStart, /Bisecting a failed batch \(#41, #42\) into 2 sub-batches/],
      [more.bisectEnd, /Bisection found the culprit: #42/],
      [pauseCreateEvent(), /was paused by octocat: release freeze/],
      [more.pauseUpdate, /pause updated by hubot: still frozen/],
      [more.pauseDelete, /was resumed by hubot/],
    ];
    for (const [raw, expected] of cases) {
      const event = parse(raw);
      const message = render.event(event, event.pull === null ? null : pull, ctx);
      expect(JSON.stringify(message.blocks), event.origin).toMatch(expected);
      expect(message.text.length, event.origin).toBeGreaterThan(10);
    }
  });

  it("says a removal in one sentence with the failed checks and their links, and offers Requeue", () => {
    const message = render.event(parse(queueLeaveEvent()), pull, ctx);
    const text = all(message);
    expect(text).toContain("without merging: its checks failed (<https://ci.example.com/runs/7|ci/test>)");
    expect(text).not.toContain("CHECKS_FAILED");
    expect(text).not.toContain("*Failed checks*");
    expect(message.text).toBe("acme/widgets #42 left the queue without merging: its checks failed (ci/test)");
    expect(text).toContain('"action_id":"mq.requeue"');
  });

  it("says what the flake shield did in a removal's notice, next to what else failed, the check's name escaped", () => {
    const event = parse(queueLeaveEvent());
    const shielded = (shield: NonNullable<NonNullable<QueueEvent["notes"]>["shield"]>) =>
      JSON.stringify(
        render.event(
          { ...event, notes: { alsoFailed: [{ check: "ci/test", pulls: [21, 22] }], shield } },
          pull,
          ctx,
        ).blocks,
      );
    const requeued = shielded({ check: "ci/test", outcome: "requeued", detail: null });
    expect(requeued).toContain("ci/test also failed for");
    expect(requeued).toContain("🛡️ ci/test is failing for everyone: queued again, attempt 2 of 2");
    const failed = shielded({ check: "ci/<!here>", outcome: "failed", detail: "GitHub answered <502>" });
    expect(failed).toContain(
      "⚠️ ci/&lt;!here&gt; is failing for everyone, but Yardmaster could not queue it again: GitHub answered &lt;502&gt;. Requeue it by hand once the check is fixed.",
    );
    expect(failed).not.toContain("<!here>");
    expect(JSON.stringify(render.event(event, pull, ctx).blocks)).not.toContain("failing for everyone");
  });

  it("words every removal: a code no one listed reads as its words, without a code the service's text", () => {
    const leave = (metadata: Record<string, unknown>) => {
      const raw = queueLeaveEvent();
      const event = { ...raw, metadata: { ...raw.metadata, unsuccessful_checks: [], ...metadata } };
      return render.event(parse(event), pull, ctx).text;
    };
    expect(leave({ dequeue_code: "CONFLICT_WITH_BASE_BRANCH" })).toContain(
      "without merging: it conflicts with its base branch",
    );
    expect(leave({ dequeue_code: "SOME_NEW_REASON" })).toContain("without merging: some new reason");
    expect(leave({ dequeue_code: null, reason: "Dequeued by a rule" })).toContain(
      "without merging: Dequeued by a rule",
    );
    expect(leave({ dequeue_code: null, reason: "" })).toMatch(/left the queue without merging$/);
  });

  it("offers Unpause on a pause, at the top level, without a pull request", () => {
    const message = render.event(parse(pauseCreateEvent()), null, ctx);
    expect(all(message)).toContain('"action_id":"mq.unpause"');
    expect(message.text).toContain("acme/widgets merge queue paused by octocat: release freeze");
  });

  it("offers an Unpause of the branch when the pause held one branch alone (the gate's)", () => {
    const gatePause: QueueEvent = {
      id: -7,
      at: "2025-11-05T15:59:00Z",
      repository: "acme/widgets",
      pull: null,
      branch: "release/2.0",
      queue: "release/2.0",
      origin: "gate.paused",
      kind: "paused",
      reason: "hotfix",
      by: "alice",
      update: false,
      scope: "branch",
    };
    const unpauseOf = (message: { blocks: unknown[] }) =>
      (message.blocks as Array<{ elements?: Array<{ action_id?: string; value?: string }> }>)
        .flatMap((b) => b.elements ?? [])
        .find((e) => e.action_id === ACTION_IDS.unpause)?.value;
    expect(unpauseOf(render.event(gatePause, null, ctx))).toBe(unpauseValue(ctx.repo, "release/2.0"));
    // Without the scope (Mergify's pause holds the repository): the Unpause names no branch.
    const { scope: _scope, ...repositoryWide } = gatePause;
    expect(unpauseOf(render.event(repositoryWide, null, ctx))).toBe(unpauseValue(ctx.repo));
  });

  describe("the gate's drains, exemptions and pull requests let through", () => {
    const base = {
      at: "2025-11-05T15:59:00Z",
      repository: "acme/widgets",
      pull: null,
      branch: "main",
      queue: "main",
      scope: "branch" as const,
    };
    const unpauseOf = (message: { blocks: unknown[] }) =>
      (message.blocks as Array<{ elements?: Array<{ action_id?: string; value?: string }> }>)
        .flatMap((b) => b.elements ?? [])
        .find((e) => e.action_id === ACTION_IDS.unpause)?.value;

    it("says a drain began, who began it and why, with Unpause", () => {
      const message = render.event(
        {
          ...base,
          id: -8,
          origin: "gate.paused",
          kind: "paused",
          reason: "deploy <!here>",
          by: "bob",
          update: false,
          drain: true,
        },
        null,
        ctx,
      );
      expect(message.text).toContain(
        "acme/widgets merge queue draining by bob, branch main only: deploy &lt;!here&gt; · what is queued merges, nothing queued from now on starts until unpaused",
      );
      expect(all(message)).not.toMatch(/<!here>/);
      expect(unpauseOf(message)).toBe(unpauseValue(ctx.repo, "main"));
    });

    it("says the queue is drained once nothing queued before is left, and that it stays held", () => {
      const message = render.event(
        { ...base, id: -9, origin: "gate.drained", kind: "drained", by: "bob", reason: "deploy" },
        null,
        ctx,
      );
      expect(message.text).toMatch(/^acme\/widgets main drained: every pull request queued before the drain/);
      expect(message.text).toContain("stays held until unpaused (bob's drain: deploy)");
      expect(unpauseOf(message)).toBe(unpauseValue(ctx.repo, "main"));
    });

    it("names the labels a pause lets through", () => {
      const message = render.event(
        {
          ...base,
          id: -10,
          origin: "gate.paused",
          kind: "paused",
          reason: "freeze",
          by: "alice",
          update: false,
          except: ["hotfix", "release"],
        },
        null,
        ctx,
      );
      expect(message.text).toContain(
        "merge queue paused by alice, branch main only: freeze · except pull requests labelled hotfix or release",
      );
      expect(all(message)).toContain("`hotfix` or `release`");
    });

    it("says who let which pull request through, with those ahead of it", () => {
      const message = render.event(
        { ...base, id: -11, origin: "gate.let-through", kind: "let-through", by: "carol", pulls: [10, 12] },
        null,
        ctx,
      );
      expect(message.text).toContain(
        "carol let #12 through the held merge queue, branch main with #10 ahead of it",
      );
      const more = render.event(
        {
          ...base,
          id: -12,
          origin: "gate.let-through",
          kind: "let-through",
          by: "carol",
          pulls: [9, 10, 12],
        },
        null,
        ctx,
      );
      expect(more.text).toContain(
        "carol let #12 through the held merge queue, branch main with #9 and #10 ahead of it",
      );
    });
  });

  it("says when a timed pause ends, and that it ended as scheduled", () => {
    const timed = render.event(parse(pauseCreateEvent()), null, {
      ...ctx,
      pausedBy: "alice",
      resumesAt: new Date(ctx.now.getTime() + 80 * 60_000),
    });
    expect(timed.text).toMatch(
      /merge queue paused by alice \(through Yardmaster\): release freeze · resumes at \S+ UTC \(in 1 h 20 min\)/,
    );
    const resumed = render.event(parse(more.pauseDelete), null, {
      ...ctx,
      pausedBy: "alice",
      scheduled: true,
    });
    expect(resumed.text).toContain("merge queue resumed as scheduled by alice (through Yardmaster)");
    const manual = render.event(parse(more.pauseDelete), null, { ...ctx, pausedBy: "bob" });
    expect(manual.text).toContain("merge queue resumed by bob (through Yardmaster)");
  });

  it("escapes titles and reasons from outside", () => {
    const evil = {
      ...pauseCreateEvent(),
      metadata: { ...pauseCreateEvent().metadata, reason: "<!here> <@U1> *x*" },
    };
    for (const message of [
      render.event(parse(evil), null, ctx),
      render.event(parse(queueEnterEvent()), pull, ctx),
    ]) {
      expect(all(message)).not.toMatch(/<!here>|<!channel>|<@U1>/);
    }
  });

  it("keeps the pull request's state in its thread parent, ignoring queue-wide counts", () => {
    const entered = render.stateAfter(null, parse(queueEnterEvent()), pull, ctx.repo);
    expect(entered).toMatchObject({
      latest: "Entered the merge queue default",
      queueName: "default",
      canRequeue: false,
    });
    const afterChange = render.stateAfter(entered, parse(more.change), pull, ctx.repo);
    expect(afterChange.latest).toBe(entered.latest);
    const left = render.stateAfter(entered, parse(queueLeaveEvent()), pull, ctx.repo);
    expect(left.canRequeue).toBe(true);
    const parent = render.parent(left, ctx);
    expect(all(parent)).toContain('"action_id":"mq.requeue"');
    expect(all(parent)).toContain("<https://github.com/acme/widgets/pull/42|#42>");
    expect(all(parent)).not.toContain("<!channel>");
  });

  it("falls back to the type's words for events it has no words for", () => {
    const message = render.event(parse(unknownTypeEvent()), null, ctx);
    expect(message.text).toContain("product enabled");
  });

  it("says a merge outside the queue at the top level: who, where, why it matters, what to do; escaped", () => {
    const event: QueueEvent = {
      id: -31,
      at: "2025-11-05T15:59:00Z",
      repository: "acme/widgets",
      pull: 31,
      branch: "main",
      queue: null,
      origin: "pull_request.closed",
      kind: "merged-outside-queue",
      by: "dana",
      sha: "abcdef1234567",
      title: "Skip <!channel> *checks*",
    };
    const message = render.event(event, null, ctx);
    expect(message.text).toBe(
      "acme/widgets#31 was merged into main by @\u200bdana without going through the merge queue: it was not tested with the rest of the queue. Check that main still passes its checks.",
    );
    const blocks = JSON.stringify(message.blocks);
    expect(blocks).toContain(
      "⚠️ <https://github.com/acme/widgets/pull/31|acme/widgets#31> Skip &lt;!channel&gt;",
    );
    expect(blocks).not.toContain("*checks*");
    expect(blocks).toContain(
      "was merged into `main` as <https://github.com/acme/widgets/commit/abcdef1234567|abcdef1> by @\u200bdana without going through the merge queue: it was not tested with the rest of the queue.",
    );
    expect(blocks).toContain("Check that `main` still passes its checks");
    expect(blocks).not.toContain("mq.requeue");
    // Who merged it unknown: said without.
    expect(render.event({ ...event, by: null, sha: null }, null, ctx).text).toContain(
      "acme/widgets#31 was merged into main without going through the merge queue",
    );
  });
});
