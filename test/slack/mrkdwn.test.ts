import { describe, expect, it } from "vitest";
import { jsonSafe } from "../../src/slack/actions.js";
import { codeMrkdwn, escapeMrkdwn, linkMrkdwn, mrkdwnFormat, plainFormat } from "../../src/slack/mrkdwn.js";
import { clampMrkdwn, mention } from "../../src/slack/render-kit.js";
import { clip } from "../../src/wording/words.js";

const ZWSP = "\u200b";

describe("escapeMrkdwn", () => {
  it("turns Slack's three control characters into entities", () => {
    expect(escapeMrkdwn("a & b < c > d")).toBe("a &amp; b &lt; c &gt; d");
  });

  it("stops special mentions, user mentions, channel links and links", () => {
    for (const attack of [
      "<!channel>",
      "<!here>",
      "<!everyone>",
      "<@U123>",
      "<#C123|general>",
      "<https://evil|click>",
    ]) {
      const out = escapeMrkdwn(attack);
      expect(out).not.toMatch(/[<>]/);
      expect(out.startsWith("&lt;")).toBe(true);
    }
    expect(escapeMrkdwn("<!subteam^S1|@team>")).toBe(`&lt;!subteam^S1|@${ZWSP}team&gt;`);
  });

  it("never leaves a bare @channel or @here", () => {
    expect(escapeMrkdwn("@channel @here @everyone")).toBe(`@${ZWSP}channel @${ZWSP}here @${ZWSP}everyone`);
  });

  it("keeps the text on one line", () => {
    expect(escapeMrkdwn("one\ntwo\r\nthree\u2028four")).toBe("one two three four");
    expect(escapeMrkdwn("> quote\n> more")).toBe("&gt; quote &gt; more");
    expect(escapeMrkdwn("tab\there\u0000")).toBe("tab here ");
  });

  it("neutralises bold, italic and strike-through markers, but not inside words", () => {
    expect(escapeMrkdwn("*bold*")).toBe(`${ZWSP}*${ZWSP}bold${ZWSP}*${ZWSP}`);
    expect(escapeMrkdwn("_it_ ~del~")).toBe(
      `${ZWSP}_${ZWSP}it${ZWSP}_${ZWSP} ${ZWSP}~${ZWSP}del${ZWSP}~${ZWSP}`,
    );
    expect(escapeMrkdwn("snake_case_name 2*3")).toBe("snake_case_name 2*3");
  });

  it("turns backticks into a look-alike so that no code span opens or closes", () => {
    expect(escapeMrkdwn("run `rm -rf` ```x```")).toBe("run ˋrm -rfˋ ˋˋˋxˋˋˋ");
  });

  it("leaves ordinary text alone", () => {
    expect(escapeMrkdwn('feat(auth): add "Reset Password" flow — 100% ✅')).toBe(
      'feat(auth): add "Reset Password" flow — 100% ✅',
    );
  });
});

describe("codeMrkdwn", () => {
  it("keeps the characters of names, escapes entities and cannot be closed early", () => {
    expect(codeMrkdwn("feature_x/*")).toBe("`feature_x/*`");
    expect(codeMrkdwn("a`b")).toBe("`aˋb`");
    expect(codeMrkdwn("<!channel> & @here")).toBe(`\`&lt;!channel&gt; &amp; @${ZWSP}here\``);
    expect(codeMrkdwn("two\nlines")).toBe("`two lines`");
    expect(codeMrkdwn("")).toBe("` `");
  });
});

describe("linkMrkdwn", () => {
  it("links http(s) URLs with an escaped label without pipes", () => {
    expect(linkMrkdwn("https://github.com/acme/widgets/pull/42", "#42")).toBe(
      "<https://github.com/acme/widgets/pull/42|#42>",
    );
    expect(linkMrkdwn("https://x.test/a", "a|b <!channel>")).toBe("<https://x.test/a|ab &lt;!channel&gt;>");
  });

  it("escapes what would end the link early in the URL", () => {
    expect(linkMrkdwn("https://x.test/?a=1&b=<2>|3 4", "go")).toBe(
      "<https://x.test/?a=1&amp;b=%3C2%3E%7C3%204|go>",
    );
  });

  it("shows only the label for other schemes", () => {
    expect(linkMrkdwn("javascript:alert(1)", "click")).toBe("click");
    expect(linkMrkdwn("slack://open", "<!here>")).toBe("&lt;!here&gt;");
    expect(linkMrkdwn("", "x")).toBe("x");
  });

  it("falls back to the bare URL when the label is empty", () => {
    expect(linkMrkdwn("https://x.test/", "|")).toBe("<https://x.test/>");
  });
});

describe("mrkdwnFormat and plainFormat", () => {
  it("write Slack mrkdwn for /mq", () => {
    const f = mrkdwnFormat();
    expect(f.invocation).toBe("/mq");
    expect(f.bold("write")).toBe("*write*");
    expect(f.bold("<!here>")).toBe("*&lt;!here&gt;*");
    expect(f.code("/mq help")).toBe("`/mq help`");
    expect(f.escape("<@U1>")).toBe("&lt;@\u200bU1&gt;");
  });

  it("drop the markup for fallbacks but still escape", () => {
    const p = plainFormat();
    expect(p.code("/mq pause [repo] <reason>")).toBe("/mq pause [repo] &lt;reason&gt;");
    expect(p.bold("write")).toBe("write");
    expect(p.link("https://x.test", "<!channel>")).toBe("&lt;!channel&gt;");
  });
});

describe("render helpers", () => {
  it("mentions only real Slack user ids", () => {
    expect(mention("U123ABC")).toBe("<@U123ABC>");
    expect(mention("W0123")).toBe("<@W0123>");
    expect(mention("<!channel>")).toBe("&lt;!channel&gt;");
    expect(mention("u123")).toBe("u123");
  });

  it("clips on code points", () => {
    expect(clip("abcdef", 4)).toBe("abc…");
    expect(clip("abc", 4)).toBe("abc");
    expect(clip("😀😀😀", 5)).toBe("😀😀…");
  });

  it("clamps built mrkdwn without cutting a link or an entity in half", () => {
    const link = "<https://example.com/very/long/path|label>";
    expect(clampMrkdwn(`ab ${link}`, 20)).toBe("ab …");
    expect(clampMrkdwn("abcdefgh &amp; tail", 12)).toBe("abcdefgh …");
    expect(clampMrkdwn("short", 10)).toBe("short");
  });

  it("writes action values that parse to the same JSON without raw angle brackets", () => {
    const value = JSON.stringify({ r: "acme/widgets", b: "<!channel>&" });
    const safe = jsonSafe(value);
    expect(safe).not.toMatch(/[<>&]/);
    expect(JSON.parse(safe)).toEqual(JSON.parse(value));
  });
});
