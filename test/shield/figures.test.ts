import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeResult } from "../../src/commands/describe.js";
import type { ShieldFigures } from "../../src/commands/ports.js";
import type { StatsResult } from "../../src/commands/stats.js";
import type { QueueEvent } from "../../src/core/queue.js";
import { factsOf, periodFigures } from "../../src/history/figures.js";
import { Repo } from "../../src/repo.js";
import { shieldFigures } from "../../src/shield/figures.js";
import { openStore, type Store } from "../../src/store/index.js";
import type { Part, TextFormat } from "../../src/wording/description.js";

// The flake shield in the figures (`stats`, the weekly digest): what it queued again in the period, how
// many of those then merged; and the checks that removed most pull requests, top 3.

const repo = Repo.of("acme", "widgets");
const T0 = Date.parse("2026-03-02T10:00:00Z");
const HOUR = 3_600_000;
const at = (hours: number) => new Date(T0 + hours * HOUR);
let id = 1;
const event = (pull: number, hours: number, body: Record<string, unknown>): QueueEvent =>
  ({
    id: id++,
    at: at(hours).toISOString(),
    repository: repo.fullName,
    pull,
    branch: "main",
    queue: "default",
    origin: "test",
    ...body,
  }) as QueueEvent;
const leftFailed = (pull: number, hours: number, checks: string[]) =>
  event(pull, hours, {
    kind: "left",
    merged: false,
    reason: "its checks failed",
    code: "CHECKS_FAILED",
    failedChecks: checks.map((name) => ({ name, url: `https://ci.example/${id}/${name}`, state: "failure" })),
  });

let store: Store;
beforeEach(async () => {
  store = await openStore({ kind: "sqlite", path: ":memory:" });
});
afterEach(async () => {
  await store.close();
});

/** The shield queued `pull` again after its removal `leftEvent`, at `hours`. */
async function requeued(
  pull: number,
  leftEvent: QueueEvent,
  hours: number,
  outcome: "requeued" | "skipped" = "requeued",
) {
  const key = { repository: repo, pull, entryKey: `e${leftEvent.id}` };
  await store.recordShieldRetry({
    ...key,
    leftEventId: leftEvent.id,
    leftAt: new Date(leftEvent.at),
    check: "ci/test",
    owner: "a",
    now: at(hours),
  });
  await store.decideShieldRetry(key, "a", { outcome, detail: null, at: at(hours) });
}

describe("the shield's figures", () => {
  it("counts the pull requests it queued again in the period, and those that then merged", async () => {
    const l1 = leftFailed(1, 1, ["ci/test"]);
    const l2 = leftFailed(2, 2, ["ci/test"]);
    const l3 = leftFailed(3, 3, ["ci/test"]);
    const l4 = leftFailed(4, -30, ["ci/test"]);
    const l5 = leftFailed(5, 4, ["ci/test"]);
    await store.recordQueueEvents(
      repo,
      [
        l1,
        event(1, 1.1, { kind: "entered", queuedBy: null }),
        event(1, 1.5, { kind: "merged", sha: "a", enteredAt: null }),
        l2,
        event(2, 2.1, { kind: "entered", queuedBy: null }),
        // Its second try failed too: not merged (and merged later by hand, after a new entry: not the shield's).
        leftFailed(2, 2.5, ["ci/test"]),
        event(2, 5, { kind: "merged", sha: "b", enteredAt: null }),
        l3,
        // Still in the queue.
        event(3, 3.1, { kind: "entered", queuedBy: null }),
        l4,
        event(4, -29, { kind: "left", merged: true, reason: null, code: null, failedChecks: [] }),
        l5,
      ],
      at(6),
    );
    await requeued(1, l1, 1);
    await requeued(2, l2, 2);
    await requeued(3, l3, 3);
    // Before the period: not counted.
    await requeued(4, l4, -30);
    // Left alone (the queue was paused): not counted.
    await requeued(5, l5, 4, "skipped");
    await store.putFlakeShield({
      repository: repo,
      enabled: true,
      changedBy: "alice",
      surface: "slack",
      changedAt: at(-48),
    });
    expect(await shieldFigures(store, repo, { from: at(0), to: at(24) }, at(24))).toEqual({
      on: true,
      requeued: 3,
      merged: 1,
    });
    // A merge by leaving (Mergify says so on its leave) counts too.
    expect(await shieldFigures(store, repo, { from: at(-48), to: at(0) }, at(24))).toEqual({
      on: true,
      requeued: 1,
      merged: 1,
    });
    expect(await shieldFigures(store, Repo.of("acme", "other"), { from: at(0), to: at(24) }, at(24))).toEqual(
      {
        on: false,
        requeued: 0,
        merged: 0,
      },
    );
  });
});

const NEUTRAL: TextFormat = {
  escape: (t) => t,
  code: (t) => `{${t}}`,
  bold: (t) => `*${t}*`,
  italic: (t) => `_${t}_`,
  strong: (m) => `*${m}*`,
  link: (_url, label) => label,
  invocation: "/mq",
};

function stats(shield?: ShieldFigures): StatsResult {
  const period = { from: at(-168), to: at(0) };
  const facts = factsOf([
    leftFailed(1, -100, ["ci/test", "lint"]),
    leftFailed(2, -90, ["ci/test"]),
    leftFailed(3, -80, ["ci/test", "e2e"]),
    leftFailed(4, -70, ["lint", "build"]),
    leftFailed(5, -60, ["docs"]),
  ]);
  return {
    name: "stats",
    repo,
    period: "7d",
    current: periodFigures(period, facts),
    previous: periodFigures({ from: at(-336), to: at(-168) }, factsOf([])),
    ...(shield ? { shield } : {}),
  };
}

function lines(result: StatsResult): string[] {
  const described = describeResult(result, {
    surface: "slack",
    now: at(0),
    githubWebUrl: "https://github.com",
  });
  const part = (p: Part): string[] => {
    if (p.kind === "fields") return p.fields.map(([label, value]) => `${label}: ${value(NEUTRAL)}`);
    if (p.kind === "list") return [p.heading?.(NEUTRAL) ?? "", ...p.items.map((i) => i(NEUTRAL))];
    return [];
  };
  return [...described.parts.flatMap(part), described.summary(NEUTRAL)];
}

describe("stats and the digest", () => {
  it("show the checks that removed most pull requests, top 3 with their counts", () => {
    const said = lines(stats());
    const heading = said.indexOf("*Checks that removed most pull requests*");
    expect(said.slice(heading, heading + 5)).toEqual([
      "*Checks that removed most pull requests*",
      "ci/test × 3",
      "lint × 2",
      "build × 1",
      "…and 2 more checks",
    ]);
    expect(said.at(-1)).toContain("checks that removed most pull requests ci/test × 3, lint × 2, build × 1");
  });

  it("show what the flake shield queued again and how many then merged, where it is on or acted", () => {
    expect(lines(stats({ on: true, requeued: 3, merged: 2 }))).toContain(
      "Queued again by the flake shield: 3 (2 of them then merged)",
    );
    expect(lines(stats({ on: false, requeued: 1, merged: 0 }))).toContain(
      "Queued again by the flake shield: 1 (0 of them then merged); the shield is off now",
    );
    expect(lines(stats({ on: false, requeued: 0, merged: 0 })).join(" ")).not.toContain("flake shield");
    expect(lines(stats()).join(" ")).not.toContain("flake shield");
    expect(lines(stats({ on: true, requeued: 0, merged: 0 })).at(-1)).toContain(
      "queued again by the flake shield 0 (0 of them then merged)",
    );
  });
});
