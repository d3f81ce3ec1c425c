import {
  App,
  type BlockAction,
  type ButtonAction,
  HTTPReceiver,
  type RespondFn,
  type SocketModeReceiver,
} from "@slack/bolt";
import { COMMANDS, type Command } from "../commands/catalog.js";
import type { Actor, SlackPlace, Surface } from "../commands/command.js";
import { parseSlackCommand } from "../commands/parse.js";
import type { RelayFollower } from "../commands/relay-follow.js";
import { type CommandOutcome, type RunDeps, refuse, runCommand } from "../commands/run.js";
import type { Logger } from "../logger.js";
import { type Handler, pathOf } from "../server/http-server.js";
import type {
  IdentityLinkStore,
  SlackSignatureStore,
  SubscriptionStore,
  WebhookJobStore,
} from "../store/index.js";
import { ACTION_IDS, readAction } from "./actions.js";
import { boltLogger } from "./bolt-logger.js";
import { registerForms } from "./forms/index.js";
import { HomeTab, type HomeTabDeps } from "./home-tab.js";
import { registerSlackRelayAnswers, type SlackPresentation } from "./relay-answers.js";
import {
  type RenderContext,
  renderErrorMessage,
  renderResultMessage,
  renderUnexpectedMessage,
  type SlackMessage,
} from "./render-blocks.js";
import { guardSlackRequests } from "./request-verification.js";
import { registerShortcuts } from "./shortcuts.js";
import { handleEventsOnce, socketModeReceiver } from "./socket-mode.js";
import { registerUnfurls } from "./unfurls/index.js";

export const SLACK_EVENTS_PATH = "/slack/events";
/** The largest request body Slack sends (Bolt's limit); the HTTP server refuses a larger one before reading it. */
export const SLACK_MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface SlackSurfaceOptions {
  botToken: string;
  signingSecret: string;
  apiUrl: string;
  /** An app-level token (xapp-…): Socket Mode instead of the HTTP endpoint (socket-mode.ts). */
  appToken?: string;
  /** Who a Slack user is on GitHub, a channel's subscriptions, the signatures accepted; the Home tab's reads. */
  store: Pick<IdentityLinkStore, "getLink"> &
    Pick<SubscriptionStore, "listSubscriptions" | "listSubscribedRepositories"> &
    SlackSignatureStore &
    Pick<WebhookJobStore, "claimDelivery"> &
    HomeTabDeps["store"];
  run: RunDeps;
  githubWebUrl: string;
  logger: Logger;
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

const SURFACE: Surface = "slack";

const MALFORMED_COMMAND =
  "Yardmaster could not read this command (Slack sent it without some of its usual fields), so nothing was run. Try again.";

/** The named fields of a Slack payload that are not non-empty strings (Slack always sends them). */
function missingFields(payload: object, names: string[]): string[] {
  return names.filter((name) => {
    const value = (payload as Record<string, unknown>)[name];
    // `text` is sent empty when nothing follows the command.
    return typeof value !== "string" || (value === "" && name !== "text");
  });
}

function fieldOf(payload: object, name: string): string | undefined {
  const value = (payload as Record<string, unknown>)[name];
  return typeof value === "string" ? value.slice(0, 100) : undefined;
}

/**
 * The Slack surface (docs/commands.md) on Bolt's HTTPReceiver: every slash command and button is
 * acknowledged at once, then answered through `response_url`. Errors and help are ephemeral; results
 * that change something are posted in the channel and name who ran them.
 */
export function createSlackSurface(options: SlackSurfaceOptions): {
  handler: Handler;
  app: App;
  home: HomeTab | null;
  /** Socket Mode: connects (HTTP: nothing to do). */
  start(): Promise<void>;
  stop(): Promise<void>;
} {
  const { store, logger } = options;
  // Answers say times ("resumes at 18:00 UTC (in 2 h)") on the clock the commands run on.
  const now = () => options.run.now?.() ?? new Date();
  if (options.relays) {
    registerSlackRelayAnswers(options.relays, { githubWebUrl: options.githubWebUrl, logger, now });
  }
  const socket: SocketModeReceiver | null = options.appToken
    ? socketModeReceiver({
        appToken: options.appToken,
        apiUrl: options.apiUrl,
        logger,
        ...(options.retries !== undefined ? { retries: options.retries } : {}),
      })
    : null;
  const receiver =
    socket ??
    new HTTPReceiver({
      signingSecret: options.signingSecret,
      endpoints: SLACK_EVENTS_PATH,
      processBeforeResponse: false,
      bodyLimit: SLACK_MAX_BODY_BYTES,
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

  handleEventsOnce(app, store, logger);

  const home = options.home
    ? new HomeTab({
        now,
        ...options.home,
        store,
        logger,
        publish: async (user, view) => {
          await app.client.views.publish({ user_id: user, view });
        },
      })
    : null;

  // What Bolt could not process (a payload it cannot read): logged with its reason, then answered by Bolt.
  app.error(async (error) => {
    logger.warn({ err: error }, "Slack request refused: Bolt could not process it");
    throw error;
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
    const ctx: RenderContext = { now: now(), githubWebUrl: options.githubWebUrl };
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
    const relayId = "relayId" in outcome.result ? outcome.result.relayId : null;
    if (relayId && options.relays && actor.slack?.responseUrl) {
      const presentation: SlackPresentation = {
        responseUrl: actor.slack.responseUrl,
        userId: actor.slack.userId,
      };
      try {
        await options.relays.presented(relayId, presentation);
      } catch (error) {
        logger.warn({ err: error }, "could not follow the merge queue's answer to the relayed command");
      }
    }
  };

  /** Runs a command's work after its acknowledgement; never rejects, whatever the work or the answer does. */
  const safely = (respond: RespondFn, work: () => Promise<void>): void => {
    const run = async () => {
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
    };
    const running = run();
    void (options.track ? options.track(running) : running);
  };

  const forms = registerForms(app, {
    store,
    run: options.run,
    githubWebUrl: options.githubWebUrl,
    logger,
    now,
    actorFor,
    placeOf,
    answer,
    ...(options.track ? { track: options.track } : {}),
  });

  registerShortcuts(app, {
    run: options.run,
    githubWebUrl: options.githubWebUrl,
    logger,
    actorFor,
    answer,
    forms,
    ...(options.track ? { track: options.track } : {}),
  });

  app.command(/.*/, async ({ command: slash, ack, respond }) => {
    const missing = missingFields(slash, ["team_id", "user_id", "channel_id", "response_url", "text"]);
    if (missing.length > 0 || !respond) {
      logger.warn(
        { kind: "slash_command", missing, team: fieldOf(slash, "team_id"), user: fieldOf(slash, "user_id") },
        "Slack request refused: a signed slash command without the fields Slack always sends",
      );
      // Slack shows a slash command's acknowledgement to the person who typed it.
      await ack({ response_type: "ephemeral", text: MALFORMED_COMMAND });
      return;
    }
    await ack();
    safely(respond, async () => {
      // `/mq pause` without a reason and `/mq subscribe` alone open their form (forms/).
      if (await forms.openFor(slash, respond)) return;
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

  app.event("app_home_opened", async ({ event, body }) => {
    if (!home || event.tab !== "home") return;
    const work = home
      .publish(body.team_id, event.user)
      .catch((error: unknown) => logger.warn({ err: error }, "could not publish a Home tab"));
    await (options.track ? options.track(work) : work);
  });

  /** A button of the Home tab: the command runs as typed, then the tab is published with its answer on top. */
  const homeClick = async (body: BlockAction<ButtonAction>, action: ButtonAction): Promise<void> => {
    if (!home) return;
    const teamId = body.team?.id ?? body.user.team_id ?? "";
    const actor = await actorFor(teamId, body.user.id, "", "");
    const read = readAction(action.action_id, action.value ?? "");
    const outcome =
      read.kind === "refused"
        ? refuse(read.error, actor, { ...options.run, logger })
        : await runCommand(read.command, actor, options.run);
    const ctx: RenderContext = { now: now(), githubWebUrl: options.githubWebUrl };
    const answer = outcome.ok
      ? renderResultMessage(outcome.result, ctx)
      : renderErrorMessage(outcome.error, ctx);
    await home.publish(teamId, body.user.id, answer.blocks);
  };

  app.action<BlockAction<ButtonAction>>(
    new RegExp(`^(${Object.values(ACTION_IDS).join("|").replace(/\./g, "\\.")})$`),
    async ({ ack, body, action, respond }) => {
      await ack();
      if (
        body.container?.type === "view" &&
        body.view?.type === "home" &&
        typeof body.user?.id === "string"
      ) {
        const work = homeClick(body, action).catch((error: unknown) =>
          logger.error({ err: error }, "Home tab button failed unexpectedly"),
        );
        await (options.track ? options.track(work) : work);
        return;
      }
      const user = typeof body.user === "object" && body.user !== null ? body.user : undefined;
      const missing = [
        ...missingFields(body, ["response_url"]),
        ...(typeof user?.id === "string" && user.id !== "" ? [] : ["user.id"]),
        ...(typeof action?.action_id === "string" ? [] : ["actions[0].action_id"]),
      ];
      if (missing.length > 0 || !respond) {
        // A click has nowhere to be answered but its response_url: the refusal is only logged.
        logger.warn(
          { kind: "block_actions", missing, team: body.team?.id, user: user?.id },
          "Slack request refused: a signed button click without the fields Slack always sends",
        );
        return;
      }
      safely(respond, async () => {
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

  registerUnfurls(app, {
    store,
    run: options.run,
    githubWebUrl: options.githubWebUrl,
    logger,
    now,
    actorFor,
    answer,
    ...(options.track ? { track: options.track } : {}),
  });

  let connected = false;
  const lifecycle = {
    start: async () => {
      if (!socket || connected) return;
      await socket.start();
      connected = true;
    },
    stop: async () => {
      if (!socket || !connected) return;
      connected = false;
      await socket.stop();
    },
  };
  // Socket Mode: no request URL; everything arrives on the authenticated socket.
  if (socket || !(receiver instanceof HTTPReceiver))
    return { handler: async () => false, app, home, ...lifecycle };
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
  return { handler, app, home, ...lifecycle };
}
