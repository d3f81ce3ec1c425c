import { describe, expect, it } from "vitest";
import type { StatsResult } from "../../src/commands/stats.js";
import { digestMessage } from "../../src/digests/digests.js";
import { Repo } from "../../src/repo.js";
import { renderResultMessage } from "../../src/slack/render-blocks.js";
import { renderChatMessage } from "../../src/slack/render-message.js";

/**
 * The weekly digest's exact Slack message (Block Kit and fallback): the digest says a ChatMessage
 * (src/digests), which src/slack lays out as `/mq stats` is (the snapshot was taken from `/mq stats`'s
 * own renderer before the digest said a ChatMessage).
 */
const NOW = new Date("2026-03-09T08:00:00.000Z");
const WEEK = { from: new Date("2026-03-02T08:00:00.000Z"), to: NOW };
const BEFORE = { from: new Date("2026-02-23T08:00:00.000Z"), to: WEEK.from };

function digest(): StatsResult {
  return {
    name: "stats",
    repo: Repo.from("acme/widgets"),
    period: "7d",
    digest: true,
    current: {
      period: WEEK,
      merged: 12,
      waitP50: 1_800,
      waitP90: 7_200,
      leaves: [
        { code: "checks_failed", count: 3, reason: "checks failed: <ci/test>" },
        { code: null, count: 1, reason: "removed by @bob" },
      ],
      leftWithoutMerging: 4,
      failedChecks: [
        { name: "ci/test", url: "https://github.com/acme/widgets/runs/1", count: 3 },
        { name: "lint & format", url: null, count: 1 },
      ],
      pauses: 2,
      pausedSeconds: 5_400,
      mergedOutside: [
        { pull: 41, by: "carol" },
        { pull: 42, by: null },
      ],
    },
    previous: {
      period: BEFORE,
      merged: 9,
      waitP50: 2_400,
      waitP90: null,
      leaves: [],
      leftWithoutMerging: 0,
      failedChecks: [],
      pauses: 0,
      pausedSeconds: 0,
      mergedOutside: [],
    },
    normal: { mergeGapP90: 3_600_000, checksP90: 1_200_000, stallAfterMs: 5_400_000, slowAfterMs: 2_400_000 },
    shield: { on: true, requeued: 2, merged: 1 },
  };
}

describe("the weekly digest in Slack", () => {
  it("is the stats result laid out as /mq stats shows it, block for block", () => {
    const message = renderChatMessage(digestMessage(digest(), NOW, "https://github.com"));
    expect(message).toMatchSnapshot();
    // And as `/mq stats` answers the same result.
    expect(message).toEqual(renderResultMessage(digest(), { now: NOW, githubWebUrl: "https://github.com" }));
  });
});
