import { COMMANDS, type CommandSpec } from "../commands/catalog.js";
import { EVENT_GROUPS } from "../commands/command.js";
import { describeUnexpected } from "../commands/describe-error.js";
import type { CommandError } from "../commands/errors.js";
import { DEFAULT_EVENT_GROUPS } from "../commands/parse-slack.js";
import { cut, formatTime } from "../commands/present.js";
import type { CommandResult } from "../commands/result.js";
import type { TextFormat } from "../commands/text-format.js";
import type { PauseState } from "../merge-queue/index.js";
import type { Repo } from "../repo.js";
import { mrkdwnFormat, plainFormat } from "./mrkdwn.js";
import {
  actions,
  byWhom,
  clip,
  context,
  describe,
  header,
  type KnownBlock,
  message,
  packItems,
  plural,
  type RenderContext,
  type SlackMessage,
  section,
  unpauseButton,
} from "./render-kit.js";
import { renderPullMessage, renderRelayedMessage } from "./render-pull.js";
import { renderStatusMessage } from "./render-status.js";

export type { KnownBlock, RenderContext, SlackMessage } from "./render-kit.js";

/**
 * Slack renderings of the command core's results and errors (PRODUCT.md section 3): Block Kit with a
 * plain-words `text` fallback, within Slack's limits, with everything that came from outside escaped.
 * When `ctx.ranBy` is set (results posted in the channel), the message names who ran the command.
 */
export function renderResultMessage(result: CommandResult, ctx: RenderContext): SlackMessage {
  switch (result.name) {
    case "queue":
    case "requeue":
    case "dequeue":
      return renderRelayedMessage(result, ctx);
    case "pause":
      return renderPauseMessage(result.repo, result.pause, ctx);
    case "unpause":
      return simple("unpause", ctx, (f) => {
        const by = byWhom(ctx);
        const repo = f.code(result.repo.fullName);
        return by
          ? `▶️ ${by} unpaused the merge queue of ${repo}: it is running again.`
          : `▶️ The merge queue of ${repo} is running again.`;
      });
    case "status":
      return renderStatusMessage(result.repo, result.branch, result.status, ctx);
    case "pr":
      return renderPullMessage(result.repo, result.pull, result.queue, ctx);
    case "branches":
      return renderBranchesMessage(result.repo, result.branches, ctx);
    case "help":
      return renderHelpMessage();
    case "subscribe":
      return simple("subscribe", ctx, (f) => {
        const by = byWhom(ctx);
        const repo = f.code(result.repo.fullName);
        const who = by
          ? result.created
            ? `${by} subscribed this channel to ${repo}`
            : `${by} updated this channel's subscription to ${repo}`
          : result.created
            ? `This channel is now subscribed to ${repo}`
            : `This channel's subscription to ${repo} is updated`;
        return `🔔 ${who}: ${subscriptionScope(f, result.groups, result.branchGlob)}.`;
      });
    case "unsubscribe":
      return simple("unsubscribe", ctx, (f) => {
        const by = byWhom(ctx);
        const repo = f.code(result.repo.fullName);
        return by
          ? `🔕 ${by} unsubscribed this channel from ${repo}.`
          : `🔕 This channel is no longer subscribed to ${repo}.`;
      });
    case "subscriptions":
      return renderSubscriptionsMessage(result.subscriptions, ctx);
    case "login":
      return simple("login", ctx, (f, plain) => {
        const link = f.link(result.url, "Sign in with GitHub");
        return `🔑 ${plain ? link : `*${link}*`} to link your Slack account to your GitHub login, so that Yardmaster can check your permission on a repository when a command needs it. The link is for you only and expires in ${plural(result.expiresInMinutes, "minute")}.`;
      });
    case "logout":
      return simple(
        "logout",
        ctx,
        (f) =>
          `👋 Your Slack account is no longer linked to the GitHub login ${f.code(clip(result.login, 100))}.`,
      );
    case "whoami":
      return simple("whoami", ctx, (f) =>
        result.login
          ? `🪪 Your Slack account is linked to the GitHub login ${f.code(clip(result.login, 100))}.`
          : `🪪 Your Slack account is not linked to a GitHub login: ${f.code("/mq login")}.`,
      );
  }
}

const MRKDWN = mrkdwnFormat();
const PLAIN = plainFormat();

/** One section whose sentence is also the fallback, written through each format. */
function simple(
  kind: string,
  ctx: RenderContext,
  sentence: (f: TextFormat, plain: boolean) => string,
): SlackMessage {
  return message(sentence(PLAIN, true), kind, [section(sentence(MRKDWN, false))], ctx.now);
}

function pauseSentence(f: TextFormat, repo: Repo, pause: PauseState, ctx: RenderContext): string {
  const by = byWhom(ctx);
  const name = f.code(repo.fullName);
  const reason = f.escape(clip(pause.reason || "no reason given", 300));
  return by
    ? `⏸️ ${by} paused the merge queue of ${name}: ${reason}`
    : `⏸️ Merge queue of ${name} paused: ${reason}`;
}

function renderPauseMessage(repo: Repo, pause: PauseState, ctx: RenderContext): SlackMessage {
  const since = pause.paused_at ? `since ${formatTime(pause.paused_at)}` : "";
  const blocks: KnownBlock[] = [
    section(pauseSentence(MRKDWN, repo, pause, ctx)),
    ...(since ? [context(`Paused ${since}.`)] : []),
    actions(unpauseButton(repo)),
  ];
  const text = `${pauseSentence(PLAIN, repo, pause, ctx)}${since ? ` (${since})` : ""}.`;
  return message(text, "pause", blocks, ctx.now);
}

function renderBranchesMessage(repo: Repo, branches: readonly string[], ctx: RenderContext): SlackMessage {
  const name = (f: TextFormat) => f.code(repo.fullName);
  if (!branches.length) {
    return simple("branches", ctx, (f) => `No branch of ${name(f)} has an active merge queue.`);
  }
  const { shown } = cut(branches, 100);
  const texts = packItems(
    shown.map((b) => [`• ${MRKDWN.code(clip(b, 255))}`]),
    {
      heading: `*Branches with an active merge queue* in ${name(MRKDWN)} (${branches.length})`,
      total: branches.length,
      maxSections: 5,
      moreLine: (n) => `…and ${plural(n, "more branch", "more branches")}`,
    },
  );
  const few = cut(branches, 20);
  const text = `Branches with an active merge queue in ${name(PLAIN)}: ${few.shown.map((b) => PLAIN.code(clip(b, 255))).join(", ")}${few.more ? `, and ${few.more} more` : ""}.`;
  return message(
    text,
    "branches",
    texts.map((t) => section(t)),
    ctx.now,
  );
}

function subscriptionScope(f: TextFormat, groups: readonly string[], branchGlob: string | null): string {
  const events = groups.length ? `${groups.map((g) => f.code(clip(g, 50))).join(", ")} events` : "no events";
  return `${events} ${branchGlob ? `on branches matching ${f.code(clip(branchGlob, 255))}` : "on every branch"}`;
}

function renderSubscriptionsMessage(
  subscriptions: { repository: string; branchGlob: string | null; groups: string[] }[],
  ctx: RenderContext,
): SlackMessage {
  if (!subscriptions.length) {
    return simple(
      "subscriptions",
      ctx,
      (f) =>
        `This channel has no subscriptions. Subscribe with ${f.code(`/mq ${COMMANDS.subscribe.usage.slack ?? "subscribe"}`)}.`,
    );
  }
  const line = (f: TextFormat, s: (typeof subscriptions)[number]) =>
    `${f.code(clip(s.repository, 141))}: ${subscriptionScope(f, s.groups, s.branchGlob)}`;
  const { shown } = cut(subscriptions, 50);
  const texts = packItems(
    shown.map((s) => [`• ${line(MRKDWN, s)}`]),
    {
      heading: `*Subscriptions of this channel* (${subscriptions.length})`,
      total: subscriptions.length,
      maxSections: 5,
      moreLine: (n) => `…and ${plural(n, "more subscription", "more subscriptions")}`,
    },
  );
  const few = cut(subscriptions, 20);
  const text = `This channel is subscribed to ${few.shown.map((s) => line(PLAIN, s)).join("; ")}${few.more ? `; and ${few.more} more` : ""}.`;
  return message(
    text,
    "subscriptions",
    texts.map((t) => section(t)),
    ctx.now,
  );
}

function needs(spec: CommandSpec): string {
  const parts = [
    ...(spec.needsLink ? ["a linked GitHub account"] : []),
    ...(spec.permission !== "none" ? [`${spec.permission} permission on the repository`] : []),
  ];
  return parts.join(" and ");
}

function helpLine(f: TextFormat, spec: CommandSpec, plain: boolean): string {
  const aliases = spec.aliases.length ? ` (or ${spec.aliases.map((a) => f.code(a)).join(", ")})` : "";
  const need = needs(spec);
  const usage = f.code(`${f.invocation} ${spec.usage.slack ?? spec.name}`);
  if (plain) return `${usage}${aliases}: ${spec.summary}${need ? ` (needs ${need})` : ""}.`;
  return `${usage}${aliases}: ${spec.summary}.${need ? ` _Needs ${need}._` : ""}`;
}

/** Every Slack command with its usage, summary and what it needs; ephemeral. */
export function renderHelpMessage(): SlackMessage {
  const specs = Object.values(COMMANDS).filter((c) => c.surfaces.includes("slack"));
  const f = MRKDWN;
  const texts = packItems(
    specs.map((c) => [`• ${helpLine(f, c, false)}`]),
    { maxSections: 5, moreLine: (n) => `…and ${plural(n, "more command", "more commands")}` },
  );
  const blocks: KnownBlock[] = [
    header("Yardmaster: merge-queue commands"),
    ...texts.map((t) => section(t)),
    context(
      `Targets: ${f.code("owner/repo")}, ${f.code("owner/repo#123")} or a pull-request URL. In a channel subscribed to exactly one repository, the repository may be left out.`,
      `Event groups for ${f.code("subscribe")}: ${EVENT_GROUPS.map((g) => f.code(g)).join(", ")} (by default ${DEFAULT_EVENT_GROUPS.join(" and ")}). Buttons do what their commands do, with the same checks.`,
    ),
  ];
  const text = `Yardmaster commands:\n${specs.map((c) => `• ${helpLine(PLAIN, c, true)}`).join("\n")}`;
  return message(text, "help", blocks);
}

/** An error as one sentence: 🚫 when the command was refused before anything was called, ⚠️ otherwise. */
export function renderErrorMessage(error: CommandError, ctx: RenderContext): SlackMessage {
  const mark = error.isRefusal ? "🚫" : "⚠️";
  return message(
    `${mark} ${describe(error, PLAIN)}`,
    "error",
    [section(`${mark} ${describe(error, MRKDWN)}`)],
    ctx.now,
  );
}

/** For errors that are not CommandErrors (bugs): nothing of their internals is shown. */
export function renderUnexpectedMessage(): SlackMessage {
  const text = `⚠️ ${describeUnexpected()}`;
  return message(text, "unexpected", [section(text)]);
}
