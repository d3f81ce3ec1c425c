import type { CommandPorts } from "../app/command-ports.js";
import type { Infrastructure } from "../app/infrastructure.js";
import type { Service, Wired } from "../app/service.js";
import { nextFreezeOf } from "../commands/freeze.js";
import type { GitHubGateway, PermissionLookup } from "../commands/ports.js";
import type { SetupCheck } from "../commands/setup-report.js";
import type { RelayFollower } from "../relays/follower.js";
import type { Repo } from "../repo.js";
import type { HomeTab } from "./home/home-tab.js";
import { createSlackSurface } from "./slack-surface.js";
import { slackTimeZoneFromWebApi } from "./user-time-zone.js";

export interface SlackWiring extends Wired {
  /** The Home tab; null without Slack or without GitHub (it shows only what a person can read). */
  home: HomeTab | null;
  /**
   * The surface's own connection in Socket Mode: started once listening, and stopped first on close,
   * with the Home tab's refreshes, before the server stops taking requests.
   */
  connections: Service[];
}

export interface SlackDeps {
  infra: Pick<
    Infrastructure,
    "config" | "options" | "store" | "logger" | "urls" | "now" | "inFlight" | "owner"
  >;
  commands: CommandPorts;
  /** The commands' GitHub (src/github/wire.ts), and who may read a repository (cached). */
  github: { gateway: GitHubGateway; readPermission: PermissionLookup };
  setup: SetupCheck;
  follower: RelayFollower | null;
  /** The GitHub sign-in URL for a state (`/mq login`, src/identity), or null when identity linking is off. */
  loginUrl: ((state: string) => string) | null;
}

/** The Slack surface (src/slack): `/mq`, buttons, forms, shortcuts, unfurls, and the Home tab. */
export function wireSlack({ infra, commands, ...deps }: SlackDeps): SlackWiring {
  const { config, store, logger, urls } = infra;
  const slack = config.slack;
  if (!slack) return { home: null, connections: [] };
  const oauth = config.oauth;
  const surface = createSlackSurface({
    ...slack,
    store,
    githubWebUrl: urls.webUrl,
    logger,
    owner: infra.owner,
    track: (work) => infra.inFlight.track(work),
    ...(config.github ? { readPermission: deps.github.readPermission } : {}),
    ...(deps.follower ? { relays: deps.follower } : {}),
    run: {
      ...commands,
      github: deps.github.gateway,
      slackTimeZone: slackTimeZoneFromWebApi({ token: slack.botToken, apiUrl: slack.apiUrl, logger }),
      setup: deps.setup,
      account: { store, loginUrl: deps.loginUrl },
    },
    // The Home tab needs GitHub: it shows only the repositories a person can read.
    ...(config.github
      ? {
          home: {
            queues: commands.queues,
            permission: deps.github.readPermission,
            levels: { dequeue: config.permissions.dequeue, unpause: config.permissions.unpause },
            canLink: oauth !== null && oauth !== undefined,
            nextFreeze: async (repository: Repo) => (await nextFreezeOf(commands, repository)) ?? null,
            ...(commands.flakeShield
              ? {
                  shieldOn: async (repository: Repo) =>
                    (await commands.flakeShield?.get(repository))?.enabled === true,
                }
              : {}),
          },
        }
      : {}),
    ...(infra.options.slackBot ?? {}),
  });
  const { home } = surface;
  const connection: Service = {
    name: "slack-socket-mode",
    start: async () => {
      if (!slack.appToken) return;
      await surface.start();
      logger.info("Slack surface connected over Socket Mode (no request URL needed)");
    },
    stop: async () => {
      home?.stop();
      await surface
        .stop()
        .catch((error: unknown) => logger.warn({ err: error }, "Socket Mode did not close"));
    },
  };
  return { handlers: [surface.handler], home, connections: [connection] };
}
