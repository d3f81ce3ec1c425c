import type { Logger } from "../logger.js";
import { slackLookupClient } from "./names.js";

/**
 * A Slack user's time zone as their profile sets it (`users.info`'s `tz`, an IANA name such as
 * "Europe/Paris"; bot token scope `users:read`): a timed pause's `until 18:00` typed without a zone is
 * read in it. Never throws and never waits long: null when Slack does not say within a few seconds.
 */
export function slackTimeZoneFromWebApi(options: {
  token: string;
  apiUrl: string;
  logger: Logger;
  timeoutMs?: number;
}): (user: { teamId: string; userId: string }) => Promise<string | null> {
  const client = slackLookupClient(options.token, options.apiUrl, options.timeoutMs ?? 3_000);
  return async ({ userId }) => {
    try {
      const { user } = await client.users.info({ user: userId });
      return typeof user?.tz === "string" && user.tz ? user.tz : null;
    } catch (error) {
      options.logger.warn({ err: error, user: userId }, "could not read a Slack user's time zone; using UTC");
      return null;
    }
  };
}
