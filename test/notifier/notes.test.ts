import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { QueueCheck, QueueEvent } from "../../src/core/queue.js";
import { nextUp, withAlsoFailed } from "../../src/notifier/notes.js";
import { Repo } from "../../src/repo.js";
import { openStore, type Store } from "../../src/store/index.js";
import { slackNotices as notificationRenderer } from "../helpers/slack-notices.js";

// What the recorded history adds to a notice (src/notifier/notes.ts), and how it reads.

const widgets = Repo.of("acme", "widgets");
const T0 = Date.parse("2026-01-01T10:00:00Z");
const MINUTE = 60_000;
const base = (id: number, pull: number, at: number) => ({
  id,
  at: new Date(at).toISOString(),
  repository: "acme/widgets",
  pull,
  branch: "main",
  queue: "default",
  origin: "test",
});
const check = (name: string, run: number): QueueCheck => ({
  name,
  url: `https://ci.example/runs/${run}/${name}`,
  state: "failure",
});
const left = (id: number, pull: number, at: number, checks: QueueCheck[]): QueueEvent => ({
  ...base(id, pull, at),
  kind: "left",
  merged: false,
  reason: "checks failed",
  code: "CHECKS_FAILED",
  failedChecks: checks,
});
const started = (id: number, pull: number, at: number): QueueEvent => ({
  ...base(id, pull, at),
  kind: "checks-started",
  batch: null,
});
const entered = (id: number, pull: number, at: number): QueueEvent => ({
  ...base(id, pull, at),
  kind: "entered",
});
const merged = (id: number, pull: number, at: number): QueueEvent => ({
  ...base(id, pull, at),
  kind: "merged",
  sha: null,
  enteredAt: null,
});
const shown = (event: QueueEvent) => {
  const message = notificationRenderer.event(event, null, {
    repo: widgets,
    githubWebUrl: "https://github.com",
    now: new Date(T0),
  });
  return JSON.stringify(message.blocks);
};

let store: Store;
beforeEach(async () => {
  store = await openStore({ kind: "sqlite", path: ":memory:" });
});
afterEach(async () => {
  await store.close();
});
const record = (...events: QueueEvent[]) => store.recordQueueEvents(widgets, events, new Date(T0));

describe("a check that also failed for other pull requests", () => {
  it("names the other pull requests whose own run of the check failed within the hour, linked", async () => {
    const mine = left(10, 210, T0, [check("ci/test", 210), check("lint", 210)]);
    await record(
      left(1, 204, T0 - 40 * MINUTE, [check("ci/test", 204)]),
      {
        ...base(2, 207, T0 - 5 * MINUTE),
        kind: "checks-ended",
        aborted: false,
        reason: null,
        conclusion: "failure",
        failedChecks: [check("ci/test", 207)],
      },
      // Too long ago, another check, the same run (a batch mate), and itself: not counted.
      left(3, 199, T0 - 61 * MINUTE, [check("ci/test", 199)]),
      left(4, 205, T0 - MINUTE, [check("ci/deploy", 205)]),
      left(5, 211, T0, [check("ci/test", 210)]),
      mine,
    );
    const annotated = await withAlsoFailed(store, widgets, mine);
    expect(annotated.notes).toEqual({ alsoFailed: [{ check: "ci/test", pulls: [204, 207] }] });
    const blocks = shown(annotated);
    expect(blocks).toContain(
      "⚠️ ci/test also failed for <https://github.com/acme/widgets/pull/204|#204> and <https://github.com/acme/widgets/pull/207|#207> in the last hour: probably not this change",
    );
    // Next to the Requeue button.
    expect(blocks).toContain("requeue");
  });

  it("says nothing when no other pull request's run of the check failed, or when it merged", async () => {
    const mine = left(10, 210, T0, [check("ci/test", 210)]);
    await record(left(5, 211, T0, [check("ci/test", 210)]), mine);
    expect(await withAlsoFailed(store, widgets, mine)).toBe(mine);
    expect(shown(mine)).not.toContain("also failed");
    const merge = merged(11, 210, T0);
    expect(await withAlsoFailed(store, widgets, merge)).toBe(merge);
  });
});

describe("you're next", () => {
  it("is the pull request's first checks start of its entry, with the week's usual time to merge", async () => {
    // Last week: #1 merged 10 minutes after its checks started, #2 after 20 (and its restart), #3 after 30.
    await record(
      started(1, 1, T0 - 2 * 60 * MINUTE),
      merged(2, 1, T0 - 110 * MINUTE),
      started(3, 2, T0 - 100 * MINUTE),
      started(4, 2, T0 - 90 * MINUTE),
      merged(5, 2, T0 - 70 * MINUTE),
      started(6, 3, T0 - 60 * MINUTE),
      merged(7, 3, T0 - 30 * MINUTE),
    );
    const first = started(21, 12, T0);
    await record(entered(20, 12, T0 - MINUTE), first);
    const next = await nextUp(store, widgets, first);
    expect(next).toEqual({ estimatedMergeAt: new Date(T0 + 20 * MINUTE).toISOString() });
    expect(shown({ ...first, notes: { next: next! } })).toContain(
      "🚦 You're next: checks started in the merge queue `default` · expected to merge around 2026-01-01 10:20 UTC (about 20 min after its checks start, as usual this week)",
    );
    // A restart of its checks in the same entry: not again.
    const restart = started(22, 12, T0 + 5 * MINUTE);
    await record(restart);
    expect(await nextUp(store, widgets, restart)).toBeNull();
    // Entering again: once more.
    const again = started(24, 12, T0 + 30 * MINUTE);
    await record(entered(23, 12, T0 + 20 * MINUTE), again);
    expect(await nextUp(store, widgets, again)).not.toBeNull();
  });

  it("without a merge to go by: no estimate, said so; a start the history does not hold: nothing", async () => {
    const first = started(21, 12, T0);
    expect(await nextUp(store, widgets, first)).toBeNull();
    await record(entered(20, 12, T0 - MINUTE), first);
    const next = await nextUp(store, widgets, first);
    expect(next).toEqual({ estimatedMergeAt: null });
    expect(shown({ ...first, notes: { next: next! } })).toContain("no estimate yet");
    expect(shown(first)).toContain("Checks started");
  });
});
