import { satisfies } from "../core/permission-level.js";
import type { SetupLine, SetupStatus } from "../core/setup-line.js";
import type { Text, TextFormat } from "../wording/description.js";
import { plural } from "../wording/words.js";
import { type Actor, defineCommand, slackAccount } from "./command.js";
import { CommandError, CommandErrorCode } from "./errors.js";
import { alone } from "./grammar/arguments.js";
import type { AccountStore, GitHubGateway } from "./ports.js";
import { type SetupReport, setupCounts } from "./setup-report.js";

export interface DoctorResult {
  name: "doctor";
  report: SetupReport;
}

/**
 * At most this many subscribed repositories are asked about (in order) for the person's permission:
 * an admin of a later one runs `npm run doctor` on the server instead.
 */
const MOST_ADMIN_LOOKUPS = 20;

const MARKS: Record<SetupStatus, string> = { pass: "✅", warn: "⚠️", fail: "❌", skip: "➖" };

/**
 * doctor: the setup check (`npm run doctor`) in Slack, for a linked admin: someone whose GitHub login
 * is admin of at least one subscribed repository (it names what is set up, never a secret's value).
 */
export const doctor = defineCommand<{ name: "doctor" }, DoctorResult>({
  name: "doctor",
  summary:
    "check Yardmaster's setup: GitHub App, Slack app, merge-queue token, database (admins of a subscribed repository)",
  permission: "admin",
  needsLink: true,
  changes: false,
  grammar: { slack: alone("doctor") },
  async execute(_command, actor, ports) {
    const { account } = slackAccount(actor, ports, "doctor");
    if (!ports.setup)
      throw new CommandError(CommandErrorCode.Unavailable, {
        command: "doctor",
        detail: "the setup check is not wired in",
      });
    await requireAdmin(actor, ports.github, account.store);
    return { name: "doctor", report: await ports.setup.run() };
  },
  describe({ report }) {
    const line =
      (l: SetupLine): Text =>
      (f) =>
        lineText(f, l);
    const verdict: Text = () => verdictText(report);
    return {
      parts: [
        { kind: "title", text: "Yardmaster setup check" },
        {
          kind: "list",
          name: "setup",
          items: report.lines.map(line),
          more: (n) => () => `…and ${plural(n, "more line", "more lines")}: run npm run doctor on the server`,
        },
        { kind: "sentence", text: verdict },
      ],
      summary: (f) => `${verdictText(report)}\n${report.lines.map((l) => lineText(f, l)).join("\n")}`,
    };
  },
});

/** Everything in a line may come from outside (a repository's name, GitHub's or Slack's words): escaped. */
function lineText(f: TextFormat, l: SetupLine): string {
  return `${MARKS[l.status]} ${f.bold(f.escape(l.check))}: ${f.escape(l.message)}${l.fix ? `. ${f.italic("Fix:")} ${f.escape(l.fix)}.` : ""}`;
}

function verdictText(report: SetupReport): string {
  const { fails, warns } = setupCounts(report);
  if (fails > 0)
    return `❌ ${plural(fails, "required check", "required checks")} failed${warns ? `, ${plural(warns, "warning", "warnings")}` : ""}.`;
  return warns > 0
    ? `⚠️ Ready, with ${plural(warns, "warning", "warnings")}.`
    : "✅ Ready: every check passed.";
}

/** Refuses unless the actor's GitHub login is admin of one of the first subscribed repositories. */
async function requireAdmin(actor: Actor, github: GitHubGateway, store: AccountStore): Promise<void> {
  const login = actor.githubLogin;
  if (login === null)
    throw new CommandError(CommandErrorCode.NotLinked, { command: "doctor", needed: "admin" });
  const repositories = (await store.listSubscribedRepositories()).slice(0, MOST_ADMIN_LOOKUPS);
  let failure: Error | undefined;
  for (const repo of repositories) {
    try {
      if (satisfies(await github.permission(repo, login), "admin")) return;
    } catch (error) {
      failure = error as Error;
    }
  }
  if (failure && !(failure instanceof CommandError))
    throw new CommandError(CommandErrorCode.GitHubFailed, { command: "doctor", detail: failure.message });
  if (failure) throw failure;
  throw new CommandError(CommandErrorCode.PermissionDenied, {
    command: "doctor",
    needed: "admin",
    login,
    ...(repositories.length === 0 ? { detail: "no repository is subscribed yet" } : {}),
  });
}
