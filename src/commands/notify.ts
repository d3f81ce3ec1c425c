import { EVENT_GROUPS, type EventGroup, eventGroups } from "../core/event-groups.js";
import type { NoticePreferences } from "../core/records.js";
import { Repo } from "../repo.js";
import type { Description, TextFormat } from "../wording/description.js";
import type { NotifyChange } from "../wording/notify-change.js";
import { clip } from "../wording/words.js";
import { defineCommand, slackAccount } from "./command.js";
import { CommandError, CommandErrorCode } from "./errors.js";

/** What a linked person hears about their own pull requests until they say otherwise. */
export const DEFAULT_NOTICE_GROUPS: readonly EventGroup[] = ["queue"];

/** The preferences of someone who never set any (docs/notifications.md, "Personal notices"). */
export function defaultNoticePreferences(teamId: string, slackUserId: string, now: Date): NoticePreferences {
  return {
    teamId,
    slackUserId,
    enabled: true,
    groups: [...DEFAULT_NOTICE_GROUPS],
    mutedRepositories: [],
    updatedAt: now,
  };
}

/** Whether a person's preferences let a notice of this group about this repository through. */
export function noticeWanted(preferences: NoticePreferences, repo: Repo, group: string): boolean {
  return (
    preferences.enabled &&
    preferences.groups.includes(group) &&
    !preferences.mutedRepositories.some((muted) => muted.equals(repo))
  );
}

export type { NotifyChange };

export interface NotifyCommand {
  name: "notify";
  change: NotifyChange;
}

export interface NotifyResult {
  name: "notify";
  change: NotifyChange;
  enabled: boolean;
  groups: string[];
  /** "owner/repo", as muted. */
  muted: string[];
}

const USAGE = "notify [on | off | events=<group,...> | repo=<owner/repo> on|off]";

function invalid(limit: string): CommandError {
  return new CommandError(CommandErrorCode.InvalidArgument, { command: "notify", argument: "option", limit });
}

/** Reads what follows `notify`: nothing, `on`/`off`, `events=<groups>`, or `repo=<owner/repo> on|off`. */
export function readNotify(words: readonly string[]): NotifyChange {
  const [first, second, ...rest] = words;
  if (first === undefined) return { kind: "show" };
  if (rest.length > 0) throw invalid("one of on, off, events=<group,...> or repo=<owner/repo> on|off");
  if ((first === "on" || first === "off") && second === undefined)
    return { kind: "enabled", enabled: first === "on" };
  const [key, value = ""] = first.split(/=(.*)/s, 2) as [string, string?];
  if (key === "events" && value && second === undefined)
    return { kind: "events", groups: eventGroups(value, "notify") };
  if (key === "repo" && (second === "on" || second === "off")) {
    const repo = Repo.parse(value);
    if (!repo) {
      throw new CommandError(CommandErrorCode.InvalidArgument, {
        command: "notify",
        argument: "repository",
        limit: "owner/repo",
      });
    }
    return { kind: "repo", repo, muted: second === "off" };
  }
  throw invalid("one of on, off, events=<group,...> or repo=<owner/repo> on|off");
}

function apply(preferences: NoticePreferences, change: NotifyChange, now: Date): NoticePreferences {
  switch (change.kind) {
    case "show":
      return preferences;
    case "enabled":
      return { ...preferences, enabled: change.enabled, updatedAt: now };
    case "events":
      return { ...preferences, groups: change.groups, updatedAt: now };
    case "repo": {
      const others = preferences.mutedRepositories.filter((r) => !r.equals(change.repo));
      return {
        ...preferences,
        mutedRepositories: change.muted ? [...others, change.repo] : others,
        updatedAt: now,
      };
    }
  }
}

/**
 * notify: the direct messages Yardmaster sends a linked person about their own pull requests (entered,
 * left, merged; a queue holding one paused), and the preferences that shape them.
 */
export const notify = defineCommand<NotifyCommand, NotifyResult>({
  name: "notify",
  summary: "show or change the direct messages you get about your pull requests",
  permission: "none",
  needsLink: true,
  changes: false,
  grammar: { slack: { usage: USAGE, read: ({ words }) => ({ name: "notify", change: readNotify(words) }) } },
  async execute(command, actor, ports) {
    const { slack, account } = slackAccount(actor, ports, "notify");
    const now = ports.now?.() ?? new Date();
    const stored = await account.store.getNoticePreferences(slack.teamId, slack.userId);
    const current = stored ?? defaultNoticePreferences(slack.teamId, slack.userId, now);
    const next = apply(current, command.change, now);
    if (next !== current) await account.store.putNoticePreferences(next);
    return {
      name: "notify",
      change: command.change,
      enabled: next.enabled,
      groups: next.groups,
      muted: next.mutedRepositories.map((r) => r.fullName),
    };
  },
  describe: (result) => describeNotify(result),
});

/** "`queue`, `pause` events of your pull requests", in a surface's format. */
export function noticeScope(f: TextFormat, groups: readonly string[]): string {
  return `${groups.map((g) => f.code(clip(g, 50))).join(", ")} events of your pull requests`;
}

function describeNotify(result: NotifyResult): Description {
  const { change, enabled, groups, muted } = result;
  const state = (f: TextFormat) =>
    enabled
      ? `🔔 Direct messages are ${f.bold("on")}: ${noticeScope(f, groups)}, in repositories you can read.`
      : `🔕 Direct messages are ${f.bold("off")}: ${f.code(`${f.invocation} notify on`)} to hear about your pull requests.`;
  const mutedLine = (f: TextFormat) =>
    muted.length
      ? `Muted: ${muted
          .slice(0, 20)
          .map((r) => f.code(clip(r, 141)))
          .join(", ")}${muted.length > 20 ? ` and ${muted.length - 20} more` : ""}.`
      : "No repository is muted.";
  const what = (f: TextFormat): string | null => {
    switch (change.kind) {
      case "repo":
        return change.muted
          ? `${f.code(change.repo.fullName)} is muted: no direct message about it.`
          : `${f.code(change.repo.fullName)} is no longer muted.`;
      default:
        return null;
    }
  };
  const how = (f: TextFormat) =>
    `Change with ${f.code(`${f.invocation} notify on|off`)}, ${f.code(`${f.invocation} notify events=${EVENT_GROUPS.join(",")}`)} or ${f.code(`${f.invocation} notify repo=<owner/repo> off`)}.`;
  return {
    parts: [
      ...(change.kind === "repo"
        ? [{ kind: "sentence" as const, text: (f: TextFormat) => what(f) ?? "" }]
        : []),
      { kind: "sentence", text: state },
      { kind: "note", texts: [mutedLine, how] },
    ],
    summary: (f) => [what(f), state(f), mutedLine(f)].filter(Boolean).join(" "),
  };
}
