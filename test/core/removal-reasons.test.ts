import { describe, expect, it } from "vitest";
import { ABORT_CODES } from "../../src/backends/mergify/event-metadata.schema.js";
import { reasonWords, removalWords } from "../../src/core/removal-reasons.js";

/** GitHub's `dequeued` reasons (PullRequestEvent), MERGE aside: a merge is no removal. */
const GITHUB_REASONS = [
  "MANUAL",
  "MERGE_CONFLICT",
  "CI_FAILURE",
  "CI_TIMEOUT",
  "ALREADY_MERGED",
  "QUEUE_CLEARED",
  "ROLL_BACK",
  "BRANCH_PROTECTIONS",
  "GIT_TREE_INVALID",
  "INVALID_MERGE_COMMIT",
];

describe("removal reasons in words", () => {
  it.each([...ABORT_CODES, ...GITHUB_REASONS])("words %s as a phrase of its own, not its code", (code) => {
    const words = reasonWords(code);
    // Listed: not merely the code lower-cased.
    expect(words).not.toBe(code.toLowerCase().replaceAll("_", " "));
    expect(words).not.toMatch(/[A-Z]{2,}_/);
  });

  it("reads a code no one listed as its own words, lower case", () => {
    expect(reasonWords("SOME_NEW_CODE")).toBe("some new code");
    expect(removalWords({ code: "SOME_NEW_CODE", reason: "Pull request #3 has been dequeued" })).toBe(
      "some new code",
    );
  });

  it("says who removed a pull request by hand when known, else by hand", () => {
    expect(removalWords({ code: "MANUAL", removedBy: "alice (through Yardmaster)" })).toBe(
      "removed by alice (through Yardmaster)",
    );
    expect(removalWords({ code: "PR_MANUALLY_DEQUEUED", reason: "x" })).toBe("it was removed by hand");
  });

  it("uses the service's text without a code, and says nothing when there is neither", () => {
    expect(removalWords({ code: null, reason: " Dequeued by a rule " })).toBe("Dequeued by a rule");
    expect(removalWords({ code: null, reason: "" })).toBeNull();
  });
});
