import { randomBytes } from "node:crypto";
import type { AccountCommand, Actor } from "./command.js";
import { CommandError, CommandErrorCode } from "./errors.js";
import type { AccountStore } from "./ports.js";
import type { CommandResult } from "./result.js";

export const OAUTH_STATE_TTL_MINUTES = 10;

export interface AccountDeps {
  store: AccountStore;
  /** The GitHub sign-in URL for a state, or null when identity linking is off. */
  loginUrl: ((state: string) => string) | null;
  now?: () => Date;
}

/** Slack's subscription and identity commands (PRODUCT.md sections 3 and 5), on the store. */
export async function executeAccount(
  command: AccountCommand,
  actor: Actor,
  deps: AccountDeps,
): Promise<CommandResult> {
  const slack = actor.slack;
  if (!slack)
    throw new CommandError(CommandErrorCode.OtherSurface, { command: command.name, surface: "github" });
  const now = deps.now?.() ?? new Date();
  const { store } = deps;
  switch (command.name) {
    case "subscribe": {
      const branchGlob = command.branchGlob ?? null;
      const { created } = await store.putSubscription({
        channelId: slack.channelId,
        teamId: slack.teamId,
        repository: command.repo,
        branchGlob,
        groups: command.groups,
        createdBy: actor.githubLogin ?? slack.userId,
        createdAt: now,
      });
      return { name: "subscribe", repo: command.repo, branchGlob, groups: command.groups, created };
    }
    case "unsubscribe":
      if (!(await store.deleteSubscription(slack.channelId, command.repo))) {
        throw new CommandError(CommandErrorCode.NotSubscribed, {
          command: "unsubscribe",
          repository: command.repo.fullName,
        });
      }
      return { name: "unsubscribe", repo: command.repo };
    case "subscriptions": {
      const subscriptions = await store.listSubscriptions({ channelId: slack.channelId });
      return {
        name: "subscriptions",
        subscriptions: subscriptions.map((s) => ({
          repository: s.repository.fullName,
          branchGlob: s.branchGlob,
          groups: s.groups,
        })),
      };
    }
    case "login": {
      if (!deps.loginUrl) {
        throw new CommandError(CommandErrorCode.Unavailable, {
          command: "login",
          detail: "identity linking is not configured (GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET)",
        });
      }
      const state = randomBytes(24).toString("base64url");
      await store.createOAuthState({
        state,
        teamId: slack.teamId,
        slackUserId: slack.userId,
        channelId: slack.channelId,
        responseUrl: slack.responseUrl ?? null,
        expiresAt: new Date(now.getTime() + OAUTH_STATE_TTL_MINUTES * 60_000),
      });
      return { name: "login", url: deps.loginUrl(state), expiresInMinutes: OAUTH_STATE_TTL_MINUTES };
    }
    case "logout": {
      const link = await store.getLink(slack.teamId, slack.userId);
      if (!link) throw new CommandError(CommandErrorCode.NotLinked, { command: "logout" });
      await store.deleteLink(slack.teamId, slack.userId);
      return { name: "logout", login: link.githubLogin };
    }
    case "whoami":
      return { name: "whoami", login: actor.githubLogin };
  }
}
