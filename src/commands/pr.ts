import { type EntryChecks, estimatedAt } from "../core/merge-queue.js";
import type { Repo } from "../repo.js";
import { pullInQueue } from "../use-cases/pull-queue.js";
import type { Part, Text, TextFormat } from "../wording/description.js";
import { clip, formatEta, formatTime, moreOnGitHub, pullUrl } from "../wording/words.js";
import { defineCommand } from "./command.js";
import { describeGitHubPr } from "./github-queue.js";
import { unexpected } from "./grammar/arguments.js";
import { pullArgument } from "./grammar/targets.js";
import { type QueueState, queuePlace } from "./queue-state.js";

export interface PrCommand {
  name: "pr";
  repo: Repo;
  pull: number;
}

export interface PrResult {
  name: "pr";
  repo: Repo;
  pull: number;
  /** Whether its queue reports batches and named queues (`can.batches`); without, its branch's queue. */
  batches: boolean;
  /** The base branch, whose queue was read, when it was read to choose the queue. */
  branch?: string;
  queue: QueueState;
}

/** pr: one pull request's place in the merge queue, with its CI state and checks. */
export const pr = defineCommand<PrCommand, PrResult>({
  name: "pr",
  summary: "show a pull request's place in the merge queue",
  permission: "none",
  needsLink: false,
  changes: false,
  grammar: {
    slack: {
      usage: "pr <pr>",
      read: ({ words }, place) => {
        const { repo, pull, rest } = pullArgument("pr", words, place);
        unexpected("pr", rest);
        return { name: "pr", repo, pull };
      },
    },
  },
  async execute(command, _actor, ports) {
    const { repo, pull } = command;
    const read = await pullInQueue(ports, repo, pull, "pr");
    const queue: QueueState = read.entry ? { state: "queued", entry: read.entry } : { state: "not_queued" };
    const branch = read.branch ? { branch: read.branch } : {};
    return { name: "pr", repo, pull, batches: read.can.batches, ...branch, queue };
  },
  describe(result, context) {
    const { repo, pull } = result;
    const link = (f: TextFormat) =>
      `${f.link(pullUrl(context.githubWebUrl, repo, pull), `#${pull}`)} of ${f.code(repo.fullName)}`;
    const { queue } = result;
    if (!result.batches && queue.state !== "unknown") {
      const entry = queue.state === "queued" ? queue.entry : null;
      return describeGitHubPr({ branch: result.branch, entry }, context, link);
    }
    const headline: Text = (f) => {
      const pr = link(f);
      if (queue.state === "queued") return `📍 ${pr} is ${queuePlace(f, queue.entry, context.now)}.`;
      if (queue.state === "not_queued") return `${pr} is not in any merge queue.`;
      return `⚠️ The merge-queue state of ${pr} could not be read: ${context.error(queue.error)(f)}`;
    };
    const parts: Part[] = [{ kind: "sentence", text: headline }];
    const check = queue.state === "queued" ? queue.entry.checks : null;
    if (queue.state === "queued") {
      const d = queue.entry;
      const field = (label: string, value: Text): [string, Text] => [label, value];
      parts.push({
        kind: "fields",
        fields: [
          field("Position", () => `${d.position}`),
          field("Queue", (f) => f.code(clip(d.queue ?? "", 100))),
          field("ETA", () => formatEta(estimatedAt(d.estimate, context.now), context.now)),
          field("Queued", () => formatTime(d.enteredAt)),
          field("Priority rule", (f) => f.code(clip(d.priority ?? "", 100))),
          ...(check ? [field("CI", (f) => ciState(f, check))] : []),
          ...(d.checksTimeoutAt ? [field("Checks time out", () => formatTime(d.checksTimeoutAt))] : []),
        ],
      });
      if (check?.checks.length) {
        parts.push({
          kind: "list",
          name: "checks",
          heading: (f) => f.bold("Checks"),
          items: check.checks.map((c) => (f) => checkLine(f, c)),
          more: (n) => (f) => moreOnGitHub(f, context.githubWebUrl, repo, n, "check"),
        });
      }
    }
    return { parts, summary: (f) => `${headline(f)}${check ? ` CI: ${ciState(f, check)}.` : ""}` };
  },
});

const CHECK_ICONS: Record<string, string> = {
  success: "✅",
  failure: "❌",
  error: "❌",
  timed_out: "❌",
  cancelled: "⛔",
  action_required: "⚠️",
  pending: "⏳",
  neutral: "⚪",
  skipped: "⚪",
  stale: "⚪",
  failed: "❌",
};

function icon(state: string): string {
  return CHECK_ICONS[state] ?? "•";
}

const CHECK_TYPES: Record<string, string> = {
  in_place: "in place",
  draft_pr: "in draft pull request",
  trusted: "trusted",
};

function ciState(f: TextFormat, check: EntryChecks): string {
  const where = CHECK_TYPES[check.runIn] ?? f.escape(check.runIn);
  const draft = check.draftPull !== null ? ` #${check.draftPull}` : "";
  return `${icon(check.state)} ${f.escape(check.state)} (${where}${draft})`;
}

function checkLine(f: TextFormat, check: EntryChecks["checks"][number]): string {
  const url = check.url ?? "";
  const name = clip(check.name, 100);
  const label = url ? f.link(url, name) : f.bold(name);
  const description = check.description ? `: ${f.escape(clip(check.description, 150))}` : "";
  return `${icon(check.state)} ${label} — ${f.escape(check.state)}${description}`;
}
