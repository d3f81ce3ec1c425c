import { describe, expect, it } from "vitest";
import { endingOf, storedEnding } from "../../src/health/text.js";
import { Repo } from "../../src/repo.js";
import { mrkdwnOf, renderChatMessage } from "../../src/slack/render-message.js";

describe("a feature's message laid out in Slack", () => {
  it("writes spans as mrkdwn, escaping what came from outside", () => {
    expect(
      mrkdwnOf([
        "Paused by ",
        { text: "<!here> *x*" },
        " on ",
        { code: "feature_x" },
        ", ",
        { code: { text: "a`b" } },
        ", ",
        { bold: ["#", "12"] },
        " ",
        { link: "https://github.com/a/b/pull/1", label: "#1" },
        " ",
        { link: "javascript:alert(1)", label: "no" },
        " ",
        { mention: { chatUserId: "U123ABC" } },
        " ",
        { mention: { login: "@channel" } },
        " ",
        { plain: "a & <b> *c*" },
      ]),
    ).toBe(
      "Paused by &lt;!here&gt; \u200b*\u200bx\u200b*\u200b on `feature_x`, `aˋb`, *#12* <https://github.com/a/b/pull/1|#1> no <@U123ABC> @\u200bchannel a &amp; &lt;b&gt; *c*",
    );
  });

  it("lays out a headline, lines, fields, links and buttons; the summary is the fallback", () => {
    const message = renderChatMessage({
      headline: "Queue",
      lines: ["one", ["two ", { text: "<x>" }]],
      fields: [["Branch", { code: "main" }]],
      links: [{ url: "https://ci.example/1", label: "ci" }],
      buttons: [{ label: "Unpause", style: "primary", runs: { name: "unpause", repo: Repo.from("a/b") } }],
      summary: "Queue: one",
    });
    expect(message.text).toBe("Queue: one");
    expect(message.blocks.map((b) => b.type)).toEqual([
      "header",
      "section",
      "section",
      "section",
      "context",
      "actions",
    ]);
    expect(JSON.stringify(message.blocks)).toContain('"action_id":"mq.unpause"');
    expect(JSON.stringify(message.blocks)).toContain("two &lt;x&gt;");
  });

  it("is its text alone when it has only a summary; without one, its lines are the text", () => {
    expect(renderChatMessage({ summary: { plain: "a <b>" } })).toEqual({ text: "a &lt;b&gt;", blocks: [] });
    expect(renderChatMessage({ lines: ["a", "b"] }).text).toBe("a\nb");
  });

  it("shows a health alert's ending kept by an earlier version as Slack's words, as it was", () => {
    const old = "<https://github.com/a/b/pull/7|#7> merged";
    expect(mrkdwnOf(endingOf(old))).toBe(old);
    const now = [{ link: "https://github.com/a/b/pull/7", label: "#7" }, " merged"];
    expect(mrkdwnOf(endingOf(storedEnding(now)))).toBe(old);
    expect(mrkdwnOf(endingOf(""))).toBe("");
  });
});
