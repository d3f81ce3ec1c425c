import type { RespondFn } from "@slack/bolt";
import { COMMANDS, type Command, moduleOf } from "../../commands/catalog.js";
import type { Actor, SlackPlace, Surface } from "../../commands/command.js";
import type { PermissionLookup } from "../../commands/ports.js";
import type { CommandOutcome, RunDeps } from "../../commands/run.js";
import type { Logger } from "../../logger.js";
import type { RelayFollower } from "../../relays/follower.js";
import type { IdentityLinkStore, OnceClaimStore, SubscriptionStore } from "../../store/index.js";
import type { HomeTabDeps } from "../home/home-tab.js";
import type { SlackPresentation } from "../relay-answers.js";
import {
  type RenderContext,
  renderErrorMessage,
  renderResultMessage,
  renderUnexpectedMessage,
  type SlackMessage,
} from "../render-blocks.js";
import { slackResponseUrlCheck } from "../response-url.js";

export interface SlackSurfaceOptions {
  botToken: string;
  signingSecret: string;
  apiUrl: string;
  /** An app-level token (xapp-…): Socket Mode instead of the HTTP endpoint (socket-mode.ts). */
  appToken?: string;
  /** Who a Slack user is on GitHub, a channel's subscriptions, the signatures accepted; the Home tab's reads. */
  store: Pick<IdentityLinkStore, "getLink"> &
    Pick<SubscriptionStore, "listSubscriptions" | "listSubscribedRepositories"> &
    OnceClaimStore &
    HomeTabDeps["store"];
  run: RunDeps;
  githubWebUrl: string;
  logger: Logger;
  /** This replica, as the holder of Slack events' claims (events-once.ts). */
  owner: string;
  /**
   * What a linked login may read (the commands' permission lookup, cached briefly): previews while
   * composing and the pause form's repositories (docs/security.md). Absent (no GitHub App): neither.
   */
  readPermission?: PermissionLookup;
  /** Following the merge queue's answers to relayed commands (relay-answers.ts); absent: not followed. */
  relays?: RelayFollower;
  /** Counts the work a command does after its acknowledgement (a graceful stop waits for it). */
  track?: <T>(work: Promise<T>) => Promise<T>;
  /** The Home tab's reads (it publishes through this surface's Web API client); none: no Home tab. */
  home?: Omit<HomeTabDeps, "publish" | "store" | "logger">;
  /** Tests: skip Bolt's auth.test and its retries. */
  botId?: string;
  botUserId?: string;
  retries?: number;
}

/** What every kind of listener of the Slack surface shares: who ran it, where, and how it is answered. */
export interface SurfaceKit {
  readonly options: SlackSurfaceOptions;
  readonly logger: Logger;
  /** Answers say times ("resumes at 18:00 UTC (in 2 h)") on the clock the commands run on. */
  now(): Date;
  /** Work counted for a graceful stop (options.track), or the work itself. */
  tracked<T>(work: Promise<T>): Promise<T>;
  actorFor(teamId: string, userId: string, channelId: string, responseUrl: string): Promise<Actor>;
  /** Whether a response_url is on Slack's own host (SLACK_API_URL's, or one under it). */
  isSlackResponseUrl(url: string): boolean;
  /** The repository a channel subscribed to exactly one repository may leave out. */
  placeOf(channelId: string): Promise<SlackPlace>;
  answer(
    respond: RespondFn,
    command: Command | undefined,
    outcome: CommandOutcome,
    actor: Actor,
    replaceOriginal?: boolean,
  ): Promise<void>;
  /** Runs a command's work after its acknowledgement; never rejects, whatever the work or the answer does. */
  safely(respond: RespondFn, work: () => Promise<void>): void;
}

const SURFACE: Surface = "slack";

/** The named fields of a Slack payload that are not non-empty strings (Slack always sends them). */
export function missingFields(payload: object, names: string[]): string[] {
  return names.filter((name) => {
    const value = (payload as Record<string, unknown>)[name];
    // `text` is sent empty when nothing follows the command.
    return typeof value !== "string" || (value === "" && name !== "text");
  });
}

export function fieldOf(payload: object, name: string): string | undefined {
  const value = (payload as Record<string, unknown>)[name];
  return typeof value === "string" ? value.slice(0, 100) : undefined;
}

export function surfaceKit(options: SlackSurfaceOptions): SurfaceKit {
  const { store, logger } = options;
  const now = () => options.run.now?.() ?? new Date();
  return {
    options,
    logger,
    now,
    tracked: (work) => (options.track ? options.track(work) : work),
    isSlackResponseUrl: slackResponseUrlCheck(options.apiUrl),
    async actorFor(teamId, userId, channelId, responseUrl) {
      const link = await store.getLink(teamId, userId);
      return {
        surface: SURFACE,
        githubLogin: link?.githubLogin ?? null,
        display: `<@${userId}>`,
        slack: { teamId, userId, channelId, responseUrl },
      };
    },
    async placeOf(channelId) {
      const githubWebUrl = options.githubWebUrl;
      const subscriptions = await store.listSubscriptions({ channelId });
      const repos = new Set(subscriptions.map((s) => s.repository.key));
      if (repos.size !== 1) return { githubWebUrl };
      const only = subscriptions[0];
      return only ? { defaultRepo: only.repository, githubWebUrl } : { githubWebUrl };
    },
    answer: (respond, command, outcome, actor, replaceOriginal = false) =>
      answer(options, now(), { respond, command, outcome, actor, replaceOriginal }),
    safely(respond, work) {
      const running = runSafely(logger, respond, work);
      void (options.track ? options.track(running) : running);
    },
  };
}

async function answer(
  options: SlackSurfaceOptions,
  now: Date,
  a: {
    respond: RespondFn;
    command: Command | undefined;
    outcome: CommandOutcome;
    actor: Actor;
    replaceOriginal: boolean;
  },
): Promise<void> {
  const { respond, command, outcome, actor } = a;
  const ctx: RenderContext = { now, githubWebUrl: options.githubWebUrl };
  if (!outcome.ok) {
    await respond({
      response_type: "ephemeral",
      replace_original: false,
      ...renderErrorMessage(outcome.error, ctx),
    });
    return;
  }
  // A question (let's asking to confirm) is the person's alone, though its command changes things.
  const asks = command ? moduleOf(command.name).answersPrivately?.(outcome.result) === true : false;
  const changes = command ? COMMANDS[command.name].changes && !asks : false;
  const message: SlackMessage = renderResultMessage(
    outcome.result,
    changes && actor.slack ? { ...ctx, ranBy: actor.slack.userId } : ctx,
  );
  await respond({
    response_type: changes ? "in_channel" : "ephemeral",
    replace_original: a.replaceOriginal,
    ...message,
  });
  const relayId = "relayId" in outcome.result ? outcome.result.relayId : null;
  if (relayId && options.relays && actor.slack?.responseUrl) {
    const presentation: SlackPresentation = {
      responseUrl: actor.slack.responseUrl,
      userId: actor.slack.userId,
    };
    try {
      await options.relays.presented(relayId, presentation);
    } catch (error) {
      options.logger.warn({ err: error }, "could not follow the merge queue's answer to the relayed command");
    }
  }
}

async function runSafely(logger: Logger, respond: RespondFn, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    logger.error({ err: error }, "Slack command failed unexpectedly");
    try {
      await respond({
        response_type: "ephemeral",
        replace_original: false,
        ...renderUnexpectedMessage(),
      });
    } catch (e) {
      logger.warn({ err: e }, "could not answer on response_url");
    }
  }
}
