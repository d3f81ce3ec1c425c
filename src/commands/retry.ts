import type { FlakeShieldSetting } from "../core/records.js";
import type { Repo } from "../repo.js";
import type { Description, Part, Text } from "../wording/description.js";
import { clip, formatTime } from "../wording/words.js";
import { defineCommand } from "./command.js";
import { CommandError, CommandErrorCode } from "./errors.js";
import { unexpected } from "./grammar/arguments.js";
import { repoArgument } from "./grammar/targets.js";

/** `retry on|off`: the flake shield of a repository (docs/notifications.md, "The flake shield"). */
export interface RetryCommand {
  name: "retry";
  repo: Repo;
  enabled: boolean;
}

export interface RetryResult {
  name: "retry";
  repo: Repo;
  enabled: boolean;
  /** Whether it was on before. */
  was: boolean;
  /** False when no channel subscribes to the repository: the shield hears nothing of its queue. */
  heard: boolean;
}

/** The one word after the repository: on or off (any case). */
function setting(words: readonly string[]): boolean {
  const [word, ...extra] = words;
  if (word === undefined)
    throw new CommandError(CommandErrorCode.MissingArgument, { command: "retry", argument: "on or off" });
  unexpected("retry", extra);
  const value = word.toLowerCase();
  if (value === "on" || value === "off") return value === "on";
  throw new CommandError(CommandErrorCode.InvalidArgument, {
    command: "retry",
    argument: "setting",
    limit: "on or off",
  });
}

/** What the shield does, in one clause. */
const WHAT =
  "a pull request that leaves the merge queue for a check that also failed for two other pull requests within the hour is queued again, once";

/**
 * retry: turns a repository's flake shield on or off. Off by default; the shield itself is src/shield.
 */
export const retry = defineCommand<RetryCommand, RetryResult>({
  name: "retry",
  summary:
    "turn the flake shield on or off: a pull request removed for a check failing for everyone is queued again once",
  permission: "write",
  needsLink: true,
  changes: true,
  grammar: {
    github: {
      usage: "retry on|off",
      read: ({ words }, place) => ({ name: "retry", repo: place.repo, enabled: setting(words) }),
    },
    slack: {
      usage: "retry [repo] on|off",
      read: ({ words }, place) => {
        const { repo, rest } = repoArgument("retry", words, place);
        return { name: "retry", repo, enabled: setting(rest) };
      },
    },
  },
  async execute(command, actor, ports) {
    const shield = ports.flakeShield;
    if (!shield) {
      throw new CommandError(CommandErrorCode.Unavailable, {
        command: "retry",
        detail: "the flake shield needs Slack (the notices it acts on) and the GitHub App",
      });
    }
    const before = await shield.set({
      repository: command.repo,
      enabled: command.enabled,
      changedBy: actor.githubLogin ?? actor.display,
      surface: actor.surface,
      changedAt: ports.now?.() ?? new Date(),
    });
    const heard = command.enabled ? await shield.heard(command.repo).catch(() => true) : true;
    return {
      name: "retry",
      repo: command.repo,
      enabled: command.enabled,
      was: before?.enabled === true,
      heard,
    };
  },
  describe(result, { by }): Description {
    const headline: Text = (f) => {
      const repo = f.code(result.repo.fullName);
      const state = result.enabled ? "on" : "off";
      if (result.enabled === result.was) return `🛡️ The flake shield was already ${state} for ${repo}.`;
      const what = result.enabled
        ? `: ${WHAT}`
        : ": a pull request removed for a failed check stays out until someone queues it again";
      return by
        ? `🛡️ ${by} turned the flake shield ${state} for ${repo}${what}.`
        : `🛡️ The flake shield is now ${state} for ${repo}${what}.`;
    };
    const parts: Part[] = [{ kind: "sentence", text: headline }];
    const warning: Text = (f) =>
      `⚠️ No channel subscribes to ${f.code(result.repo.fullName)}: the shield acts on the removals Yardmaster hears, so subscribe a channel to it (${f.code("/mq subscribe")}).`;
    if (!result.heard) parts.push({ kind: "sentence", text: warning });
    return {
      parts,
      summary: (f) => `${headline(f)}${result.heard ? "" : ` ${warning(f)}`}`,
    };
  },
});

/** "🛡️ Flake shield on (turned on by alice, 2026-11-20 09:12 UTC): …", as `status` shows it. */
export function shieldNote(setting: FlakeShieldSetting): Part {
  return {
    kind: "note",
    texts: [
      (f) =>
        `🛡️ Flake shield on (turned on by ${f.escape(clip(setting.changedBy, 100))}, ${formatTime(setting.changedAt.toISOString())}): ${WHAT}.`,
    ],
  };
}
