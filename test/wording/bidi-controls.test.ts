import { describe, expect, it } from "vitest";
import { logEventSchema } from "../../src/backends/mergify/index.js";
import { fromMergifyLog } from "../../src/backends/mergify/queue-events.js";
import { renderSummary } from "../../src/github/render-markdown.js";
import { Repo } from "../../src/repo.js";
import { mrkdwnFormat, plainFormat } from "../../src/slack/mrkdwn.js";
import { renderResultMessage } from "../../src/slack/render-blocks.js";
import { header } from "../../src/slack/render-kit.js";
import type { TextFormat } from "../../src/wording/description.js";
import { markdownFormat } from "../../src/wording/markdown.js";
import { encodeBidiControls, withoutBidiControls } from "../../src/wording/words.js";
import { pauseCreateEvent } from "../backends/mergify/fixtures.js";
import { slackNotices as notificationRenderer } from "../helpers/slack-notices.js";

/**
 * Bidirectional controls typed into a reason, a title, a branch... are removed wherever the text is
 * shown (docs/commands.md, "Input limits"): every escape of every format removes them, so no sentence
 * can forget to. U+202E typed in a pause reason no longer reverses the rest of the summary line.
 */
const CONTROLS = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"];
const ANY_CONTROL = /[\u202a-\u202e\u2066-\u2069]/;
const REPO = Repo.of("acme", "widgets");
const REASON = "release \u202efreeze\u202c, back \u2067at\u2069 5";

describe("bidirectional controls", () => {
  it("are exactly U+202A to U+202E and U+2066 to U+2069", () => {
    expect(withoutBidiControls(`a${CONTROLS.join("")}b`)).toBe("ab");
    // Neighbours are kept: marks, zero-width characters, right-to-left letters.
    const kept = "\u2029\u2065\u206a\u202f\u200e\u200f\u061c\u200b\u05d0\u0627";
    expect(withoutBidiControls(kept)).toBe(kept);
    expect(encodeBidiControls("https://x.example/\u202e/a")).toBe("https://x.example/%E2%80%AE/a");
  });

  const formats: [string, TextFormat][] = [
    ["GitHub Markdown", markdownFormat("yardmaster")],
    ["Slack mrkdwn", mrkdwnFormat()],
    ["Slack plain text", plainFormat()],
  ];
  it.each(formats)("are removed by every method of %s", (_, f) => {
    for (const control of CONTROLS) {
      const typed = `moc.elpmaxe${control}evil`;
      const written = [
        f.escape(typed),
        f.code(typed),
        f.bold(typed),
        f.italic(typed),
        f.link("https://github.com/acme/widgets/pull/1", typed),
        f.link(`https://github.com/acme/widgets/pull/1${control}`, "#1"),
        f.link(`javascript:${control}`, typed),
      ];
      for (const text of written) expect(text).not.toMatch(ANY_CONTROL);
      expect(f.escape(typed)).toContain("elpmaxe");
    }
  });

  it("never reach Slack's plain-text header", () => {
    expect(JSON.stringify(header(`acme/widgets ${REASON}`))).not.toMatch(ANY_CONTROL);
  });

  const paused = {
    name: "pause" as const,
    repo: REPO,
    pause: { reason: REASON, pausedAt: "2025-11-05T15:00:00Z", by: null },
  };

  it("in a pause reason, no longer reverse the rest of GitHub's summary line", () => {
    const summary = renderSummary(
      {
        marker: "<!-- yardmaster -->",
        typed: `pause ${REASON}`,
        author: "alice",
        commentUrl: "https://github.com/acme/widgets/pull/1#issuecomment-1",
        outcome: { ok: true, result: paused },
        at: new Date("2025-11-05T15:00:00Z"),
      },
      markdownFormat("yardmaster"),
    );
    expect(summary).not.toMatch(ANY_CONTROL);
    expect(summary).toContain("`@yardmaster pause release freeze, back at 5`");
    expect(summary).toContain(
      "\n⏸️ The merge queue of `acme/widgets` is **paused**: release freeze, back at 5\n",
    );
  });

  it("in a pause reason, no longer reverse the rest of Slack's message, blocks or fallback", () => {
    const message = renderResultMessage(paused, {
      now: new Date("2025-11-05T15:00:00Z"),
      githubWebUrl: "https://github.com",
      ranBy: "U0ALICE",
    });
    expect(JSON.stringify(message)).not.toMatch(ANY_CONTROL);
    expect(message.text).toBe(
      "⏸️ <@U0ALICE> paused the merge queue of acme/widgets: release freeze, back at 5 (since 2025-11-05 15:00 UTC).",
    );
  });

  it("in a pause reason from the merge queue's log, never reach a notice", () => {
    const event = pauseCreateEvent();
    event.metadata.reason = REASON;
    const notice = notificationRenderer.event(fromMergifyLog(logEventSchema.parse(event)), null, {
      repo: REPO,
      githubWebUrl: "https://github.com",
      now: new Date("2025-11-05T16:00:00Z"),
      pausedBy: "alice\u202e",
    });
    expect(JSON.stringify(notice)).not.toMatch(ANY_CONTROL);
    expect(notice.text).toContain("release freeze, back at 5");
  });
});
