import type { RespondFn } from "@slack/bolt";
import type { Command } from "../commands/catalog.js";
import type { Actor } from "../commands/command.js";
import type { CommandOutcome, RunDeps } from "../commands/run.js";
import type { Logger } from "../logger.js";

/**
 * What the listeners that run a command for a person share (forms/, shortcuts.ts, unfurls/): how commands
 * run, who the person is, and how the outcome is answered.
 */
export interface ListenerDeps {
  run: RunDeps;
  githubWebUrl: string;
  logger: Logger;
  /** Counts the work done after an acknowledgement (a graceful stop waits for it). */
  track?: <T>(work: Promise<T>) => Promise<T>;
  /** Whether a response_url is on Slack's own host (response-url.ts): a result is posted nowhere else. */
  isSlackResponseUrl(url: string): boolean;
  actorFor(teamId: string, userId: string, channelId: string, responseUrl: string): Promise<Actor>;
  /** Answers a command's outcome as the typed command's would be (slack-surface.ts). */
  answer(
    respond: RespondFn,
    command: Command | undefined,
    outcome: CommandOutcome,
    actor: Actor,
  ): Promise<void>;
}
