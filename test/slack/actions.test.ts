import { describe, expect, it } from "vitest";
import { CommandErrorCode } from "../../src/commands/errors.js";
import { Repo } from "../../src/repo.js";
import { ACTION_IDS, readAction, refreshValue, requeueValue, unpauseValue } from "../../src/slack/actions.js";
import { renderErrorMessage } from "../../src/slack/render-blocks.js";

const REPO = Repo.of("acme", "widgets");

describe("button values", () => {
  it("read back exactly the command each button was written for", () => {
    expect(readAction(ACTION_IDS.unpause, unpauseValue(REPO))).toEqual({
      kind: "command",
      command: { name: "unpause", repo: REPO },
    });
    expect(readAction(ACTION_IDS.unpause, unpauseValue(REPO, "release/2.0"))).toEqual({
      kind: "command",
      command: { name: "unpause", repo: REPO, branch: "release/2.0" },
    });
    expect(readAction(ACTION_IDS.requeue, requeueValue(REPO, 42))).toEqual({
      kind: "command",
      command: { name: "requeue", repo: REPO, pull: 42 },
    });
    expect(readAction(ACTION_IDS.requeue, requeueValue(REPO, Number.MAX_SAFE_INTEGER))).toMatchObject({
      command: { pull: Number.MAX_SAFE_INTEGER },
    });
    expect(readAction(ACTION_IDS.refresh, refreshValue(REPO))).toEqual({
      kind: "command",
      command: { name: "status", repo: REPO },
    });
    expect(readAction(ACTION_IDS.refresh, refreshValue(REPO, "release/<1.x>@next"))).toEqual({
      kind: "command",
      command: { name: "status", repo: REPO, branch: "release/<1.x>@next" },
    });
    // let's question offers `let … through confirm`, and only that.
    expect(readAction(ACTION_IDS.let, requeueValue(REPO, 12))).toEqual({
      kind: "command",
      command: { name: "let", repo: REPO, pull: 12, confirm: true },
    });
    expect(readAction(ACTION_IDS.let, '{"r":"acme/widgets","p":12,"c":false}').kind).toBe("refused");
    // What is written never holds the characters Slack would read as markup.
    expect(refreshValue(REPO, "<!channel>&@here")).toBe(
      '{"r":"acme/widgets","b":"\\u003c!channel\\u003e\\u0026\\u0040here"}',
    );
  });

  it.each([
    ["a path in the repository", ACTION_IDS.requeue, '{"r":"acme/widgets/../../x","p":1}'],
    ["a URL for the repository", ACTION_IDS.unpause, '{"r":"https://github.com/acme/widgets"}'],
    ["an invalid owner", ACTION_IDS.unpause, '{"r":"ac me/widgets"}'],
    ["an extra key", ACTION_IDS.requeue, '{"r":"acme/widgets","p":1,"x":2}'],
    ["a key of another button", ACTION_IDS.unpause, '{"r":"acme/widgets","p":1}'],
    ["a missing key", ACTION_IDS.requeue, '{"r":"acme/widgets"}'],
    ["a number as a string", ACTION_IDS.requeue, '{"r":"acme/widgets","p":"1"}'],
    ["a repository as a list", ACTION_IDS.unpause, '{"r":["acme/widgets"]}'],
    ["a branch as a number", ACTION_IDS.refresh, '{"r":"acme/widgets","b":5}'],
    ["a branch with a space", ACTION_IDS.refresh, '{"r":"acme/widgets","b":"main x"}'],
    ["an empty branch", ACTION_IDS.refresh, '{"r":"acme/widgets","b":""}'],
    ["a number beyond 2^53", ACTION_IDS.requeue, '{"r":"acme/widgets","p":9007199254740993}'],
    ["2^53", ACTION_IDS.requeue, '{"r":"acme/widgets","p":9007199254740992}'],
    ["a negative number", ACTION_IDS.requeue, '{"r":"acme/widgets","p":-1}'],
    ["a fraction", ACTION_IDS.requeue, '{"r":"acme/widgets","p":1.5}'],
    ["a whole number written as a fraction", ACTION_IDS.requeue, '{"r":"acme/widgets","p":1.0}'],
    ["an exponent", ACTION_IDS.requeue, '{"r":"acme/widgets","p":1e0}'],
    ["another key order", ACTION_IDS.requeue, '{"p":1,"r":"acme/widgets"}'],
    ["a repeated key", ACTION_IDS.unpause, '{"r":"evil/x","r":"acme/widgets"}'],
    ["white space", ACTION_IDS.unpause, '{ "r": "acme/widgets" }'],
    ["markup written raw", ACTION_IDS.refresh, '{"r":"acme/widgets","b":"<!channel>"}'],
    ["null", ACTION_IDS.unpause, "null"],
    ["a list", ACTION_IDS.unpause, '["acme/widgets"]'],
    ["not JSON", ACTION_IDS.unpause, "acme/widgets"],
    ["nothing", ACTION_IDS.unpause, ""],
  ])("refuse %s, naming the command to type instead", (_, actionId, value) => {
    const read = readAction(actionId, value);
    if (read.kind !== "refused") throw new Error(`ran ${JSON.stringify(read.command)}`);
    expect(read.error.code).toBe(CommandErrorCode.UnreadableButton);
    expect(read.error.isRefusal).toBe(true);
    const message = renderErrorMessage(read.error, { now: new Date(), githubWebUrl: "https://github.com" });
    const command = {
      [ACTION_IDS.unpause]: "unpause",
      [ACTION_IDS.requeue]: "requeue",
      [ACTION_IDS.refresh]: "status",
    }[actionId];
    expect(message.text).toContain("nothing was run");
    expect(message.text).toContain(`/mq ${command}`);
  });

  it("refuses a button this version does not have", () => {
    const read = readAction("mq.merge", unpauseValue(REPO));
    expect(read).toMatchObject({ kind: "refused", error: { code: CommandErrorCode.UnreadableButton } });
    if (read.kind === "refused") {
      expect(renderErrorMessage(read.error, { now: new Date(), githubWebUrl: "" }).text).toContain(
        "/mq help",
      );
    }
  });
});
