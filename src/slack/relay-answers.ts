import type { CommandResult } from "../commands/catalog.js";
import type { Logger } from "../logger.js";
import type { RelayFollower } from "../relays/follower.js";
import { renderResultMessage } from "./render-blocks.js";

/**
 * The merge queue's answer to a command relayed from Slack (docs/commands.md, "Following the merge
 * queue's answer"): once it comes, the result is posted again in the channel through the command's
 * `response_url` (Slack takes up to 5 answers there within 30 minutes), naming who ran it, with where
 * the pull request stands and the merge queue's words.
 */

/** Where a relay asked in Slack was answered. */
export interface SlackPresentation {
  responseUrl: string;
  userId: string;
}

export function registerSlackRelayAnswers(
  follower: RelayFollower,
  options: { githubWebUrl: string; logger: Logger; now?: () => Date },
): void {
  follower.presenters.slack = async (result, presentation) => {
    const where = presentation as SlackPresentation;
    const message = renderResultMessage(result as CommandResult, {
      now: options.now?.() ?? new Date(),
      githubWebUrl: options.githubWebUrl,
      ranBy: where.userId,
    });
    const response = await fetch(where.responseUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ response_type: "in_channel", replace_original: false, ...message }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    if (!response.ok)
      throw new Error(`Slack answered ${response.status} on the response_url: ${text.slice(0, 100)}`);
  };
}
