import { describe, expect, it } from "vitest";
import { classifyCommandAnswer } from "../../../src/backends/mergify/index.js";

/** Mergify's hidden payload, as its bot writes it under each command answer. */
const payload = (command: string, conclusion: string | null) =>
  `<!---\nDO NOT EDIT\n-*- Mergify Payload -*-\n${JSON.stringify({ command, conclusion })}\n-*- Mergify Payload End -*-\n-->`;

const answer = (command: string, emoji: string, title: string, conclusion: string | null, details = "") =>
  `> ${command}\n\n#### ${emoji} ${title}\n\n${details ? `<details>\n\n${details}\n\n</details>\n` : ""}\n\n${payload(command, conclusion)}`;

describe("classifyCommandAnswer", () => {
  it("reads a queue accepted at once (created), with its position", () => {
    const read = classifyCommandAnswer(
      answer(
        "queue",
        "🟠",
        "The pull request is the 2nd in the queue to be merged",
        null,
        "**Required conditions of queue** `default` **for merge:**\n\n- [ ] `check-success=ci/build`",
      ),
    );
    expect(read).toMatchObject({ kind: "accepted", position: 2, command: "queue", refusal: null });
    expect(read.headline).toBe("The pull request is the 2nd in the queue to be merged");
  });

  it("reads the same answer edited once merged", () => {
    const read = classifyCommandAnswer(
      answer(
        "queue",
        "✅",
        "The pull request has been merged automatically",
        "success",
        "The pull request has been merged automatically at *abc123*",
      ),
    );
    expect(read).toMatchObject({ kind: "accepted", position: null });
    expect(read.headline).toBe("The pull request has been merged automatically");
  });

  it("reads a dequeue accepted", () => {
    const read = classifyCommandAnswer(
      answer("dequeue", "✅", "The pull request has been removed from the queue `default`", "success"),
    );
    expect(read).toMatchObject({ kind: "accepted", command: "dequeue" });
  });

  it("reads a queue waiting for conditions, with the unmet leaves only", () => {
    const details = [
      "- [ ] any of: [🔀 queue conditions]",
      "  - [ ] all of: [📌 queue conditions of queue `default`]",
      "    - [ ] `label=default`",
      "    - [ ] `#approved-reviews-by>=1`",
      "- [X] `-draft` [📌 queue requirement]",
      "- [X] `-mergify-configuration-changed` [📌 queue -> allow_merging_configuration_change setting requirement]",
    ].join("\n");
    const read = classifyCommandAnswer(
      answer("queue default", "🟠", "Waiting for conditions to match", null, details),
    );
    expect(read).toMatchObject({
      kind: "waiting",
      command: "queue default",
      headline: "Waiting for conditions to match",
    });
    expect(read.unmet).toEqual(["label=default", "#approved-reviews-by>=1"]);
  });

  it("reads a waiting answer edited into a queued one", () => {
    const waiting = classifyCommandAnswer(
      answer("queue", "🟠", "Waiting for conditions to match", null, "- [ ] `label=ready`"),
    );
    const queued = classifyCommandAnswer(
      answer("queue", "🟠", "The pull request is the 1st in the queue to be merged", null),
    );
    expect(waiting.kind).toBe("waiting");
    expect(queued).toMatchObject({ kind: "accepted", position: 1 });
  });

  it("reads a refusal for the sender's permission (Mergify's plain sentence)", () => {
    const read = classifyCommandAnswer("@yardmaster[bot] is not allowed to run commands");
    expect(read).toMatchObject({ kind: "refused", refusal: "permission", command: null });
    expect(read.headline).toBe("@yardmaster[bot] is not allowed to run commands");
  });

  it("reads a refusal by the command restrictions, its link reduced to its words", () => {
    const read = classifyCommandAnswer(
      answer(
        "queue",
        "❌",
        "Command disallowed due to [command restrictions](https://docs.mergify.com/configuration/#commands-restrictions) in the Mergify configuration.",
        "failure",
        "- [ ] `sender-permission>=write`",
      ),
    );
    expect(read).toMatchObject({ kind: "refused", refusal: "restrictions", command: "queue" });
    expect(read.headline).toBe(
      "Command disallowed due to command restrictions in the Mergify configuration.",
    );
  });

  it("reads a command it did not understand", () => {
    const read = classifyCommandAnswer(
      "Sorry but I didn't understand the command. Please consult [the commands documentation](https://docs.mergify.com/commands.html) \u{1F4DA}.",
    );
    expect(read.kind).toBe("not-understood");
    expect(read.headline).toContain("Please consult the commands documentation");
  });

  it("reads arguments it did not understand, and a failed command", () => {
    expect(
      classifyCommandAnswer(
        answer(
          "queue nope",
          "❌",
          "Sorry but I didn't understand the arguments of the command `queue`.",
          "failure",
        ),
      ).kind,
    ).toBe("not-understood");
  });

  it("calls anything else other, keeping its headline", () => {
    const read = classifyCommandAnswer(
      answer("queue", "☑️", "This pull request is already queued", "neutral"),
    );
    expect(read).toMatchObject({ kind: "other", headline: "This pull request is already queued" });
    expect(classifyCommandAnswer("").kind).toBe("other");
  });
});
