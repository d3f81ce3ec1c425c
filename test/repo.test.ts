import { describe, expect, it } from "vitest";
import { Repo } from "../src/repo.js";

describe("Repo", () => {
  it("is written owner/name, in JSON too, and compared case-insensitively", () => {
    const repo = Repo.of("Acme", "Widgets.js");
    expect(repo.fullName).toBe("Acme/Widgets.js");
    expect(`${repo}`).toBe("Acme/Widgets.js");
    expect(JSON.stringify({ repo })).toBe('{"repo":"Acme/Widgets.js"}');
    expect(repo.key).toBe("acme/widgets.js");
    expect(repo.equals(Repo.of("acme", "widgets.js"))).toBe(true);
    expect(repo.equals(Repo.of("acme", "gadgets"))).toBe(false);
  });

  it("parses exactly owner/name and refuses anything else", () => {
    expect(Repo.parse("acme/widgets")?.fullName).toBe("acme/widgets");
    for (const text of [
      "acme",
      "acme/widgets/../../x",
      "acme/widgets/",
      "/widgets",
      "acme/",
      "acme/..",
      "my_org/widgets",
      `${"o".repeat(41)}/widgets`,
      "acme/wid gets",
      "https://github.com/acme/widgets",
    ]) {
      expect(Repo.parse(text), text).toBeNull();
    }
  });

  it("refuses invalid parts with the limit's message", () => {
    expect(() => Repo.of("my_org", "widgets")).toThrow('owner must be 1 to 40 letters, digits or "-"');
    expect(() => Repo.of("acme", "..")).toThrow(/repository must be 1 to 100/);
    expect(() => Repo.from("nope")).toThrow(/not a repository/);
  });
});
