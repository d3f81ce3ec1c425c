import { DEFAULT_EVENT_GROUPS, type EventGroup, eventGroups } from "../core/event-groups.js";
import type { Repo } from "../repo.js";
import { sentence, type TextFormat } from "../wording/description.js";
import { clip } from "../wording/words.js";
import { defineCommand, slackAccount } from "./command.js";
import { CommandError, CommandErrorCode } from "./errors.js";
import { branchName } from "./grammar/arguments.js";
import { repoArgument } from "./grammar/targets.js";

export interface SubscribeCommand {
  name: "subscribe";
  repo: Repo;
  branchGlob?: string;
  groups: EventGroup[];
  /** A weekly digest of the queue's health (`digest=weekly`); `digest=off` or left out: none. */
  digest?: "weekly";
}

export interface SubscribeResult {
  name: "subscribe";
  repo: Repo;
  branchGlob: string | null;
  groups: string[];
  /** Whether a weekly digest was asked for. */
  digest?: boolean;
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
      usage: "subscribe <repo> [branch=<glob>] [events=<group,...>] [digest=weekly]",
      read: ({ words }, place) => {
        const { repo, rest } = repoArgument("subscribe", words, place, true);
        let branchGlob: string | undefined;
        let groups: EventGroup[] = DEFAULT_EVENT_GROUPS;
        let digest = false;
        for (const option of rest) {
          const [key, value = ""] = option.split(/=(.*)/s, 2) as [string, string?];
          if (key === "branch" && value) branchGlob = branchName("subscribe", value);
          else if (key === "events" && value) groups = eventGroups(value, "subscribe");
          else if (key === "digest" && (value === "weekly" || value === "off")) digest = value === "weekly";
          else {
            throw new CommandError(CommandErrorCode.InvalidArgument, {
              command: "subscribe",
              argument: "option",
              limit: "branch=<glob>, events=<group,...> or digest=weekly|off",
            });
          }
        }
        return {
          name: "subscribe",
          repo,
          ...(branchGlob ? { branchGlob } : {}),
          groups,
          ...(digest ? { digest: "weekly" as const } : {}),
        };
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
      ...(command.digest ? { digest: { cadence: command.digest } } : {}),
    });
    const digest = command.digest === "weekly";
    return { name: "subscribe", repo: command.repo, branchGlob, groups: command.groups, digest, created };
  },
  describe: ({ repo, branchGlob, groups, digest, created }, { by }) =>
    sentence((f) => {
      const name = f.code(repo.fullName);
      const who = by
        ? created
          ? `${by} subscribed this channel to ${name}`
          : `${by} updated this channel's subscription to ${name}`
        : created
          ? `This channel is now subscribed to ${name}`
          : `This channel's subscription to ${name} is updated`;
      return `🔔 ${who}: ${subscriptionScope(f, groups, branchGlob, digest)}.`;
    }),
});

/** "`queue`, `pause` events on branches matching `release/*`, and a weekly digest on Monday at 09:00" */
export function subscriptionScope(
  f: TextFormat,
  groups: readonly string[],
  branchGlob: string | null,
  digest = false,
): string {
  const events = groups.length ? `${groups.map((g) => f.code(clip(g, 50))).join(", ")} events` : "no events";
  const branches = branchGlob ? `on branches matching ${f.code(clip(branchGlob, 255))}` : "on every branch";
  return `${events} ${branches}${digest ? ", and a weekly digest of the queue's health on Monday at 09:00" : ""}`;
}
