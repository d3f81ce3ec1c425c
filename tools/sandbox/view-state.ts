// What the page shows, read from the stand-ins and the simulator: the pull requests, one pull request's
// comment thread, the Slack channel as one person sees it, and the merge queue in brief.

import { batchStatusLabel } from "../../src/wording/words.js";
import type { Simulator } from "../simulator/index.js";
import type { GitHubStandIn, ReactionContent } from "../stand-ins/github/index.js";
import type { EphemeralMessage, SlackMessage, SlackStandIn } from "../stand-ins/slack/index.js";
import { messageKey } from "../stand-ins/slack/unfurls.js";
import {
  SANDBOX_CHANNEL,
  SANDBOX_GITHUB_QUEUE_REPOSITORY,
  SANDBOX_PEOPLE,
  SANDBOX_REPOSITORY,
  type SandboxPerson,
} from "./demo-people.js";
import { messageToHtml } from "./render/blocks.js";
import { formToHtml } from "./render/form.js";
import { markdownToHtml } from "./render/markdown.js";

export interface ViewParts {
  sim: Simulator;
  github: GitHubStandIn;
  slack: SlackStandIn;
}

/** A slash command as typed, shown back to the person who typed it (Slack shows it in the composer). */
export interface TypedCommand {
  user: string;
  text: string;
  ts: string;
}

const EMOJI: Record<ReactionContent, string> = {
  "+1": "👍",
  "-1": "👎",
  laugh: "😄",
  confused: "😕",
  heart: "❤️",
  hooray: "🎉",
  rocket: "🚀",
  eyes: "👀",
};

export function viewState(parts: ViewParts, person: SandboxPerson, pull: number, typed: TypedCommand[]) {
  return {
    as: person.login,
    people: SANDBOX_PEOPLE.map((p) => ({ login: p.login, label: p.label, role: p.role })),
    appSlug: parts.github.appSlug,
    repository: SANDBOX_REPOSITORY,
    clock: new Date(parts.sim.clock.now()).toISOString(),
    queues: queues(parts.sim),
    githubQueue: githubQueue(parts.github),
    pulls: pulls(parts),
    thread: thread(parts, pull),
    channel: channel(parts, person, typed),
    direct: direct(parts, person),
    home: home(parts, person),
    form: form(parts, person),
  };
}

/** The form (modal) open for the person: its title, buttons, fields as HTML, and errors by block_id. */
function form({ slack }: ViewParts, person: SandboxPerson) {
  const open = slack.state.views.current(person.slackUserId);
  if (!open) return null;
  const names: Names = (id) => slack.state.user(id)?.name;
  const text = (value: unknown, fallback: string) =>
    typeof value === "object" && value !== null && typeof (value as { text?: unknown }).text === "string"
      ? (value as { text: string }).text
      : fallback;
  return {
    id: open.id,
    title: text(open.view.title, "Form"),
    submit: text(open.view.submit, "Submit"),
    close: text(open.view.close, "Cancel"),
    html: formToHtml(open.view, names),
    errors: open.errors ?? {},
  };
}

/** The person's direct messages from the app (personal notices, and answers to buttons clicked there). */
function direct({ slack }: ViewParts, person: SandboxPerson) {
  const names: Names = (id) => slack.state.user(id)?.name;
  const dm = slack.state.directChannel(person.slackUserId);
  const messages = dm
    ? slack.state.messages(dm.id).map(
        (m): ChannelItem => ({
          ...fromMessage(m, names),
          replies: m.replies.map((r) => fromMessage(r, names)),
        }),
      )
    : [];
  return { id: dm?.id ?? null, messages };
}

/** The app's Home tab as last published for the person (null until they open it). */
function home({ slack }: ViewParts, person: SandboxPerson) {
  const names: Names = (id) => slack.state.user(id)?.name;
  const view = slack.state.homeView(person.slackUserId);
  return view
    ? { html: messageToHtml({ blocks: view.view.blocks }, names), publishes: view.publishes }
    : null;
}

function queues(sim: Simulator) {
  const repo = sim.state.requireRepository(SANDBOX_REPOSITORY);
  return repo.branches.map((branch) => {
    const status = sim.state.status(SANDBOX_REPOSITORY, branch);
    return {
      branch,
      paused: status.pause?.paused === true,
      pauseReason: status.pause?.reason ?? null,
      batches: status.batches.map((b) => ({
        name: b.name,
        status: batchStatusLabel(b.status.code),
        pulls: b.pull_requests.map((p) => p.number),
      })),
      waiting: status.waiting_pull_requests.map((p) => p.number),
    };
  });
}

/**
 * acme/ships' queue on GitHub's own merge queue: its entries, head first, with their merge group's checks,
 * CI's and the app's (Yardmaster's gate: `queued` while the branch is paused), null when the sandbox has
 * no such repository.
 */
function githubQueue(github: GitHubStandIn) {
  const repository = github.state.getRepository(SANDBOX_GITHUB_QUEUE_REPOSITORY);
  if (!repository) return null;
  const branch = repository.defaultBranch;
  const appRequired =
    github.mergeQueues.queueOf(repository.fullName, branch)?.configuration.appRequiredChecks ?? [];
  return {
    repository: repository.fullName,
    branch,
    entries: github.mergeQueues.entries(repository.fullName, branch).map((e) => ({
      number: e.pull.number,
      title: e.pull.title,
      state: e.state,
      checks: [
        ...e.group.checkRuns.map((r) => ({ name: r.name, status: r.status, conclusion: r.conclusion })),
        // The app's required checks (Yardmaster's gate): the latest run of each on the group's commit.
        ...appRequired.map((name) => {
          const run = github.mergeQueues.appChecks.latest(repository.fullName, e.group.headSha, name);
          return { name, status: run?.status ?? "not reported", conclusion: run?.conclusion ?? null };
        }),
      ],
    })),
  };
}

function pulls({ sim, github }: ViewParts) {
  const events = sim.state.events(SANDBOX_REPOSITORY);
  const last = new Map<number, string>();
  for (const e of events) {
    if (e.pull_request !== null && e.type.startsWith("action.queue.")) last.set(e.pull_request, e.type);
  }
  return github.state
    .pullRequests(SANDBOX_REPOSITORY)
    .sort((a, b) => a.number - b.number)
    .map((issue) => {
      const queued = sim.state.pullDetails(SANDBOX_REPOSITORY, issue.number) !== null;
      const lastEvent = last.get(issue.number);
      const where = queued
        ? "queued"
        : issue.pull?.merged || lastEvent === "action.queue.merged"
          ? "merged"
          : lastEvent === "action.queue.leave"
            ? "left"
            : "open";
      return { number: issue.number, title: issue.title, author: issue.user.login, where };
    });
}

function thread({ github }: ViewParts, number: number) {
  const issue = github.state.getIssue(SANDBOX_REPOSITORY, number);
  if (!issue) return null;
  return {
    number: issue.number,
    title: issue.title,
    author: issue.user.login,
    base: issue.pull?.baseRef ?? null,
    head: issue.pull?.headRef ?? null,
    state: issue.pull?.merged ? "merged" : issue.state,
    createdAt: issue.createdAt,
    comments: github.state.comments(SANDBOX_REPOSITORY, number).map((c) => {
      const reactions = new Map<string, string[]>();
      for (const r of github.state.reactions(c.id)) {
        reactions.set(r.content, [...(reactions.get(r.content) ?? []), r.user.login]);
      }
      return {
        id: c.id,
        author: c.user.login,
        bot: c.user.type === "Bot",
        createdAt: c.createdAt,
        edited: c.updatedAt !== c.createdAt,
        html: markdownToHtml(c.body),
        reactions: [...reactions].map(([content, users]) => ({
          content,
          emoji: EMOJI[content as ReactionContent] ?? content,
          users,
        })),
      };
    }),
  };
}

export interface ChannelItem {
  ts: string;
  /** "typed": a slash command as its author typed it, shown to them only. */
  kind: "message" | "ephemeral" | "typed";
  author: string;
  bot: boolean;
  edited: boolean;
  html: string;
  text: string;
  replies: ChannelItem[];
  /** The app's unfurls of the message's links (channel messages only). */
  unfurls?: { url: string; html: string }[];
}

type Names = (id: string) => string | undefined;

function channel({ slack }: ViewParts, person: SandboxPerson, typed: TypedCommand[]) {
  const names: Names = (id) => slack.state.user(id)?.name;
  const bot = names(slack.state.identity.botUserId) ?? "yardmaster";
  const top = slack.state.messages(SANDBOX_CHANNEL.id).map(
    (m): ChannelItem => ({
      ...fromMessage(m, names),
      replies: m.replies.map((r) => fromMessage(r, names)),
      unfurls: slack.state.unfurls
        .of(messageKey(SANDBOX_CHANNEL.id, m.ts))
        .map((u) => ({ url: u.url, html: messageToHtml({ blocks: u.blocks }, names) })),
    }),
  );
  const ephemerals = slack.state
    .ephemerals(SANDBOX_CHANNEL.id, person.slackUserId)
    .filter((e) => !e.deleted)
    .map((e) => fromEphemeral(e, bot, names));
  const echoes = typed
    .filter((t) => t.user === person.slackUserId)
    .map(
      (t): ChannelItem => ({
        ts: t.ts,
        kind: "typed",
        author: person.login,
        bot: false,
        edited: false,
        html: "",
        text: t.text,
        replies: [],
      }),
    );
  const messages = [...top, ...ephemerals, ...echoes].sort((a, b) => compareTs(a.ts, b.ts));
  return { id: SANDBOX_CHANNEL.id, name: SANDBOX_CHANNEL.name, messages };
}

function fromMessage(m: SlackMessage, names: Names): ChannelItem {
  return {
    ts: m.ts,
    kind: "message",
    author: names(m.user) ?? m.user,
    bot: m.bot_id !== undefined,
    edited: m.edited !== undefined,
    html: messageToHtml(m, names),
    text: m.text,
    replies: [],
  };
}

function fromEphemeral(e: EphemeralMessage, bot: string, names: Names): ChannelItem {
  return {
    ts: e.message_ts,
    kind: "ephemeral",
    author: bot,
    bot: true,
    edited: e.replaced === true,
    html: messageToHtml(e, names),
    text: e.text,
    replies: [],
  };
}

/** Slack timestamps compare as numbers ("1700000000.000100"). */
function compareTs(a: string, b: string): number {
  return Number(a) - Number(b) || (a < b ? -1 : a > b ? 1 : 0);
}
