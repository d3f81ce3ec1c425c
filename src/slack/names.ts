import { webApi } from "@slack/bolt";
import type { Logger } from "../logger.js";

/** How a Slack user and their workspace are named to a person; ids when Slack does not say. */
export interface SlackNames {
  /** "@alice" (the display name, else the user name), or the user id. */
  user: string;
  /** The workspace's name, or the team id. */
  team: string;
}

/**
 * A Web API client for lookups a person is waiting on: tried once, given up after `timeoutMs` (the
 * caller shows an id, or UTC, instead).
 */
export function slackLookupClient(token: string, apiUrl: string, timeoutMs: number): webApi.WebClient {
  return new webApi.WebClient(token, {
    slackApiUrl: apiUrl,
    retryConfig: { retries: 0 },
    timeout: timeoutMs,
    logLevel: webApi.LogLevel.ERROR,
  });
}

export type SlackNamesLookup = (teamId: string, userId: string) => Promise<SlackNames>;

/**
 * Asks Slack's Web API (`users.info`, `team.info`, with the bot token: scopes `users:read` and
 * `team:read`) what the user and the workspace are called. Never throws and never waits long: a name
 * Slack does not give in a few seconds is replaced by its id.
 */
export function slackNamesFromWebApi(options: {
  token: string;
  apiUrl: string;
  logger: Logger;
  timeoutMs?: number;
}): SlackNamesLookup {
  const client = slackLookupClient(options.token, options.apiUrl, options.timeoutMs ?? 5_000);
  const nameOr = async (id: string, lookup: () => Promise<string | undefined>) => {
    try {
      const name = (await lookup())?.trim();
      return name ? name : id;
    } catch (error) {
      options.logger.warn({ err: error, id }, "could not read a name from Slack; showing the id");
      return id;
    }
  };
  return async (teamId, userId) => {
    const [user, team] = await Promise.all([
      nameOr(userId, async () => {
        const { user } = await client.users.info({ user: userId });
        const name = user?.profile?.display_name || user?.name;
        return name ? `@${name}` : undefined;
      }),
      nameOr(teamId, async () => (await client.team.info({ team: teamId })).team?.name),
    ]);
    return { user, team };
  };
}
