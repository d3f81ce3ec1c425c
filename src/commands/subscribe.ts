import type { Repo } from "../repo.js";
import { branchName } from "./arguments.js";
import { defineCommand, slackAccount } from "./command.js";
import { sentence, type TextFormat } from "./description.js";
import { CommandError, CommandErrorCode } from "./errors.js";
import { clip } from "./present.js";
import { repoArgument } from "./targets.js";

/** Event groups a subscription can ask for (docs/notifications.md). */
export const EVENT_GROUPS = ["queue", "checks", "bisection", "pause"] as const;
export type EventGroup = (typeof EVENT_GROUPS)[number];
export const DEFAULT_EVENT_GROUPS: EventGroup[] = ["queue", "pause"];

export interface SubscribeCommand {
  name: "subscribe";
  repo: Repo;
  branchGlob?: string;
  groups: EventGroup[];
}

export interface SubscribeResult {
  name: "subscribe";
  repo: Repo;
  branchGlob: string | null;
  groups: string[];
  /** False when the channel's subscription to the repository was updated instead. */
  created: boolean;
}

/** subscribe: posts a repository's merge-queue events in this Slack channel. */
export const subscribe = defineCommand<SubscribeCommand, SubscribeResult>({
  name: "subscribe",
  summary: "post this repository's merge-queue events in this channel",
  permission: "read",
  needsLink: true,
  changes: true,
  grammar: {
    slack: {
      usage: "subscribe <repo> [branch=<glob>] [events=<group,...>]",
      read: ({ words }, place) => {
        const { repo, rest } = repoArgument("subscribe", words, place, true);
        let branchGlob: string | undefined;
        let groups: EventGroup[] = DEFAULT_EVENT_GROUPS;
        for (const option of rest) {
          const [key, value = ""] = option.split(/=(.*)/s, 2) as [string, string?];
          if (key === "branch" && value) branchGlob = branchName("subscribe", value);
          else if (key === "events" && value) groups = eventGroups(value);
          else {
            throw new CommandError(CommandErrorCode.InvalidArgument, {
              command: "subscribe",
              argument: "option",
              limit: "branch=<glob> or events=<group,...>",
            });
          }
        }
        return branchGlob
          ? { name: "subscribe", repo, branchGlob, groups }
          : { name: "subscribe", repo, groups };
      },
    },
  },
  async execute(command, actor, ports) {
    const { slack, account } = slackAccount(actor, ports, "subscribe");
    const branchGlob = command.branchGlob ?? null;
    const { created } = await account.store.putSubscription({
      channelId: slack.channelId,
      teamId: slack.teamId,
      repository: command.repo,
      branchGlob,
      groups: command.groups,
      createdBy: actor.githubLogin ?? slack.userId,
      createdAt: ports.now?.() ?? new Date(),
    });
    return { name: "subscribe", repo: command.repo, branchGlob, groups: command.groups, created };
  },
  describe: ({ repo, branchGlob, groups, created }, { by }) =>
    sentence((f) => {
      const name = f.code(repo.fullName);
      const who = by
        ? created
          ? `${by} subscribed this channel to ${name}`
          : `${by} updated this channel's subscription to ${name}`
        : created
          ? `This channel is now subscribed to ${name}`
          : `This channel's subscription to ${name} is updated`;
      return `🔔 ${who}: ${subscriptionScope(f, groups, branchGlob)}.`;
    }),
});

/** "`queue`, `pause` events on branches matching `release/*`" */
export function subscriptionScope(
  f: TextFormat,
  groups: readonly string[],
  branchGlob: string | null,
): string {
  const events = groups.length ? `${groups.map((g) => f.code(clip(g, 50))).join(", ")} events` : "no events";
  return `${events} ${branchGlob ? `on branches matching ${f.code(clip(branchGlob, 255))}` : "on every branch"}`;
}

function eventGroups(value: string): EventGroup[] {
  const groups = value.split(",").filter(Boolean);
  const unknown = groups.filter((g) => !(EVENT_GROUPS as readonly string[]).includes(g));
  if (unknown.length || groups.length === 0) {
    throw new CommandError(CommandErrorCode.InvalidArgument, {
      command: "subscribe",
      argument: "events",
      limit: `a comma-separated list of ${EVENT_GROUPS.join(", ")}`,
    });
  }
  return [...new Set(groups)] as EventGroup[];
}
