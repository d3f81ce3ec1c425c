import { describe, expect, it } from "vitest";
import type { Condition } from "../../src/health/assess.js";
import { endedMessage, endingWords, openedMessage } from "../../src/health/text.js";
import { Repo } from "../../src/repo.js";
import { renderChatMessage } from "../../src/slack/render-message.js";
import { at } from "./events.js";

/**
 * The exact Block Kit and fallback text of each health alert, pinned: a change to how alerts are said
 * or laid out must leave these as they are (src/slack/render-message.ts lays them out).
 */
const place = { repository: Repo.from("acme/widgets"), githubWebUrl: "https://github.com", now: at(45) };
const slack = renderChatMessage;

const look = {
  pull: 7,
  state: "checks-running" as const,
  pending: [
    { name: "ci/test", url: "https://ci.example/1" },
    { name: "<!here> *lint*", url: null },
  ],
  pause: null,
};

const conditions: Record<string, Condition> = {
  "stalled, the head's checks running": {
    kind: "stalled",
    key: "queue",
    since: at(0),
    facts: {
      waiting: [7, 8, 9],
      lastMergeAt: at(-30).toISOString(),
      lastMergePull: 6,
      holding: { kind: "checks", pull: 7, since: at(1).toISOString(), batch: "b_1" },
      thresholdMs: 30 * 60_000,
      look,
    },
  },
  "stalled, paused on a branch": {
    kind: "stalled",
    key: "release/1",
    since: at(0),
    facts: {
      waiting: [7],
      lastMergeAt: null,
      holding: { kind: "paused", by: "@channel", since: at(2).toISOString(), reason: "<b>hold</b>" },
      thresholdMs: 20 * 60_000,
      thresholdSet: true,
      branch: "release/1",
    },
  },
  "stalled, not started": {
    kind: "stalled",
    key: "queue",
    since: at(0),
    facts: {
      waiting: [7],
      lastMergeAt: null,
      holding: { kind: "not-started", pull: 7, reason: "*x*" },
      thresholdMs: 60_000,
    },
  },
  "stalled, waiting, failing": {
    kind: "stalled",
    key: "queue",
    since: at(0),
    facts: {
      waiting: [7],
      lastMergeAt: null,
      holding: { kind: "waiting", pull: 7 },
      thresholdMs: 60_000,
      look: { ...look, state: "failing", pending: [] },
    },
  },
  "slow checks": {
    kind: "slow-checks",
    key: "#7",
    since: at(0),
    facts: { pulls: [7, 8], batch: null, p90Ms: 10 * 60_000, thresholdMs: 25 * 60_000, look },
  },
  "one failing check": {
    kind: "failing-check",
    key: "ci",
    since: at(0),
    facts: { check: "<!here> *ci*", url: null, pulls: [1, 2, 3], minutes: 40 },
  },
  "several failing checks": {
    kind: "failing-check",
    key: "many",
    since: at(0),
    facts: {
      checks: ["a", "b", "c", "d", "e", "f", "g"].map((c, i) => ({
        check: c,
        url: i % 2 ? `https://ci.example/${c}` : null,
        pulls: [i + 1, 10],
        minutes: 30,
      })),
    },
  },
  "paused long": {
    kind: "paused-long",
    key: at(0).toISOString(),
    since: at(0),
    facts: { by: "rita", reason: "<https://evil.example|click>", waiting: 2 },
  },
  "paused long, a branch": {
    kind: "paused-long",
    key: "release/1",
    since: at(0),
    facts: { by: null, reason: "", waiting: 1, branch: "release/1" },
  },
};

describe("the health alerts' Block Kit", () => {
  for (const [name, condition] of Object.entries(conditions)) {
    it(`opened: ${name}`, () => {
      expect(slack(openedMessage(place, condition))).toMatchSnapshot();
    });
    it(`ended: ${name}`, () => {
      const endings = [
        endingWords(place, { kind: "merged", pull: 7 }),
        endingWords(place, { kind: "passed", pull: null }),
        endingWords(place, { kind: "resumed", by: "<!channel>" }),
      ];
      expect(endings.map((e) => slack(endedMessage(place, condition, e)))).toMatchSnapshot();
    });
  }
});
