import { describe, expect, it } from "vitest";
import type { Actor } from "../../src/commands/command.js";
import { CommandErrorCode } from "../../src/commands/errors.js";
import { parseSlackCommand } from "../../src/commands/grammar/parse.js";
import { noticeWanted, notify } from "../../src/commands/notify.js";
import type { Ports } from "../../src/commands/ports.js";
import type { NoticePreferences } from "../../src/core/records.js";
import { Repo } from "../../src/repo.js";
import { mrkdwnFormat } from "../../src/slack/mrkdwn.js";

const place = { githubWebUrl: "https://github.com" };
const widgets = Repo.of("acme", "widgets");
const read = (text: string) => {
  const parsed = parseSlackCommand(text, place);
  if (parsed.kind !== "command")
    throw new Error(`refused: ${parsed.error.code} ${parsed.error.details.limit}`);
  return parsed.command;
};
const refusal = (text: string) => {
  const parsed = parseSlackCommand(text, place);
  if (parsed.kind !== "refused") throw new Error(`expected a refusal of ${text}`);
  return parsed.error;
};

/** Ports with an in-memory preferences table; `puts` counts the writes. */
function ports(stored: NoticePreferences | null = null) {
  const table = { stored, puts: 0 };
  const p = {
    account: {
      loginUrl: null,
      store: {
        getNoticePreferences: async () => table.stored,
        putNoticePreferences: async (prefs: NoticePreferences) => {
          table.stored = prefs;
          table.puts += 1;
        },
      },
    },
    now: () => new Date("2026-01-01T00:00:00Z"),
  } as unknown as Ports;
  return { ports: p, table };
}
const alice: Actor = {
  surface: "slack",
  githubLogin: "alice",
  display: "<@U1>",
  slack: { teamId: "T1", userId: "U1", channelId: "C1" },
};

describe("/mq notify grammar", () => {
  it("reads show, on, off, events and a repository's mute", () => {
    expect(read("notify")).toEqual({ name: "notify", change: { kind: "show" } });
    expect(read("notify off")).toEqual({ name: "notify", change: { kind: "enabled", enabled: false } });
    expect(read("notify on")).toEqual({ name: "notify", change: { kind: "enabled", enabled: true } });
    expect(read("notify events=queue,pause,queue")).toEqual({
      name: "notify",
      change: { kind: "events", groups: ["queue", "pause"] },
    });
    expect(read("notify repo=Acme/Widgets off")).toEqual({
      name: "notify",
      change: { kind: "repo", repo: Repo.of("Acme", "Widgets"), muted: true },
    });
    expect(read("notify repo=acme/widgets on")).toMatchObject({ change: { kind: "repo", muted: false } });
  });

  it("refuses anything else, saying what it takes", () => {
    for (const text of [
      "notify maybe",
      "notify on off",
      "notify repo=acme/widgets",
      "notify repo=acme/widgets mute",
      "notify off repo=acme/widgets",
      "notify events=",
      "notify events=queue extra",
    ]) {
      expect(refusal(text).code, text).toBe(CommandErrorCode.InvalidArgument);
    }
    expect(refusal("notify events=queue,spam").details).toMatchObject({ argument: "events" });
    expect(refusal("notify repo=not-a-repo off").details).toMatchObject({ argument: "repository" });
  });
});

describe("/mq notify preferences", () => {
  it("shows the defaults without writing them: queue events, on, nothing muted", async () => {
    const { ports: p, table } = ports();
    const result = await notify.execute({ name: "notify", change: { kind: "show" } }, alice, p);
    expect(result).toMatchObject({ enabled: true, groups: ["queue"], muted: [] });
    expect(table.puts).toBe(0);
  });

  it("turns off, chooses groups and mutes one repository, keeping the rest", async () => {
    const { ports: p, table } = ports();
    await notify.execute({ name: "notify", change: { kind: "enabled", enabled: false } }, alice, p);
    await notify.execute(
      { name: "notify", change: { kind: "events", groups: ["queue", "pause"] } },
      alice,
      p,
    );
    await notify.execute({ name: "notify", change: { kind: "repo", repo: widgets, muted: true } }, alice, p);
    // Muting the same repository again (another spelling) keeps one entry.
    const result = await notify.execute(
      { name: "notify", change: { kind: "repo", repo: Repo.of("ACME", "widgets"), muted: true } },
      alice,
      p,
    );
    expect(result).toMatchObject({ enabled: false, groups: ["queue", "pause"], muted: ["ACME/widgets"] });
    expect(table.stored).toMatchObject({ teamId: "T1", slackUserId: "U1", enabled: false });
    const unmuted = await notify.execute(
      { name: "notify", change: { kind: "repo", repo: widgets, muted: false } },
      alice,
      p,
    );
    expect(unmuted.muted).toEqual([]);
    const words = notify.describe(unmuted, {
      surface: "slack",
      now: new Date(),
      githubWebUrl: "https://github.com",
      commands: [],
      error: () => () => "",
    });
    expect(words.summary(mrkdwnFormat())).toContain("is no longer muted");
    expect(words.summary(mrkdwnFormat())).toContain("Direct messages are *off*");
  });

  it("lets a notice through only when on, of a wanted group, about a repository not muted", () => {
    const prefs: NoticePreferences = {
      teamId: "T1",
      slackUserId: "U1",
      enabled: true,
      groups: ["queue"],
      mutedRepositories: [Repo.of("acme", "gadgets")],
      updatedAt: new Date(),
    };
    expect(noticeWanted(prefs, widgets, "queue")).toBe(true);
    expect(noticeWanted(prefs, widgets, "checks")).toBe(false);
    expect(noticeWanted(prefs, Repo.of("Acme", "Gadgets"), "queue")).toBe(false);
    expect(noticeWanted({ ...prefs, enabled: false }, widgets, "queue")).toBe(false);
  });
});
