import { sentence } from "../wording/description.js";
import { clip } from "../wording/words.js";
import { defineCommand, slackAccount } from "./command.js";
import { CommandError, CommandErrorCode } from "./errors.js";
import { alone } from "./grammar/arguments.js";

/** logout: forgets which GitHub login this Slack user is linked to. */
export const logout = defineCommand<{ name: "logout" }, { name: "logout"; login: string }>({
  name: "logout",
  summary: "forget the link to your GitHub login",
  permission: "none",
  needsLink: false,
  changes: false,
  grammar: { slack: alone("logout") },
  async execute(_command, actor, ports) {
    const { slack, account } = slackAccount(actor, ports, "logout");
    const link = await account.store.getLink(slack.teamId, slack.userId);
    if (!link) throw new CommandError(CommandErrorCode.NotLinked, { command: "logout" });
    await account.store.deleteLink(slack.teamId, slack.userId);
    return { name: "logout", login: link.githubLogin };
  },
  describe: ({ login }) =>
    sentence(
      (f) => `👋 Your Slack account is no longer linked to the GitHub login ${f.code(clip(login, 100))}.`,
    ),
});
