import { describe, expect, it } from "vitest";
import type { Actor } from "../../src/commands/command.js";
import { describeOutcome } from "../../src/commands/describe.js";
import { CommandErrorCode } from "../../src/commands/errors.js";
import type { AccountStore, Ports } from "../../src/commands/ports.js";
import { runCommand } from "../../src/commands/run.js";
import type { SetupReport } from "../../src/commands/setup-report.js";
import type { PermissionLevel } from "../../src/core/permission-level.js";
import { Repo } from "../../src/repo.js";
import { mrkdwnFormat } from "../../src/slack/mrkdwn.js";

const slackFormat = mrkdwnFormat();

const REPORT: SetupReport = {
  failed: false,
  lines: [{ check: "merge-queue token: acme/<!here>", status: "pass", message: "reads *the* queue" }],
};
const actor = (githubLogin: string | null): Actor => ({
  surface: "slack",
  githubLogin,
  display: "<@U1>",
  slack: { teamId: "T1", userId: "U1", channelId: "C1" },
});

function deps(subscribed: string[], levels: Record<string, PermissionLevel | Error>) {
  const asked: string[] = [];
  let ran = 0;
  const store = {
    listSubscribedRepositories: async () => subscribed.map((r) => Repo.from(r)),
  } as AccountStore;
  const ports: Ports & { permissions: Record<string, PermissionLevel> } = {
    github: {
      permission: async (repo) => {
        asked.push(repo.fullName);
        const level = levels[repo.fullName] ?? "none";
        if (level instanceof Error) throw level;
        return level;
      },
      pullRequest: async () => null,
      comment: async () => ({ id: 1, url: "" }),
      findComment: async () => null,
    },
    queues: {} as Ports["queues"],
    commandPrefix: "@mergifyio",
    account: { store, loginUrl: null },
    setup: {
      run: async () => {
        ran++;
        return REPORT;
      },
    },
    permissions: { doctor: "admin" } as Record<string, PermissionLevel>,
  };
  return { ports, asked, ran: () => ran };
}

describe("/mq doctor", () => {
  it("runs the setup check for an admin of any subscribed repository, asking until one says admin", async () => {
    const d = deps(["acme/a", "acme/b", "acme/c"], { "acme/a": "write", "acme/b": "admin" });
    const outcome = await runCommand({ name: "doctor" }, actor("ada"), d.ports as never);
    expect(outcome).toMatchObject({ ok: true, result: { name: "doctor", report: REPORT } });
    expect(d.asked).toEqual(["acme/a", "acme/b"]);
    // What came from outside is escaped: no ping, no markup of its own.
    const text = JSON.stringify(
      describeOutcome(outcome, { surface: "slack", now: new Date(), githubWebUrl: "" }).summary(slackFormat),
    );
    expect(text).not.toContain("<!here>");
    expect(text).toContain("✅");
  });

  it("refuses someone who is admin of none, and when nothing is subscribed, without running the check", async () => {
    const d = deps(["acme/a"], { "acme/a": "maintain" });
    const denied = await runCommand({ name: "doctor" }, actor("walt"), d.ports as never);
    expect(denied).toMatchObject({ ok: false, error: { code: CommandErrorCode.PermissionDenied } });
    const none = await runCommand({ name: "doctor" }, actor("walt"), deps([], {}).ports as never);
    const words = describeOutcome(none, { surface: "slack", now: new Date(), githubWebUrl: "" }).summary(
      slackFormat,
    );
    expect(words).toContain(
      "needs *admin* permission on a subscribed repository; walt has it on none (no repository is subscribed yet)",
    );
    expect(d.ran()).toBe(0);
  });

  it("says GitHub failed when a lookup failed and none said admin", async () => {
    const d = deps(["acme/a", "acme/b"], { "acme/a": new Error("502 Bad Gateway"), "acme/b": "write" });
    const outcome = await runCommand({ name: "doctor" }, actor("ada"), d.ports as never);
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: CommandErrorCode.GitHubFailed, details: { detail: "502 Bad Gateway" } },
    });
  });

  it("asks an unlinked person to link first", async () => {
    const outcome = await runCommand({ name: "doctor" }, actor(null), deps(["acme/a"], {}).ports as never);
    expect(outcome).toMatchObject({ ok: false, error: { code: CommandErrorCode.NotLinked } });
  });
});
