import { describe, expect, it } from "vitest";
import { pause } from "../../src/commands/pause.js";
import { Repo } from "../../src/repo.js";
import { mrkdwnFormat } from "../../src/slack/mrkdwn.js";

/** A pause whose backend warns (the gate where the branch does not require it): the answer says so, escaped. */
const ships = Repo.of("acme", "ships");
const context = {
  now: new Date("2026-11-20T10:00:00Z"),
  githubWebUrl: "https://github.com",
  commands: [],
  error: () => () => "",
};

describe("pause's answer", () => {
  it("adds the backend's warning as a sentence of its own, escaped, on Slack and on GitHub", () => {
    const result = {
      name: "pause" as const,
      repo: ships,
      branch: "<release>",
      pause: {
        reason: "deploy",
        by: "alice",
        pausedAt: "2026-11-20T10:00:00.000Z",
        warning: "GitHub's merge queue of <release> is not held: yardmaster/gate is not a required check.",
      },
    };
    const slack = pause.describe(result, { ...context, surface: "slack", by: "<@U1>" });
    expect(slack.parts.filter((p) => p.kind === "sentence")).toHaveLength(2);
    const text = slack.summary(mrkdwnFormat());
    expect(text).toContain("⚠️ GitHub's merge queue of &lt;release&gt; is not held: yardmaster/gate");
    expect(text).not.toContain("<release>");
  });

  it("says nothing more without one", () => {
    const result = {
      name: "pause" as const,
      repo: ships,
      pause: { reason: "deploy", by: "alice", pausedAt: "2026-11-20T10:00:00.000Z" },
    };
    const text = pause
      .describe(result, { ...context, surface: "slack", by: "<@U1>" })
      .summary(mrkdwnFormat());
    expect(text).not.toContain("⚠️");
  });
});
