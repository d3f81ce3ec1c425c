import { describe, expect, it } from "vitest";
import { endedMessage, openedMessage } from "../../src/health/text.js";
import { Repo } from "../../src/repo.js";
import { at } from "./events.js";

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
});
