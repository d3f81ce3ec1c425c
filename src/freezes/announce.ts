import type { Logger } from "../logger.js";
import type { Repo } from "../repo.js";

/** How far back a channel is searched for a notice already posted (a replica died before marking its step). */
const LOOKBACK_MS = 60 * 60_000;

/**
 * Says a freeze's news in each Slack channel subscribed to the repository, once per channel: a channel
 * that fails is logged and skipped (the step is not tried again, so that the others do not hear it
 * twice), and with `find`, a channel where the notice is already (its key in the message's metadata:
 * the step's replica died before marking it done, and another took it over) is not told again. Text is
 * plain; `&`, `<` and `>` are escaped for Slack.
 */
export function slackFreezeAnnouncer(deps: {
  channels: (repository: Repo) => Promise<string[]>;
  post: (message: { channel: string; text: string; blocks: unknown[]; key: string }) => Promise<unknown>;
  find?: (channel: string, key: string, oldest: Date) => Promise<string | null>;
  logger: Logger;
  now?: () => Date;
}): (repository: Repo, text: string, key: string) => Promise<void> {
  const posted = async (channel: string, key: string) => {
    if (!deps.find) return false;
    const oldest = new Date((deps.now?.() ?? new Date()).getTime() - LOOKBACK_MS);
    // Not found, or the lookup failed: said (a notice twice rather than none).
    return (await deps.find(channel, key, oldest).catch(() => null)) !== null;
  };
  return async (repository, text, key) => {
    const escaped = text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
    const channels = [...new Set(await deps.channels(repository))];
    for (const channel of channels) {
      if (await posted(channel, key)) continue;
      await deps.post({ channel, text: escaped, blocks: [], key }).catch((error: unknown) => {
        deps.logger.warn(
          { err: error, channel, repository: repository.fullName },
          "freeze notice not posted",
        );
      });
    }
  };
}
