import { describe, expect, it } from "vitest";
import { codeSpan, escapeMarkdown, markdownFormat } from "../../src/wording/markdown.js";

describe("GitHub Markdown escaping", () => {
  it("makes mentions, HTML and Markdown inert", () => {
    const out = escapeMarkdown("@channel <img src=x onerror=alert(1)> **bold** [x](http://evil) @acme/team");
    expect(out).not.toMatch(/@[A-Za-z]/);
    expect(out).not.toContain("<");
    expect(out).not.toContain("**");
    expect(out).toContain("\\[x\\]\\(http://evil\\)".replace(/:/, "\\:"));
  });

  it("keeps text on one line", () => {
    expect(escapeMarkdown("a\n# heading\r\nb")).toBe("a \\# heading b");
  });

  it("fences code spans longer than any backtick run inside", () => {
    expect(codeSpan("queue")).toBe("`queue`");
    expect(codeSpan("a`b")).toBe("``a`b``");
    expect(codeSpan("`x`")).toBe("`` `x` ``");
  });

  it("links only http(s) URLs", () => {
    const f = markdownFormat("yardmaster");
    expect(f.link("https://github.com/acme/widgets/pull/1", "#1")).toBe(
      "[\\#1](https://github.com/acme/widgets/pull/1)",
    );
    expect(f.link("javascript:alert(1)", "x")).toBe("x");
    expect(f.invocation).toBe("@yardmaster");
  });
});
