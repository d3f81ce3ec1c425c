import type { Logger } from "../logger.js";
import type { Repo } from "../repo.js";
import type { ChatMessage } from "../wording/message.js";

/** How far back a channel is searched for a notice already posted (a replica died before marking its step). */
const LOOKBACK_MS = 60 * 60_000;

/**
 * Says a freeze's news in each channel subscribed to the repository, once per channel: a channel
 * that fails is logged and skipped (the step is not tried again, so that the others do not hear it
 * twice), and with `find`, a channel where the notice is already (its key in the message's metadata:
 * the step's replica died before marking it done, and another took it over) is not told again. The
 * notice is its text alone, shown as it is (a `plain` span: the chat surface makes only its own syntax
 * inert; src/slack/chat-posters.ts lays it out and posts it).
 */
export function freezeAnnouncer(deps: {
  channels: (repository: Repo) => Promise<string[]>;
  post: (notice: { channel: string; message: ChatMessage; key: string }) => Promise<unknown>;
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
    const message: ChatMessage = { summary: { plain: text } };
    const channels = [...new Set(await deps.channels(repository))];
    for (const channel of channels) {
      if (await posted(channel, key)) continue;
      await deps.post({ channel, message, key }).catch((error: unknown) => {
        deps.logger.warn(
          { err: error, channel, repository: repository.fullName },
          "freeze notice not posted",
        );
      });
    }
  };
}
