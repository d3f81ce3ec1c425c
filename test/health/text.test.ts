import { describe, expect, it } from "vitest";
import * as text from "../../src/health/text.js";
import { Repo } from "../../src/repo.js";
import { unpauseValue } from "../../src/slack/actions.js";
import { renderChatMessage } from "../../src/slack/render-message.js";
import { at } from "./events.js";

/** As Slack shows them. */
const openedMessage = (...a: Parameters<typeof text.openedMessage>) =>
  renderChatMessage(text.openedMessage(...a));
const endedMessage = (...a: Parameters<typeof text.endedMessage>) =>
  renderChatMessage(text.endedMessage(...a));

const place = { repository: Repo.from("acme/widgets"), githubWebUrl: "https://github.com", now: at(45) };

describe("the health alerts' words", () => {
  it("escapes what came from outside: a check's name, a pause's reason, who paused", () => {
    const failing = openedMessage(place, {
      kind: "failing-check",
      key: "<!here> *ci*",
      since: at(0),
      facts: { check: "<!here> *ci*", url: null, pulls: [1, 2, 3], minutes: 40 },
    });
    expect(failing.text).toContain("`&lt;!here&gt; \u200b*\u200bci\u200b*\u200b` failed for");
    expect(failing.text).not.toContain("<!here>");
    const pause = openedMessage(place, {
      kind: "paused-long",
      key: at(0).toISOString(),
      since: at(0),
      facts: { by: "@channel", reason: "<https://evil.example|click>", waiting: 2 },
    });
    expect(pause.text).toContain("by @\u200bchannel");
    expect(pause.text).toContain("&lt;https://evil.example|click&gt;");
    expect(JSON.stringify(pause.blocks)).toContain('"action_id"');
    const ended = endedMessage(
      place,
      { kind: "failing-check", since: at(0), facts: { check: "<!channel>" } },
      "x",
    );
    expect(ended.text).toContain("&lt;!channel&gt; failed for everyone");
  });

  it("names a branch's long pause and gives it an Unpause of that branch alone", () => {
    const reminder = openedMessage(place, {
      kind: "paused-long",
      key: `release/1 ${at(0).toISOString()}`,
      since: at(0),
      facts: { by: "rita", reason: "hold", waiting: 1, branch: "release/1" },
    });
    expect(reminder.text).toMatch(
      /^⏸️ The merge queue of .*acme\/widgets.* \(branch `release\/1`\) has been paused for 45 min by rita/,
    );
    const button = JSON.stringify(reminder.blocks);
    expect(button).toContain(
      JSON.stringify(unpauseValue(Repo.from("acme/widgets"), "release/1")).slice(1, -1),
    );
  });

  it("says the threshold set (HEALTH_STALL_MINUTES) as set, and the normal's as usual", () => {
    const stall = (thresholdSet: boolean) =>
      openedMessage(place, {
        kind: "stalled",
        key: "queue",
        since: at(0),
        facts: {
          waiting: [7],
          lastMergeAt: null,
          lastMergePull: null,
          holding: null,
          thresholdMs: 20 * 60_000,
          thresholdSet,
        },
      }).text;
    expect(stall(true)).toContain("nothing has merged for 45 min, longer than the 20 min set for it.");
    expect(stall(false)).toContain("nothing has merged for 45 min, longer than its usual 20 min.");
  });

  it("names the checks still pending, escaped and linked, and what holds the head", () => {
    const look = {
      pull: 7,
      state: "checks-running" as const,
      pending: [
        { name: "ci/test", url: "https://ci.example/1" },
        { name: "<!here> lint", url: null },
      ],
      pause: null,
    };
    const slow = openedMessage(place, {
      kind: "slow-checks",
      key: "#7",
      since: at(0),
      facts: { pulls: [7], batch: null, p90Ms: 10 * 60_000, thresholdMs: 25 * 60_000, look },
    }).text;
    expect(slow).toContain(
      "look at the checks still pending, <https://ci.example/1|ci/test> and `&lt;!here&gt; lint`, a runner may be stuck.",
    );
    expect(slow).not.toContain("<!here>");
    const stall = (holding: unknown, seen: unknown) =>
      openedMessage(place, {
        kind: "stalled",
        key: "queue",
        since: at(0),
        facts: { waiting: [7], lastMergeAt: null, holding, thresholdMs: 30 * 60_000, look: seen },
      });
    const running = { kind: "checks", pull: 7, since: at(1).toISOString(), batch: null };
    expect(stall(running, look).text).toMatch(
      /has had its <[^|]+\/pull\/7\/checks\|checks> running since [^;]+; still pending: <https:\/\/ci.example\/1\|ci\/test> and `&lt;!here&gt; lint`: look at them\.$/,
    );
    // Without the queue's word (its read failed), the history's account alone.
    expect(stall(running, undefined).text).toMatch(/running since [^;]+ UTC: look at them\.$/);
    const paused = stall(running, {
      ...look,
      pending: [],
      pause: { reason: "<!channel>", by: "bob", pausedAt: null },
    });
    expect(paused.text).toContain('The queue is paused by bob ("&lt;!channel&gt;"): unpause it');
    expect(JSON.stringify(paused.blocks)).toContain('"action_id"');
    const conflict = stall({ kind: "waiting", pull: 7 }, { ...look, state: "failing", pending: [] });
    expect(conflict.text).toContain("cannot merge as it is (a merge conflict or failing checks)");
  });
});
