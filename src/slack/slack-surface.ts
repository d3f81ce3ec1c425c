import { App, type BlockAction, type ButtonAction, HTTPReceiver, type RespondFn } from "@slack/bolt";
import { COMMANDS, type Command } from "../commands/catalog.js";
import type { Actor, SlackPlace, Surface } from "../commands/command.js";
import { parseSlackCommand } from "../commands/parse.js";
import { type CommandOutcome, type RunDeps, refuse, runCommand } from "../commands/run.js";
import type { Logger } from "../logger.js";
import { type Handler, pathOf } from "../server/http-server.js";
import type { Store } from "../store/index.js";
import { ACTION_IDS, readAction } from "./actions.js";
import { boltLogger } from "./bolt-logger.js";
import {
  type RenderContext,
  renderErrorMessage,
  renderResultMessage,
  renderUnexpectedMessage,
  type SlackMessage,
} from "./render-blocks.js";
import { guardSlackRequests } from "./request-verification.js";

export const SLACK_EVENTS_PATH = "/slack/events";

export interface SlackSurfaceOptions {
  botToken: string;
  signingSecret: string;
  apiUrl: string;
  store: Store;
  run: RunDeps;
  githubWebUrl: string;
  logger: Logger;
  /** Tests: skip Bolt's auth.test and its retries. */
  botId?: string;
  botUserId?: string;
  retries?: number;
}

const SURFACE: Surface = "slack";

/**
 * The Slack surface (docs/commands.md) on Bolt's HTTPReceiver: every slash command and button is
 * acknowledged at once, then answered through `response_url`. Errors and help are ephemeral; results
 * that change something are posted in the channel and name who ran them.
 */
export function createSlackSurface(options: SlackSurfaceOptions): { handler: Handler; app: App } {
  const { store, logger } = options;
  const receiver = new HTTPReceiver({
    signingSecret: options.signingSecret,
    endpoints: SLACK_EVENTS_PATH,
    processBeforeResponse: false,
    logger: boltLogger(logger),
  });
  const app = new App({
    receiver,
    token: options.botToken,
    logger: boltLogger(logger),
    clientOptions: {
      slackApiUrl: options.apiUrl,
      ...(options.retries !== undefined ? { retryConfig: { retries: options.retries } } : {}),
    },
    ...(options.botId
      ? { botId: options.botId, botUserId: options.botUserId, tokenVerificationEnabled: false }
      : {}),
  });

  const actorFor = async (
    teamId: string,
    userId: string,
    channelId: string,
    responseUrl: string,
  ): Promise<Actor> => {
    const link = await store.getLink(teamId, userId);
    return {
      surface: SURFACE,
      githubLogin: link?.githubLogin ?? null,
      display: `<@${userId}>`,
      slack: { teamId, userId, channelId, responseUrl },
    };
  };

  /** The repository a channel subscribed to exactly one repository may leave out. */
  const placeOf = async (channelId: string): Promise<SlackPlace> => {
    const githubWebUrl = options.githubWebUrl;
    const subscriptions = await store.listSubscriptions({ channelId });
    const repos = new Set(subscriptions.map((s) => s.repository.key));
    if (repos.size !== 1) return { githubWebUrl };
    const only = subscriptions[0];
    return only ? { defaultRepo: only.repository, githubWebUrl } : { githubWebUrl };
  };

  const answer = async (
    respond: RespondFn,
    command: Command | undefined,
    outcome: CommandOutcome,
    actor: Actor,
    replaceOriginal = false,
  ) => {
    const ctx: RenderContext = { now: new Date(), githubWebUrl: options.githubWebUrl };
    if (!outcome.ok) {
      await respond({
        response_type: "ephemeral",
        replace_original: false,
        ...renderErrorMessage(outcome.error, ctx),
      });
      return;
    }
    const changes = command ? COMMANDS[command.name].changes : false;
    const message: SlackMessage = renderResultMessage(
      outcome.result,
      changes && actor.slack ? { ...ctx, ranBy: actor.slack.userId } : ctx,
    );
    await respond({
      response_type: changes ? "in_channel" : "ephemeral",
      replace_original: replaceOriginal,
      ...message,
    });
  };

  const safely = async (respond: RespondFn, work: () => Promise<void>) => {
    try {
      await work();
    } catch (error) {
      logger.error({ err: error }, "Slack command failed unexpectedly");
      await respond({
        response_type: "ephemeral",
        replace_original: false,
        ...renderUnexpectedMessage(),
      }).catch((e: unknown) => logger.warn({ err: e }, "could not answer on response_url"));
    }
  };

  app.command(/.*/, async ({ command: slash, ack, respond }) => {
    await ack();
    void safely(respond, async () => {
      const actor = await actorFor(slash.team_id, slash.user_id, slash.channel_id, slash.response_url);
      const parsed = parseSlackCommand(slash.text, await placeOf(slash.channel_id));
      if (parsed.kind === "refused") {
        await answer(respond, undefined, refuse(parsed.error, actor, { ...options.run, logger }), actor);
        return;
      }
      const outcome = await runCommand(parsed.command, actor, options.run);
      await answer(respond, parsed.command, outcome, actor);
    });
  });

  app.action<BlockAction<ButtonAction>>(
    new RegExp(`^(${Object.values(ACTION_IDS).join("|").replace(/\./g, "\\.")})$`),
    async ({ ack, body, action, respond }) => {
      await ack();
      void safely(respond, async () => {
        const channelId = body.channel?.id ?? body.container?.channel_id ?? "";
        const actor = await actorFor(
          body.team?.id ?? body.user.team_id ?? "",
          body.user.id,
          channelId,
          body.response_url,
        );
        const read = readAction(action.action_id, action.value ?? "");
        if (read.kind === "refused") {
          logger.warn(
            { action: action.action_id },
            "button with a value this version did not write: refused",
          );
          await answer(respond, undefined, refuse(read.error, actor, { ...options.run, logger }), actor);
          return;
        }
        const { command } = read;
        const outcome = await runCommand(command, actor, options.run);
        // Refresh replaces the status it belongs to; the others answer like the typed command.
        await answer(respond, command, outcome, actor, action.action_id === ACTION_IDS.refresh && outcome.ok);
      });
    },
  );

  // Timestamps either way, replays across replicas and retries, before Bolt (request-verification.ts).
  const guarded = guardSlackRequests(
    {
      signingSecret: options.signingSecret,
      claim: (signature, now) => store.claimSlackSignature(signature, now),
      logger,
    },
    receiver.requestListener,
  );
  const handler: Handler = async (req, res) => {
    if (pathOf(req) !== SLACK_EVENTS_PATH) return false;
    await guarded(req, res);
    return true;
  };
  return { handler, app };
}
