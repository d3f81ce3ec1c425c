import type { Logger } from "../logger.js";
import type { Repo } from "../repo.js";

/**
 * Says a freeze's news in each Slack channel subscribed to the repository, once per channel: a channel
 * that fails is logged and skipped (the step is not tried again, so that the others do not hear it
 * twice). Text is plain; `&`, `<` and `>` are escaped for Slack.
 */
export function slackFreezeAnnouncer(deps: {
  channels: (repository: Repo) => Promise<string[]>;
  post: (message: { channel: string; text: string; blocks: unknown[]; key: string }) => Promise<unknown>;
  logger: Logger;
}): (repository: Repo, text: string, key: string) => Promise<void> {
  return async (repository, text, key) => {
    const escaped = text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
    const channels = [...new Set(await deps.channels(repository))];
    for (const channel of channels) {
      await deps.post({ channel, text: escaped, blocks: [], key }).catch((error: unknown) => {
        deps.logger.warn(
          { err: error, channel, repository: repository.fullName },
          "freeze notice not posted",
        );
      });
    }
  };
}
