import { type App, HTTPReceiver } from "@slack/bolt";
import type { Handler } from "../server/http-server.js";
import { handleEventsOnce, SlackEventFailed, SlackEventHeld } from "./events-once.js";
import { registerForms } from "./forms/index.js";
import { HomeTab } from "./home/home-tab.js";
import { registerSlackRelayAnswers } from "./relay-answers.js";
import { registerShortcuts } from "./shortcuts.js";
import { registerActions } from "./surface/actions.js";
import { boltApp, SLACK_EVENTS_PATH, SLACK_MAX_BODY_BYTES, slackHttpHandler } from "./surface/bolt-app.js";
import { registerEvents } from "./surface/events.js";
import { type SlackSurfaceOptions, type SurfaceKit, surfaceKit } from "./surface/kit.js";
import { registerSlashCommand } from "./surface/slash-command.js";
import { registerUnfurls } from "./unfurls/index.js";

export type { SlackSurfaceOptions };
export { SLACK_EVENTS_PATH, SLACK_MAX_BODY_BYTES };

/**
 * The Slack surface (docs/commands.md) on Bolt's HTTPReceiver: every slash command and button is
 * acknowledged at once, then answered through `response_url`. Errors and help are ephemeral; results
 * that change something are posted in the channel and name who ran them. Each kind of listener is
 * registered by its own file (surface/, forms/, shortcuts.ts, unfurls/); this only composes them.
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
  const kit = surfaceKit(options);
  if (options.relays) {
    registerSlackRelayAnswers(options.relays, { githubWebUrl: options.githubWebUrl, logger, now: kit.now });
  }
  const { app, socket, receiver } = boltApp(options);
  handleEventsOnce(app, { store, owner: options.owner, logger, over: socket ? "socket" : "http" });
  const home = options.home
    ? new HomeTab({
        now: kit.now,
        ...options.home,
        store,
        logger,
        publish: async (user, view) => {
          await app.client.views.publish({ user_id: user, view });
        },
      })
    : null;

  // What Bolt could not process (a payload it cannot read): logged with its reason, then answered by Bolt.
  // An event not handled was logged by handleEventsOnce, and is answered 5xx for Slack to retry it.
  app.error(async (error) => {
    if (!(error instanceof SlackEventFailed || error instanceof SlackEventHeld))
      logger.warn({ err: error }, "Slack request refused: Bolt could not process it");
    throw error;
  });
  registerListeners(app, kit, home);

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
  return { handler: slackHttpHandler(options, app, receiver), app, home, ...lifecycle };
}

/** Every listener, in the order Bolt matches them: forms, shortcuts, slash command, events, buttons, unfurls. */
function registerListeners(app: App, kit: SurfaceKit, home: HomeTab | null): void {
  const { options, logger, now, actorFor, placeOf, answer, isSlackResponseUrl } = kit;
  const track = options.track ? { track: options.track } : {};
  const shared = {
    run: options.run,
    githubWebUrl: options.githubWebUrl,
    logger,
    actorFor,
    answer,
    isSlackResponseUrl,
    ...track,
  };
  const readPermission = options.readPermission ? { readPermission: options.readPermission } : {};
  const forms = registerForms(app, { ...shared, store: options.store, now, placeOf, ...readPermission });
  registerShortcuts(app, { ...shared, forms });
  registerSlashCommand(app, kit, forms);
  registerEvents(app, kit, home);
  registerActions(app, kit, home);
  registerUnfurls(app, { ...shared, store: options.store, now, ...readPermission });
}
