import { describe, expect, it } from "vitest";
import { closest, editDistance } from "../../../src/commands/grammar/suggest.js";

describe("suggestions", () => {
  it("measures edits with transpositions", () => {
    expect(editDistance("queue", "queue")).toBe(0);
    expect(editDistance("qeue", "queue")).toBe(1);
    expect(editDistance("stauts", "status")).toBe(1);
    expect(editDistance("", "abc")).toBe(3);
  });

  it("suggests only close words", () => {
    const words = ["queue", "dequeue", "requeue", "pause", "unpause", "status", "help"];
    expect(closest("paus", words)).toBe("pause");
    expect(closest("hlep", words)).toBe("help");
    expect(closest("Dequeu", words)).toBe("dequeue");
    expect(closest("merge", words)).toBeUndefined();
    expect(closest("x", words)).toBeUndefined();
  });
});
