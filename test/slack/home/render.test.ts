import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Repo } from "../../../src/repo.js";
import { ACTION_IDS, readAction } from "../../../src/slack/actions.js";
import { HOME_MAX_BLOCKS, type HomeModel, renderHome } from "../../../src/slack/home/render.js";
import { LIMITS, validateBlocks } from "../../../tools/stand-ins/slack/block-kit-limits.js";

const now = new Date("2026-01-01T12:00:00Z");
const RELEASE = (JSON.parse(readFileSync("package.json", "utf8")) as { version: string }).version;
const widgets = Repo.of("acme", "widgets");
const linked: HomeModel = {
  login: "alice",
  canLink: true,
  queued: [
    {
      repo: widgets,
      number: 7,
      title: "Add cogs",
      url: "https://github.com/acme/widgets/pull/7",
      position: 2,
      eta: new Date("2026-01-01T12:30:00Z"),
      canDequeue: true,
    },
  ],
  paused: [{ repo: widgets, reason: "release freeze", since: now, canUnpause: false }],
  subscriptions: [{ channelId: "C0MQ", repo: widgets, branchGlob: "release/*", groups: ["queue"] }],
  preferences: { enabled: true, groups: ["queue"], muted: [] },
  repositories: [widgets],
  now,
};
const text = (model: HomeModel) => JSON.stringify(renderHome(model).blocks);
/** Every button of a view, each read back as the command it runs. */
function buttons(model: HomeModel) {
  const found: { actionId: string; value: string; text: string }[] = [];
  const visit = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === "object") {
      const n = node as Record<string, unknown>;
      if (n.type === "button")
        found.push({
          actionId: String(n.action_id),
          value: String(n.value),
          text: (n.text as { text: string }).text,
        });
      Object.values(n).forEach(visit);
    }
  };
  visit(renderHome(model).blocks);
  return found;
}

describe("the Home tab view", () => {
  it("says how a GitHub merge queue is held: draining, by whom, and the labels a pause lets through", () => {
    const ships = Repo.of("acme", "ships");
    const all = text({
      ...linked,
      paused: [
        {
          repo: ships,
          reason: "deploy <!here>",
          since: now,
          canUnpause: true,
          hold: "draining",
          by: "bob",
          branch: "main",
        },
        {
          repo: ships,
          reason: "freeze",
          since: null,
          canUnpause: false,
          hold: "paused",
          by: "alice",
          branch: "release/2.0",
          except: ["hotfix"],
        },
      ],
    });
    expect(all).toContain(
      "⏬ `acme/ships` (branch `main`) is draining by bob since 2026-01-01 12:00 UTC: deploy &lt;!here&gt;",
    );
    expect(all).toContain(
      "⏸️ `acme/ships` (branch `release/2.0`) is paused by alice: freeze · except pull requests labelled `hotfix`",
    );
  });

  it("shows a linked person their pull requests, pauses, subscriptions and notices, with working buttons", () => {
    const view = renderHome(linked);
    expect(view.type).toBe("home");
    expect(validateBlocks(view.blocks, LIMITS.blocksPerView)).toEqual([]);
    const all = text(linked);
    expect(all).toContain("Linked to the GitHub account `alice`");
    expect(all).toContain("<https://github.com/acme/widgets/pull/7|acme/widgets#7> Add cogs");
    expect(all).toContain("Position 2, merge expected 2026-01-01 12:30 UTC");
    expect(all).toContain("release freeze");
    expect(all).toContain("<#C0MQ>");
    const labels = buttons(linked).map((b) => b.text);
    expect(labels).toEqual(expect.arrayContaining(["Unlink", "Dequeue", "Turn off", "Add", "Mute"]));
    // No Unpause for someone who may not unpause.
    expect(buttons(linked).some((b) => b.actionId === ACTION_IDS.unpause)).toBe(false);
    for (const b of buttons(linked)) expect(readAction(b.actionId, b.value).kind, b.text).toBe("command");
  });

  it("says which repositories have the flake shield on, none when none has", () => {
    expect(text(linked)).not.toContain("Flake shield");
    const shielded = text({ ...linked, shielded: [widgets] });
    expect(shielded).toContain(
      "🛡️ Flake shield on for `acme/widgets`: a pull request removed for a check that also failed for two others within the hour is queued again, once.",
    );
  });

  it("shows an unlinked person only a Link button", () => {
    const unlinked: HomeModel = {
      ...linked,
      login: null,
      queued: [],
      paused: [],
      subscriptions: [],
      repositories: [],
      preferences: null,
    };
    expect(buttons(unlinked).map((b) => b.actionId)).toEqual([ACTION_IDS.login]);
    expect(text(unlinked)).not.toContain("acme/widgets");
  });

  it("escapes what came from outside: titles, reasons, branch globs", () => {
    const hostile: HomeModel = {
      ...linked,
      queued: [
        { ...(linked.queued[0] as HomeModel["queued"][number]), title: "<!channel> *pwn* <http://x|y>" },
      ],
      paused: [{ repo: widgets, reason: "<@U123> & <!here>", since: null, canUnpause: true }],
      subscriptions: [{ channelId: "<!channel>", repo: widgets, branchGlob: "a<b>", groups: ["queue"] }],
    };
    const all = text(hostile);
    expect(all).not.toContain("<!channel>");
    expect(all).not.toContain("<!here>");
    expect(all).not.toContain("<@U123>");
    expect(all).not.toContain("<http://x|y>");
  });

  it("stays within Slack's limits for a person with a great many of everything", () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
    const repos = many(200).map((i) => Repo.of("acme", `repo-${i}-${"x".repeat(80)}`));
    const huge: HomeModel = {
      ...linked,
      notice: many(30).map(() => ({ type: "section", text: { type: "mrkdwn", text: "done" } })),
      queued: repos.map((repo, i) => ({
        repo,
        number: i + 1,
        title: "t".repeat(300),
        url: `https://github.com/${repo}/pull/${i + 1}`,
        position: i + 1,
        eta: null,
        canDequeue: true,
      })),
      paused: repos.map((repo) => ({ repo, reason: "r".repeat(255), since: now, canUnpause: true })),
      subscriptions: repos.map((repo, i) => ({
        channelId: `C${i}`,
        repo,
        branchGlob: "b".repeat(255),
        groups: ["queue", "checks", "bisection", "pause"],
      })),
      preferences: { enabled: true, groups: ["queue", "pause"], muted: repos.slice(0, 50) },
      repositories: repos,
      shielded: repos,
    };
    const view = renderHome(huge);
    expect(view.blocks.length).toBeLessThanOrEqual(HOME_MAX_BLOCKS);
    // Within the limit by its own caps: nothing was cut at the end (the "Updated" line is last).
    expect(JSON.stringify(view.blocks.at(-1))).toContain("Updated ");
    // The footer names the release that answers (package.json's version).
    expect(JSON.stringify(view.blocks.at(-1))).toContain(`Yardmaster ${RELEASE}`);
    expect(validateBlocks(view.blocks, LIMITS.blocksPerView)).toEqual([]);
    expect(text(huge)).toContain("more in a queue");
    expect(text(huge)).toContain("more paused");
    expect(text(huge)).toContain("more subscriptions");
    expect(text(huge)).toContain("and 190 more: a pull request removed");
  });
});
