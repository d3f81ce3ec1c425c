// What a person does in the page, done through the stand-ins as GitHub and Slack would: a comment
// (a signed issue_comment webhook), a slash command or a message in the channel, a button click.

import type { GitHubStandIn } from "../stand-ins/github/index.js";
import type { SlackStandIn } from "../stand-ins/slack/index.js";
import { linksOf } from "../stand-ins/slack/unfurls.js";
import type { Entered } from "../stand-ins/slack/views.js";
import {
  SANDBOX_ADMIN,
  SANDBOX_CHANNEL,
  SANDBOX_GITHUB_QUEUE_REPOSITORY,
  SANDBOX_REPOSITORY,
  type SandboxPerson,
} from "./demo-people.js";
import type { TypedCommand, ViewParts } from "./view-state.js";

export class ActionError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "ActionError";
  }
}

const MAX_TEXT = 65_536;

export function requireText(value: unknown, what: string, max = MAX_TEXT): string {
  if (typeof value !== "string" || value.trim() === "") throw new ActionError(400, `${what} is empty`);
  if (value.length > max) throw new ActionError(400, `${what} is longer than ${max} characters`);
  return value;
}

export async function postComment(parts: ViewParts, person: SandboxPerson, number: unknown, body: unknown) {
  const n = Number(number);
  if (!Number.isSafeInteger(n) || !parts.github.state.getIssue(SANDBOX_REPOSITORY, n)) {
    throw new ActionError(404, `no pull request #${String(number)}`);
  }
  const text = requireText(body, "the comment");
  const { status, commentId } = await parts.github.deliverIssueComment({
    repository: SANDBOX_REPOSITORY,
    number: n,
    body: text,
    author: person.login,
  });
  return { status, commentId };
}

/**
 * `/mq ...` goes to Yardmaster as a slash command; anything else is a message of the person's in the
 * channel (nobody answers it, as in Slack), and when it holds a link of the sandbox's GitHub
 * (`githubHost`), Slack sends `link_shared` for it, so the app unfurls it.
 */
export async function sendToChannel(
  slack: SlackStandIn,
  person: SandboxPerson,
  input: unknown,
  typed: TypedCommand[],
  githubHost: string,
) {
  const text = requireText(input, "the message", 4_000).trim();
  const slash = /^(\/\S+)\s*([\s\S]*)$/.exec(text);
  if (!slash) {
    // People's messages reach the API with Slack's three entities escaped, and their links as <url>.
    const escaped = text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
    const linked = escaped.replace(/https?:\/\/(?:[^\s<>|&]|&amp;)+/g, (url) => `<${url}>`);
    const ours = linksOf(linked).filter((url) => new URL(url).host === githubHost);
    if (ours.length === 0) {
      slack.state.addMessage({ channel: SANDBOX_CHANNEL.id, user: person.slackUserId, text: linked });
      return { status: 200 };
    }
    const shared = await slack.shareLink({
      userId: person.slackUserId,
      channelId: SANDBOX_CHANNEL.id,
      text: linked,
      domains: [new URL(ours[0] ?? "").hostname],
    });
    return { status: shared.posted.status, ts: shared.ts };
  }
  const [, command = "", rest = ""] = slash;
  if (command !== "/mq") {
    throw new ActionError(400, `${command} is not a valid command. In this workspace, /mq is.`);
  }
  typed.push({ user: person.slackUserId, text, ts: slack.state.nextTs() });
  const sent = await slack.sendSlashCommand({
    command,
    text: rest,
    userId: person.slackUserId,
    channelId: SANDBOX_CHANNEL.id,
  });
  return { status: sent.status };
}

export async function clickButton(
  slack: SlackStandIn,
  person: SandboxPerson,
  input: Record<string, unknown>,
) {
  const actionId = requireText(input.actionId, "actionId", 255);
  const value = typeof input.value === "string" ? input.value : "";
  const messageTs = typeof input.messageTs === "string" && input.messageTs ? input.messageTs : undefined;
  if (input.place === "home") {
    const sent = await slack.clickHomeButton({ actionId, value, userId: person.slackUserId });
    return { status: sent.status };
  }
  if (input.place === "unfurl") {
    if (!messageTs) throw new ActionError(400, "messageTs is missing");
    const url = typeof input.url === "string" && input.url ? input.url : undefined;
    const sent = await slack
      .clickUnfurlButton({
        actionId,
        userId: person.slackUserId,
        channelId: SANDBOX_CHANNEL.id,
        messageTs,
        ...(url ? { url } : {}),
        ...(typeof input.value === "string" ? { value } : {}),
      })
      .catch((error: unknown) => {
        throw new ActionError(404, error instanceof Error ? error.message : "no such button");
      });
    return { status: sent.status };
  }
  const dm = input.place === "dm" ? slack.state.directChannel(person.slackUserId) : undefined;
  if (input.place === "dm" && !dm) throw new ActionError(404, "no direct messages yet");
  const sent = await slack.clickButton({
    actionId,
    value,
    userId: person.slackUserId,
    channelId: dm?.id ?? SANDBOX_CHANNEL.id,
    ...(messageTs ? { messageTs } : {}),
  });
  return { status: sent.status };
}

/** What the person entered in the form, by block_id: a text, a chosen value, chosen values, or Unix seconds. */
function enteredValues(input: unknown): Entered {
  if (typeof input !== "object" || input === null || Array.isArray(input))
    throw new ActionError(400, "values must be an object of the form's fields");
  const entered: Entered = {};
  for (const [key, value] of Object.entries(input)) {
    const ok =
      typeof value === "string"
        ? value.length <= 3_000
        : typeof value === "number"
          ? Number.isSafeInteger(value)
          : Array.isArray(value) && value.every((v) => typeof v === "string" && v.length <= 150);
    if (!ok) throw new ActionError(400, `the value of ${key} is not one the form takes`);
    entered[key] = value as string | string[] | number;
  }
  return entered;
}

/**
 * The person submits the form open for them (Slack sends a signed `view_submission`): the app's field
 * errors keep it open, else it closes.
 */
export async function submitForm(slack: SlackStandIn, person: SandboxPerson, input: Record<string, unknown>) {
  const viewId = requireText(input.viewId, "viewId", 255);
  if (!slack.state.views.current(person.slackUserId, viewId))
    throw new ActionError(404, "that form is closed");
  const values = enteredValues(input.values);
  const submitted = await slack.submitView({ userId: person.slackUserId, viewId, values }).catch((error) => {
    // The stand-in refuses a value the form does not offer, as Slack's client would never send one.
    throw new ActionError(400, error instanceof Error ? error.message : "not a value of the form");
  });
  return { status: submitted.status, closed: submitted.view.closed, errors: submitted.view.errors ?? {} };
}

/** The person cancels the form: Slack closes it (the app asked for no `view_closed`). */
export function closeForm(slack: SlackStandIn, person: SandboxPerson, input: Record<string, unknown>) {
  const viewId = requireText(input.viewId, "viewId", 255);
  const view = slack.state.views.current(person.slackUserId, viewId);
  if (!view) throw new ActionError(404, "that form is closed");
  view.closed = true;
  return { status: 200 };
}

/** The person opens the app's Home tab (Slack sends `app_home_opened`; the app publishes it). */
export async function openHome(slack: SlackStandIn, person: SandboxPerson) {
  const sent = await slack.openHome({ userId: person.slackUserId });
  return { status: sent.status };
}

/** The head of acme/ships' queue on GitHub's own merge queue (the GitHub stand-in's), or a 409. */
function githubQueueHead(github: GitHubStandIn) {
  const repository = github.state.requireRepository(SANDBOX_GITHUB_QUEUE_REPOSITORY);
  const head = github.mergeQueues.entries(repository.fullName, repository.defaultBranch)[0];
  if (!head) throw new ActionError(409, `${repository.fullName}'s merge queue is empty`);
  return { repository, head };
}

/**
 * CI fails the required checks of the merge group of the head of acme/ships' queue: GitHub removes it
 * (`dequeued`, reason CI_FAILURE) and makes the groups behind anew.
 */
export function failGitHubQueueHead(github: GitHubStandIn) {
  const { repository, head } = githubQueueHead(github);
  const conclusions = Object.fromEntries(head.group.checkRuns.map((r) => [r.name, "failure" as const]));
  const outcome = github.mergeQueues.completeChecks(repository.fullName, head.pull.number, conclusions);
  return { status: 200, number: head.pull.number, ...outcome };
}

/**
 * Its checks pass and GitHub merges the head of acme/ships' queue (merge group destroyed "merged", closed);
 * a 409 while Yardmaster's gate holds it (the queue is paused).
 */
export function mergeGitHubQueueHead(github: GitHubStandIn) {
  const { repository, head } = githubQueueHead(github);
  // GitHub does not merge a group whose app-reported required check (Yardmaster's gate) has not passed.
  const waiting = github.mergeQueues.appChecksNotPassed(head.group);
  if (waiting.length > 0) {
    const held = waiting.some(
      (name) =>
        github.mergeQueues.appChecks.latest(repository.fullName, head.group.headSha, name)?.status ===
        "queued",
    );
    const why = held
      ? `the queue is paused (\`/mq unpause ${repository.fullName}\`)`
      : "not reported yet, try again in a moment";
    throw new ActionError(409, `#${head.pull.number}'s merge group waits for ${waiting.join(", ")}: ${why}`);
  }
  const pending = head.group.checkRuns.filter((r) => r.status !== "completed").map((r) => r.name);
  if (pending.length) {
    github.mergeQueues.completeChecks(
      repository.fullName,
      head.pull.number,
      Object.fromEntries(pending.map((name) => [name, "success" as const])),
    );
  }
  const merged = github.mergeQueues.merge(repository.fullName, repository.defaultBranch);
  return { status: 200, number: merged?.number ?? head.pull.number };
}

/**
 * acme/ships' admin merges its first open pull request with GitHub's merge button, past the merge queue
 * (an admin's bypass; one still queued leaves the queue, ALREADY_MERGED): Yardmaster says it in the
 * channel about 30 seconds later (docs/notifications.md, "Merged outside the queue"). A 409 when none is open.
 */
export function bypassGitHubQueue(github: GitHubStandIn) {
  const repository = github.state.requireRepository(SANDBOX_GITHUB_QUEUE_REPOSITORY);
  const open = github.state
    .pullRequests(repository.fullName)
    .filter((p) => p.state === "open" && !p.pull?.merged)
    .sort((a, b) => a.number - b.number)[0];
  if (!open) throw new ActionError(409, `${repository.fullName} has no open pull request`);
  const { sha } = github.mergeDirectly(repository.fullName, open.number, SANDBOX_ADMIN);
  return { status: 200, number: open.number, by: SANDBOX_ADMIN, sha };
}
