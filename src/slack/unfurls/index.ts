import type { App, BlockAction, ButtonAction, RespondFn } from "@slack/bolt";
import { z } from "zod";
import { readableBy } from "../../commands/cached-permission.js";
import type { Actor } from "../../commands/command.js";
import { CommandError, CommandErrorCode } from "../../commands/errors.js";
import { parseSlackCommand } from "../../commands/grammar/parse.js";
import { parseTarget } from "../../commands/grammar/targets.js";
import { refuse, runCommand } from "../../commands/run.js";
import { pullUrl } from "../../wording/words.js";
import type { UnfurlDeps } from "./deps.js";
import { readUnfurlFacts } from "./read.js";
import { renderUnfurl, type Unfurl } from "./render.js";
import { isUnfurlActionId, readUnfurlValue, UNFURL_ACTION_IDS, type UnfurlTarget } from "./values.js";

/**
 * Pull-request links unfurled with their queue state (docs/notifications.md, "Pull-request links"):
 * Slack's `link_shared` event, answered with `chat.unfurl`; the unfurl's buttons run `queue`,
 * `dequeue` (with the commands' permission checks) and refresh the unfurl in place.
 */

export type { UnfurlDeps } from "./deps.js";

/** At most this many pull requests of one message are unfurled. */
const MAX_UNFURLS = 5;

const LINK_SHARED = z.looseObject({
  event_id: z.string().min(1).max(100),
  team_id: z.string().min(1).max(40),
  event: z.looseObject({
    type: z.literal("link_shared"),
    channel: z.string().min(1).max(40),
    user: z.string().min(1).max(40),
    message_ts: z.string().min(1).max(200),
    source: z.enum(["composer", "conversations_history"]).optional(),
    unfurl_id: z.string().min(1).max(300).optional(),
    links: z.array(z.looseObject({ url: z.string().max(3000), domain: z.string().max(300) })).max(100),
  }),
});

/** The pull requests of the configured GitHub among `links`, in repositories the channel subscribed to. */
export function pullRequestLinks(
  links: readonly { url: string }[],
  subscribed: ReadonlySet<string> | "any",
  githubWebUrl: string,
): (UnfurlTarget & { url: string })[] {
  const found = new Map<string, UnfurlTarget & { url: string }>();
  for (const { url } of links) {
    let target: ReturnType<typeof parseTarget>;
    try {
      target = parseTarget("pr", url, { githubWebUrl });
    } catch {
      continue; // another host
    }
    if (!target?.repo || target.pull === undefined) continue;
    if (subscribed !== "any" && !subscribed.has(target.repo.key)) continue;
    if (!/\/pulls?\/\d/.test(url)) continue;
    const key = `${target.repo.key}#${target.pull}`;
    if (!found.has(key)) found.set(key, { repo: target.repo, pull: target.pull, url });
  }
  return [...found.values()].slice(0, MAX_UNFURLS);
}

async function unfurlsOf(
  deps: UnfurlDeps,
  targets: (UnfurlTarget & { url: string })[],
): Promise<Record<string, Unfurl>> {
  const now = deps.now();
  const unfurls: Record<string, Unfurl> = {};
  for (const target of targets) {
    const facts = await readUnfurlFacts(target, deps.run, now);
    unfurls[target.url] = renderUnfurl(facts, deps.githubWebUrl, now);
  }
  return unfurls;
}

export function registerUnfurls(app: App, deps: UnfurlDeps): void {
  const { logger } = deps;
  const tracked = (work: Promise<void>) => (deps.track ? deps.track(work) : work);

  app.event("link_shared", async ({ body }) => {
    const parsed = LINK_SHARED.safeParse(body);
    if (!parsed.success) {
      logger.warn(
        { kind: "link_shared" },
        "Slack event refused: a link_shared event without its usual fields",
      );
      return;
    }
    // Once per event_id across replicas: handleEventsOnce (events-once.ts) ran before, and a failure
    // thrown from here lets Slack's retry of the event run it again.
    await tracked(linkShared(app, deps, parsed.data));
  });

  app.action<BlockAction<ButtonAction>>(
    new RegExp(`^(${Object.values(UNFURL_ACTION_IDS).join("|").replace(/\./g, "\\.")})$`),
    async ({ ack, body, action, respond }) => {
      await ack();
      await tracked(
        unfurlClick(app, deps, body, action, respond).catch((error: unknown) =>
          logger.error({ err: error }, "unfurl button failed unexpectedly"),
        ),
      );
    },
  );
}

/** Unfurls the pull-request links of one `link_shared` event that its channel, or its writer, may see. */
async function linkShared(app: App, deps: UnfurlDeps, data: z.infer<typeof LINK_SHARED>): Promise<void> {
  const { event, team_id: teamId } = data;
  const composing = event.source === "composer" && event.unfurl_id !== undefined;
  const actor = await deps.actorFor(teamId, event.user, composing ? "" : event.channel, "");
  const targets = composing
    ? await readableWhileComposing(deps, event.links, actor)
    : pullRequestLinks(
        event.links,
        new Set(
          (await deps.store.listSubscriptions({ channelId: event.channel })).map((s) => s.repository.key),
        ),
        deps.githubWebUrl,
      );
  if (targets.length === 0) return;
  const unfurls = await unfurlsOf(deps, targets);
  const where =
    composing && event.unfurl_id
      ? { source: "composer" as const, unfurl_id: event.unfurl_id }
      : { channel: event.channel, ts: event.message_ts };
  await app.client.chat.unfurl({ ...where, unfurls });
}

/**
 * The links previewed while a message is written (docs/security.md, "Previews of pull-request links"):
 * no channel is known yet, and the conversation may be a direct message with anyone, so the preview is
 * made only for a writer whose linked GitHub login can read the repository (as GitHub's own Slack app
 * previews private content with the sharer's own access), of repositories some channel subscribed to.
 * An unlinked writer, or one who cannot read it, gets no preview.
 */
async function readableWhileComposing(
  deps: UnfurlDeps,
  links: readonly { url: string }[],
  actor: Actor,
): Promise<(UnfurlTarget & { url: string })[]> {
  const login = actor.githubLogin;
  const permission = deps.readPermission;
  if (!login || !permission) return [];
  const subscribed = new Set((await deps.store.listSubscribedRepositories()).map((r) => r.key));
  const candidates = pullRequestLinks(links, subscribed, deps.githubWebUrl);
  const readable = await readableBy(candidates, (target) => target.repo, login, permission);
  return readable.map(({ item }) => item);
}

const CLICK = z.looseObject({
  team: z.looseObject({ id: z.string().min(1).max(40) }),
  user: z.looseObject({ id: z.string().min(1).max(40) }),
  response_url: z.string().min(1).max(3000),
  container: z.looseObject({
    message_ts: z.string().min(1).max(200),
    channel_id: z.string().min(1).max(40),
    app_unfurl_url: z.string().max(3000).optional(),
  }),
});

/** Queue or Dequeue (the typed command, with its checks), then the unfurl updated in place; or Refresh. */
async function unfurlClick(
  app: App,
  deps: UnfurlDeps,
  body: BlockAction<ButtonAction>,
  action: ButtonAction,
  respond?: RespondFn,
): Promise<void> {
  const { logger } = deps;
  const click = CLICK.safeParse(body);
  if (!click.success || !respond || !isUnfurlActionId(action?.action_id)) {
    logger.warn(
      { kind: "block_actions" },
      "Slack request refused: a signed unfurl click without its usual fields",
    );
    return;
  }
  const { team, user, response_url: responseUrl, container } = click.data;
  const actor = await deps.actorFor(team.id, user.id, container.channel_id, responseUrl);
  const target = readUnfurlValue(action.value);
  if (!target) {
    const error = new CommandError(CommandErrorCode.UnreadableButton, { command: "pr", surface: "slack" });
    await deps.answer(respond, undefined, refuse(error, actor, { ...deps.run, logger }), actor);
    return;
  }
  if (action.action_id !== UNFURL_ACTION_IDS.refresh) {
    const word = action.action_id === UNFURL_ACTION_IDS.queue ? "queue" : "dequeue";
    // Exactly the typed command, with its checks: `/mq queue owner/repo#123`.
    const parsed = parseSlackCommand(`${word} ${target.repo.fullName}#${target.pull}`, {
      githubWebUrl: deps.githubWebUrl,
    });
    const outcome =
      parsed.kind === "command"
        ? await runCommand(parsed.command, actor, deps.run)
        : refuse(parsed.error, actor, { ...deps.run, logger });
    await deps.answer(respond, parsed.kind === "command" ? parsed.command : undefined, outcome, actor);
  }
  // The unfurl is updated in place: chat.unfurl again on the same message and link.
  const url = sameTarget(container.app_unfurl_url, target, deps.githubWebUrl)
    ? (container.app_unfurl_url as string)
    : pullUrl(deps.githubWebUrl, target.repo, target.pull);
  const unfurls = await unfurlsOf(deps, [{ ...target, url }]);
  await app.client.chat.unfurl({ channel: container.channel_id, ts: container.message_ts, unfurls });
}

function sameTarget(url: string | undefined, target: UnfurlTarget, githubWebUrl: string): boolean {
  if (!url) return false;
  const [found] = pullRequestLinks([{ url }], new Set([target.repo.key]), githubWebUrl);
  return found?.pull === target.pull;
}
