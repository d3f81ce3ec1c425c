import { sentence } from "../wording/description.js";
import { clip } from "../wording/words.js";
import { defineCommand, slackAccount } from "./command.js";
import { alone } from "./grammar/arguments.js";

/** whoami: which GitHub login this Slack user is linked to, if any. */
export const whoami = defineCommand<{ name: "whoami" }, { name: "whoami"; login: string | null }>({
  name: "whoami",
  summary: "show which GitHub login you are linked to",
  permission: "none",
  needsLink: false,
  changes: false,
  grammar: { slack: alone("whoami") },
  async execute(_command, actor, ports) {
    slackAccount(actor, ports, "whoami");
    return { name: "whoami", login: actor.githubLogin };
  },
  describe: ({ login }) =>
    sentence((f) =>
      login
        ? `🪪 Your Slack account is linked to the GitHub login ${f.code(clip(login, 100))}.`
        : `🪪 Your Slack account is not linked to a GitHub login: ${f.code(`${f.invocation} login`)}.`,
    ),
});
