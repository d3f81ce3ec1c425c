import type { Repo } from "../repo.js";
import { sentence } from "../wording/description.js";
import { defineCommand, slackAccount } from "./command.js";
import { CommandError, CommandErrorCode } from "./errors.js";
import { unexpected } from "./grammar/arguments.js";
import { repoArgument } from "./grammar/targets.js";

export interface UnsubscribeCommand {
  name: "unsubscribe";
  repo: Repo;
}

/** unsubscribe: stops posting a repository's events in this Slack channel. */
export const unsubscribe = defineCommand<UnsubscribeCommand, UnsubscribeCommand>({
  name: "unsubscribe",
  summary: "stop posting this repository's events in this channel",
  permission: "none",
  needsLink: true,
  changes: true,
  grammar: {
    slack: {
      usage: "unsubscribe <repo>",
      read: ({ words }, place) => {
        const { repo, rest } = repoArgument("unsubscribe", words, place, true);
        unexpected("unsubscribe", rest);
        return { name: "unsubscribe", repo };
      },
    },
  },
  async execute(command, actor, ports) {
    const { slack, account } = slackAccount(actor, ports, "unsubscribe");
    if (!(await account.store.deleteSubscription(slack.channelId, command.repo))) {
      throw new CommandError(CommandErrorCode.NotSubscribed, {
        command: "unsubscribe",
        repository: command.repo.fullName,
      });
    }
    return { name: "unsubscribe", repo: command.repo };
  },
  describe: ({ repo }, { by }) =>
    sentence((f) =>
      by
        ? `🔕 ${by} unsubscribed this channel from ${f.code(repo.fullName)}.`
        : `🔕 This channel is no longer subscribed to ${f.code(repo.fullName)}.`,
    ),
});
