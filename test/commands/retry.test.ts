import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { COMMANDS, type CommandName } from "../../src/commands/catalog.js";
import type { Actor, CommentPlace, SlackPlace } from "../../src/commands/command.js";
import { describeOutcome } from "../../src/commands/describe.js";
import { CommandErrorCode } from "../../src/commands/errors.js";
import { parseGitHubComment, parseSlackCommand } from "../../src/commands/grammar/parse.js";
import type { FlakeShieldPorts, GitHubGateway } from "../../src/commands/ports.js";
import { type RunDeps, runCommand } from "../../src/commands/run.js";
import type { PermissionLevel } from "../../src/core/permission-level.js";
import { Repo } from "../../src/repo.js";
import { openStore, type Store } from "../../src/store/index.js";
import type { TextFormat } from "../../src/wording/description.js";

// `retry on|off` (src/commands/retry.ts): its grammar on both surfaces, its permission, what it keeps in
// the store and how it reads.

const widgets = Repo.of("acme", "widgets");
const anywhere: SlackPlace = { githubWebUrl: "https://github.com" };
const subscribed: SlackPlace = { defaultRepo: widgets, githubWebUrl: "https://github.com" };
const onPull: CommentPlace = { repo: widgets, number: 42, isPullRequest: true };
const onIssue: CommentPlace = { repo: widgets, number: 7, isPullRequest: false };

const slack = (text: string, place: SlackPlace = anywhere) => parseSlackCommand(text, place);
const github = (body: string, place: CommentPlace = onPull) => parseGitHubComment(body, "yardmaster", place);
const refusalCode = (parsed: ReturnType<typeof slack> | ReturnType<typeof github>) =>
  parsed.kind === "refused" ? parsed.error.code : `not refused (${parsed.kind})`;

describe("retry's grammar", () => {
  it("reads on and off for a repository in Slack, or the channel's own", () => {
    expect(slack("retry acme/widgets on")).toMatchObject({
      kind: "command",
      command: { name: "retry", repo: widgets, enabled: true },
    });
    expect(slack("retry https://github.com/acme/widgets OFF")).toMatchObject({
      command: { name: "retry", repo: widgets, enabled: false },
    });
    expect(slack("retry on", subscribed)).toMatchObject({
      command: { name: "retry", repo: widgets, enabled: true },
    });
  });

  it("reads on and off on a pull request or an issue, for its repository", () => {
    expect(github("@yardmaster retry on")).toMatchObject({
      kind: "command",
      command: { name: "retry", repo: widgets, enabled: true },
      typed: "retry on",
    });
    expect(github("@yardmaster retry Off", onIssue)).toMatchObject({
      command: { name: "retry", repo: widgets, enabled: false },
    });
  });

  it("refuses anything but one on or off, before anything is called", () => {
    expect(refusalCode(slack("retry acme/widgets"))).toBe(CommandErrorCode.MissingArgument);
    expect(refusalCode(slack("retry acme/widgets maybe"))).toBe(CommandErrorCode.InvalidArgument);
    expect(refusalCode(slack("retry acme/widgets on now"))).toBe(CommandErrorCode.UnexpectedArgument);
    expect(refusalCode(slack("retry on"))).toBe(CommandErrorCode.MissingArgument);
    expect(refusalCode(slack("retry acme/widgets#4 on"))).toBe(CommandErrorCode.InvalidArgument);
    expect(refusalCode(github("@yardmaster retry"))).toBe(CommandErrorCode.MissingArgument);
    expect(refusalCode(github("@yardmaster retry yes"))).toBe(CommandErrorCode.InvalidArgument);
    expect(refusalCode(github("@yardmaster retry on off"))).toBe(CommandErrorCode.UnexpectedArgument);
  });

  it("needs write permission, as pause does, and a linked account in Slack", () => {
    expect(COMMANDS.retry).toMatchObject({ permission: "write", needsLink: true, changes: true });
    expect(COMMANDS.retry.permission).toBe(COMMANDS.pause.permission);
  });
});

const TEXT: TextFormat = {
  escape: (t) => t,
  code: (t) => `\`${t}\``,
  bold: (t) => `*${t}*`,
  italic: (t) => `_${t}_`,
  strong: (m) => `*${m}*`,
  link: (_url, label) => label,
  invocation: "/mq",
};

describe("retry, run", () => {
  let store: Store;
  let level: PermissionLevel;
  let subscriptions: number;
  beforeEach(async () => {
    store = await openStore({ kind: "sqlite", path: ":memory:" });
    level = "write";
    subscriptions = 1;
  });
  afterEach(async () => {
    await store.close();
  });

  const alice: Actor = { surface: "slack", githubLogin: "alice", display: "<@U1>" };
  const now = new Date("2026-03-02T10:00:00Z");
  const gateway: GitHubGateway = {
    permission: async () => level,
    pullRequest: async () => null,
    comment: async () => ({ id: 1, url: "" }),
    findComment: async () => null,
  };
  const shield = (): FlakeShieldPorts => ({
    get: (repo) => store.getFlakeShield(repo),
    set: (setting) => store.putFlakeShield(setting),
    figures: async () => ({ on: false, requeued: 0, merged: 0 }),
    heard: async () => subscriptions > 0,
  });
  const deps = (withShield = true): RunDeps => ({
    github: gateway,
    queues: { for: async () => Promise.reject(new Error("not used")), relaying: null },
    commandPrefix: "@mergifyio",
    permissions: Object.fromEntries(Object.values(COMMANDS).map((c) => [c.name, c.permission])) as Record<
      CommandName,
      PermissionLevel
    >,
    ...(withShield ? { flakeShield: shield() } : {}),
    now: () => now,
  });
  const said = (outcome: Awaited<ReturnType<typeof runCommand>>) =>
    describeOutcome(outcome, {
      surface: "slack",
      now,
      githubWebUrl: "https://github.com",
      by: "<@U1>",
    }).summary(TEXT);

  it("turns the shield on and off, keeping who did it, and says so", async () => {
    const on = await runCommand({ name: "retry", repo: widgets, enabled: true }, alice, deps());
    expect(on.ok).toBe(true);
    expect(said(on)).toBe(
      "🛡️ <@U1> turned the flake shield on for `acme/widgets`: a pull request that leaves the merge queue for a check that also failed for two other pull requests within the hour is queued again, once.",
    );
    expect(await store.getFlakeShield(widgets)).toEqual({
      repository: widgets,
      enabled: true,
      changedBy: "alice",
      surface: "slack",
      changedAt: now,
    });
    const again = await runCommand({ name: "retry", repo: widgets, enabled: true }, alice, deps());
    expect(said(again)).toBe("🛡️ The flake shield was already on for `acme/widgets`.");
    const off = await runCommand({ name: "retry", repo: widgets, enabled: false }, alice, deps());
    expect(said(off)).toMatch(/^🛡️ <@U1> turned the flake shield off for `acme\/widgets`: /);
    expect((await store.getFlakeShield(widgets))?.enabled).toBe(false);
  });

  it("warns when no channel subscribes to the repository: the shield would hear nothing", async () => {
    subscriptions = 0;
    const on = await runCommand({ name: "retry", repo: widgets, enabled: true }, alice, deps());
    expect(said(on)).toContain("⚠️ No channel subscribes to `acme/widgets`");
  });

  it("refuses a reader, and changes nothing", async () => {
    level = "read";
    const refused = await runCommand({ name: "retry", repo: widgets, enabled: true }, alice, deps());
    expect(refused).toMatchObject({ ok: false, error: { code: CommandErrorCode.PermissionDenied } });
    expect(await store.getFlakeShield(widgets)).toBeNull();
  });

  it("says plainly where the shield cannot act (no Slack or no GitHub App)", async () => {
    const outcome = await runCommand({ name: "retry", repo: widgets, enabled: true }, alice, deps(false));
    expect(outcome).toMatchObject({ ok: false, error: { code: CommandErrorCode.Unavailable } });
    expect(said(outcome)).toContain("the flake shield needs Slack");
  });
});
