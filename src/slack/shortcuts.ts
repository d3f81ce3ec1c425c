import type { App, GlobalShortcut, MessageShortcut, RespondFn } from "@slack/bolt";
import { z } from "zod";
import type { Actor } from "../commands/command.js";
import { parseSlackCommand } from "../commands/grammar/parse.js";
import { refuse, runCommand } from "../commands/run.js";
import { Repo } from "../repo.js";
import { type Forms, respondOn } from "./forms/index.js";
import {
  type FormPlace,
  input,
  option,
  readPlace,
  type SubmittedValues,
  textOf,
  type View,
} from "./forms/kit.js";
import { formView } from "./forms/shell.js";
import type { ListenerDeps } from "./listener-deps.js";
import { pullRequestLinks } from "./unfurls/index.js";

/**
 * Shortcuts (docs/commands.md, "Shortcuts"): "Queue this pull request" on a message holding a
 * pull-request link runs `/mq queue` on it (asking which when there are several), and the global
 * "Pause a merge queue" opens the pause form.
 */

const SHORTCUT_IDS = {
  queue: "mq.shortcut.queue",
  pause: "mq.shortcut.pause",
  /** The form that asks which pull request of the message to queue. */
  queueWhich: "mq.form.queue-which",
} as const;

export interface ShortcutDeps extends ListenerDeps {
  forms: Forms;
}

const noLink = (host: string) =>
  `This message holds no pull-request link of ${host}, so nothing was queued. Use the shortcut on a message with a link to a pull request, or type \`/mq queue owner/repo#123\`.`;

/** At most this many pull requests of one message are offered. */
const MAX_CHOICES = 10;

const MESSAGE_SHORTCUT = z.looseObject({
  trigger_id: z.string().min(1).max(300),
  response_url: z.string().min(1).max(3000),
  team: z.looseObject({ id: z.string().min(1).max(40) }),
  user: z.looseObject({ id: z.string().min(1).max(40) }),
  channel: z.looseObject({ id: z.string().min(1).max(40) }),
  message: z.looseObject({ text: z.string().max(40_000).optional() }),
});

const GLOBAL_SHORTCUT = z.looseObject({
  trigger_id: z.string().min(1).max(300),
  team: z.looseObject({ id: z.string().min(1).max(40) }),
  user: z.looseObject({ id: z.string().min(1).max(40) }),
});

/** The links of a message's text, as Slack writes them (`<url>`, `<url|label>`) or bare. */
function linksOfText(text: string): { url: string }[] {
  const links: { url: string }[] = [];
  for (const match of text.matchAll(/<(https?:\/\/[^|>\s]+)(?:\|[^>]*)?>|(https?:\/\/[^\s<>|]+)/g)) {
    const url = match[1] ?? match[2];
    if (url) links.push({ url: url.replace(/&amp;/g, "&") });
  }
  return links;
}

export function registerShortcuts(app: App, deps: ShortcutDeps): void {
  const { logger } = deps;
  const tracked = (work: Promise<void>) => (deps.track ? deps.track(work) : work);

  const queue = async (repo: Repo, pull: number, actor: Actor, respond: RespondFn) => {
    // Exactly `/mq queue owner/repo#123`, with its checks.
    const parsed = parseSlackCommand(`queue ${repo.fullName}#${pull}`, { githubWebUrl: deps.githubWebUrl });
    const outcome =
      parsed.kind === "command"
        ? await runCommand(parsed.command, actor, deps.run)
        : refuse(parsed.error, actor, { ...deps.run, logger });
    await deps.answer(respond, parsed.kind === "command" ? parsed.command : undefined, outcome, actor);
  };

  app.shortcut<MessageShortcut>(SHORTCUT_IDS.queue, async ({ ack, body }) => {
    await ack();
    const read = MESSAGE_SHORTCUT.safeParse(body);
    if (!read.success || !deps.isSlackResponseUrl(read.data.response_url)) {
      logger.warn(
        { kind: "message_action" },
        "Slack request refused: a message shortcut without its usual fields",
      );
      return;
    }
    const { trigger_id: triggerId, response_url: responseUrl, team, user, channel, message } = read.data;
    const respond = respondOn(responseUrl);
    const targets = pullRequestLinks(linksOfText(message.text ?? ""), "any", deps.githubWebUrl);
    const work = async () => {
      if (targets.length > 1) {
        await deps.forms.open(triggerId, whichForm(targets, { channelId: channel.id, responseUrl }), respond);
        return;
      }
      const actor = await deps.actorFor(team.id, user.id, channel.id, responseUrl);
      const [target] = targets;
      if (!target) {
        await respond({
          response_type: "ephemeral",
          replace_original: false,
          text: noLink(hostOf(deps.githubWebUrl)),
        });
        return;
      }
      await queue(target.repo, target.pull, actor, respond);
    };
    await tracked(
      work().catch((error: unknown) => logger.error({ err: error }, "message shortcut failed unexpectedly")),
    );
  });

  app.view(SHORTCUT_IDS.queueWhich, async ({ ack, body, view }) => {
    const place = readPlace(view?.private_metadata, deps.isSlackResponseUrl);
    const chosen = textOf((view?.state?.values ?? {}) as SubmittedValues, "pull");
    const match = /^([^#\s]+)#(\d{1,15})$/.exec(chosen);
    const repo = match ? Repo.parse(match[1] ?? "") : null;
    const teamId = body.team?.id ?? body.user?.team_id ?? "";
    if (!place?.responseUrl || !repo || !match || typeof body.user?.id !== "string" || teamId === "") {
      await ack({ response_action: "errors", errors: { pull: "Choose one of the pull requests." } });
      return;
    }
    await ack();
    const work = async () => {
      const actor = await deps.actorFor(teamId, body.user.id, place.channelId, place.responseUrl);
      await queue(repo, Number(match[2]), actor, respondOn(place.responseUrl));
    };
    await tracked(
      work().catch((error: unknown) => logger.error({ err: error }, "queue form failed unexpectedly")),
    );
  });

  app.shortcut<GlobalShortcut>(SHORTCUT_IDS.pause, async ({ ack, body }) => {
    await ack();
    const read = GLOBAL_SHORTCUT.safeParse(body);
    if (!read.success) {
      logger.warn({ kind: "shortcut" }, "Slack request refused: a global shortcut without its usual fields");
      return;
    }
    const { trigger_id: triggerId, team, user } = read.data;
    await tracked(
      deps.forms.openPause(triggerId, { channelId: "", responseUrl: "" }, null, {
        teamId: team.id,
        userId: user.id,
      }),
    );
  });
}

/** The form that asks which of a message's pull requests to queue. */
function whichForm(targets: readonly { repo: Repo; pull: number }[], place: FormPlace): View {
  const choices = targets.slice(0, MAX_CHOICES).map((t) => {
    const name = `${t.repo.fullName}#${t.pull}`;
    return option(name, name);
  });
  return formView(
    { callbackId: SHORTCUT_IDS.queueWhich, title: "Queue a pull request", submit: "Queue" },
    place,
    [input("pull", "Which one?", { type: "static_select", action_id: "value", options: choices })],
  );
}

function hostOf(githubWebUrl: string): string {
  try {
    return new URL(githubWebUrl).host;
  } catch {
    return githubWebUrl;
  }
}
