import type { MergeabilityCheck } from "../backends/mergify/index.js";
import type { Repo } from "../repo.js";
import { unexpected } from "./arguments.js";
import { defineCommand } from "./command.js";
import type { Part, Text, TextFormat } from "./description.js";
import { baseBranchOf, describeGitHubPr, type GitHubPrResult, githubQueueOf } from "./github-queue.js";
import { clip, formatEta, formatTime, moreOnGitHub, pullUrl } from "./present.js";
import { type QueueState, queuePlace, readQueueState } from "./queue-state.js";
import { pullArgument } from "./targets.js";

export interface PrCommand {
  name: "pr";
  repo: Repo;
  pull: number;
}

export interface PrResult {
  name: "pr";
  repo: Repo;
  pull: number;
  queue: QueueState;
}

/** pr: one pull request's place in the merge queue, with its CI state and checks. */
export const pr = defineCommand<PrCommand, PrResult | GitHubPrResult>({
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
    let branch: string | undefined;
    const baseBranch = baseBranchOf(ports, command.repo, command.pull);
    const github = await githubQueueOf(ports, command.repo, async () => {
      branch = await baseBranch();
      return branch;
    });
    if (github) {
      const entry = await github.entry(command.repo, command.pull);
      return {
        name: "pr",
        repo: command.repo,
        pull: command.pull,
        github: { branch: branch ?? (await baseBranch()), entry },
      };
    }
    const queue = await readQueueState(ports.mergeQueue, command.repo, command.pull, "pr", true);
    return { name: "pr", repo: command.repo, pull: command.pull, queue };
  },
  describe(result, context) {
    const { repo, pull } = result;
    const link = (f: TextFormat) =>
      `${f.link(pullUrl(context.githubWebUrl, repo, pull), `#${pull}`)} of ${f.code(repo.fullName)}`;
    if (!("queue" in result)) return describeGitHubPr(result, context, link);
    const { queue } = result;
    const headline: Text = (f) => {
      const pr = link(f);
      if (queue.state === "queued") return `📍 ${pr} is ${queuePlace(f, queue.details, context.now)}.`;
      if (queue.state === "not_queued") return `${pr} is not in any merge queue.`;
      return `⚠️ The merge-queue state of ${pr} could not be read: ${context.error(queue.error)(f)}`;
    };
    const parts: Part[] = [{ kind: "sentence", text: headline }];
    const check = queue.state === "queued" ? queue.details.mergeability_check : null;
    if (queue.state === "queued") {
      const d = queue.details;
      const field = (label: string, value: Text): [string, Text] => [label, value];
      parts.push({
        kind: "fields",
        fields: [
          field("Position", () => `${d.position + 1}`),
          field("Queue", (f) => f.code(clip(d.queue_rule_name, 100))),
          field("ETA", () => formatEta(d.estimated_time_of_merge, context.now)),
          field("Queued", () => formatTime(d.queued_at)),
          field("Priority rule", (f) => f.code(clip(d.priority_rule_name, 100))),
          ...(check ? [field("CI", (f) => ciState(f, check))] : []),
          ...(d.checks_timeout_at ? [field("Checks time out", () => formatTime(d.checks_timeout_at))] : []),
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

function ciState(f: TextFormat, check: MergeabilityCheck): string {
  const where = CHECK_TYPES[check.check_type] ?? f.escape(check.check_type);
  const draft = check.check_type === "draft_pr" ? ` #${check.queue_pull_request_number}` : "";
  return `${icon(check.ci_state)} ${f.escape(check.ci_state)} (${where}${draft})`;
}

function checkLine(f: TextFormat, check: MergeabilityCheck["checks"][number]): string {
  const url = check.url ?? check.details_url ?? "";
  const name = clip(check.name, 100);
  const label = url ? f.link(url, name) : f.bold(name);
  const description = check.description ? `: ${f.escape(clip(check.description, 150))}` : "";
  return `${icon(check.state)} ${label} — ${f.escape(check.state)}${description}`;
}
