import { randomBytes } from "node:crypto";
import { sentence } from "../wording/description.js";
import { plural } from "../wording/words.js";
import { defineCommand, slackAccount } from "./command.js";
import { CommandError, CommandErrorCode } from "./errors.js";
import { alone } from "./grammar/arguments.js";

/** How long a sign-in link stays valid. */
const OAUTH_STATE_TTL_MINUTES = 10;

export interface LoginResult {
  name: "login";
  url: string;
  expiresInMinutes: number;
}

/**
 * login: a single-use GitHub sign-in link that links this Slack user to a GitHub login, so that
 * commands can ask GitHub what that login may do (docs/permissions.md).
 */
export const login = defineCommand<{ name: "login" }, LoginResult>({
  name: "login",
  summary: "link your Slack account to your GitHub login",
  permission: "none",
  needsLink: false,
  changes: false,
  grammar: { slack: alone("login") },
  async execute(_command, actor, ports) {
    const { slack, account } = slackAccount(actor, ports, "login");
    if (!account.loginUrl) {
      throw new CommandError(CommandErrorCode.Unavailable, {
        command: "login",
        detail: "identity linking is not configured (GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET)",
      });
    }
    const state = randomBytes(24).toString("base64url");
    const now = ports.now?.() ?? new Date();
    await account.store.createOAuthState({
      state,
      teamId: slack.teamId,
      slackUserId: slack.userId,
      channelId: slack.channelId,
      responseUrl: slack.responseUrl ?? null,
      expiresAt: new Date(now.getTime() + OAUTH_STATE_TTL_MINUTES * 60_000),
    });
    return { name: "login", url: account.loginUrl(state), expiresInMinutes: OAUTH_STATE_TTL_MINUTES };
  },
  describe: ({ url, expiresInMinutes }) =>
    sentence(
      (f) =>
        `🔑 ${f.strong(f.link(url, "Sign in with GitHub"))} to link your Slack account to your GitHub login, so that Yardmaster can check your permission on a repository when a command needs it. The link is for your Slack account only and must not be passed on: whoever opens it links their GitHub login to your Slack account (so never open one someone else sent you). It expires in ${plural(expiresInMinutes, "minute")}.`,
    ),
});
