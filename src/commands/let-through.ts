import type { LetThrough } from "../core/pause.js";
import type { Repo } from "../repo.js";
import type { Part, Text, TextFormat } from "../wording/description.js";
import { pullList as pulls } from "../wording/lists.js";
import { clip } from "../wording/words.js";
import { defineCommand } from "./command.js";
import { CommandError, CommandErrorCode } from "./errors.js";
import { pausesOf } from "./github-pause.js";
import { notOnThisQueue } from "./github-queue.js";
import { unexpected } from "./grammar/arguments.js";
import { commentPull, pullArgument, pullNumber } from "./grammar/targets.js";
import { pauser } from "./pause.js";
import { pullRequestOf } from "./pull-request.js";
import { stepsOf } from "./steps.js";

export interface LetCommand {
  name: "let";
  repo: Repo;
  pull: number;
  /** `confirm`: also when its merge group holds others ahead of it (they merge with it). */
  confirm: boolean;
}

export interface LetResult {
  name: "let";
  repo: Repo;
  pull: number;
  /** What the gate did: let it through, or asks to confirm the others its merge group holds. */
  outcome: Extract<LetThrough, { kind: "passed" | "others" }>;
}

const USAGE =
  'write "let <pull request> through", then "confirm" to let the pull requests ahead of it through too';

/** `through [confirm]` after the pull request: whether it is confirmed. */
function throughConfirm(words: readonly string[]): boolean {
  const [through, ...rest] = words;
  if (through?.toLowerCase() !== "through") {
    throw new CommandError(CommandErrorCode.InvalidArgument, {
      command: "let",
      argument: "words",
      detail: USAGE,
    });
  }
  const confirm = rest[0]?.toLowerCase() === "confirm";
  unexpected("let", rest.slice(confirm ? 1 : 0));
  return confirm;
}

/**
 * let: lets one pull request's merge group through a held GitHub merge queue (paused, draining or
 * frozen), at once when it holds that pull request alone; when it holds others ahead of it, the answer
 * names them and asks to confirm (docs/commands.md, "Letting one through").
 */
export const letThrough = defineCommand<LetCommand, LetResult>({
  name: "let",
  summary: "let one pull request's merge group through a held GitHub merge queue",
  permission: "admin",
  needsLink: true,
  changes: true,
  grammar: {
    github: {
      usage: "let [#<number>] through [confirm]",
      read: ({ words }, place) => {
        // The pull request is the one commented on, unless one is named (`let #12 through`).
        const [first] = words;
        const named = first !== undefined && first.toLowerCase() !== "through";
        const confirm = throughConfirm(named ? words.slice(1) : words);
        const pull = named ? pullNumber("let", first.replace(/^#/, "")) : commentPull("let", place);
        return { name: "let", repo: place.repo, pull, confirm };
      },
    },
    slack: {
      usage: "let <pr> through [confirm]",
      read: ({ words }, place) => {
        const { repo, pull, rest } = pullArgument("let", words, place);
        return { name: "let", repo, pull, confirm: throughConfirm(rest) };
      },
    },
  },
  async execute(command, actor, ports) {
    const { repo, pull: number } = command;
    const steps = stepsOf(ports);
    // Its base branch, read once: a run taking the command over keeps it (by then it may be merged).
    const { baseRef } = await steps.once("let.pull", async () => ({
      baseRef: (await pullRequestOf(ports, command, true)).baseRef,
    }));
    const pauses = await pausesOf(ports, "let", repo, baseRef, "letThrough");
    const target = { repo, branch: baseRef, pull: number };
    const letThroughOf = pauses.letThrough?.bind(pauses);
    if (!letThroughOf)
      return notOnThisQueue("let", repo, "its merge queue cannot let one pull request through");
    // Let through once: a run taking the command over answers with what the first run did, and does not
    // say it again (a run that died before recording it makes it again: the pause's one pass, one notice).
    const outcome = await steps.once("queue.let", () =>
      letThroughOf(target, { by: pauser(actor), confirm: command.confirm }),
    );
    if (!outcome) return notOnThisQueue("let", repo, "its merge queue cannot let one pull request through");
    if (outcome.kind === "not-queued")
      throw new CommandError(CommandErrorCode.NotInQueue, {
        command: "let",
        repository: repo.fullName,
        pull: number,
      });
    if (outcome.kind === "not-held")
      throw new CommandError(CommandErrorCode.NotPaused, {
        command: "let",
        repository: repo.fullName,
        detail: `nothing holds branch ${outcome.branch} (no pause, drain or freeze), so #${number} needs no letting through`,
      });
    return { name: "let", repo, pull: number, outcome };
  },
  answersPrivately: (result) => result.outcome.kind === "others",
  describe(result, { by, surface }) {
    return result.outcome.kind === "others"
      ? askToConfirm(result, result.outcome.others, surface)
      : letThroughSaid(result, result.outcome, by);
  },
});

function where(f: TextFormat, repo: Repo, branch: string): string {
  return `${f.code(repo.fullName)} (branch ${f.code(clip(branch, 255))})`;
}

function letThroughSaid(
  result: LetResult,
  outcome: Extract<LetThrough, { kind: "passed" }>,
  by: string | undefined,
) {
  const ahead = outcome.pulls.filter((n) => n !== result.pull);
  const text: Text = (f) => {
    const goes = by ? `${by} let #${result.pull}` : `#${result.pull} goes`;
    const withAhead = ahead.length ? `, with ${pulls(ahead)} ahead of it` : "";
    const when = outcome.passedNow
      ? "its merge group passes the gate now"
      : "its merge group passes the gate as soon as GitHub makes it";
    return `⏩ ${goes} through the held merge queue of ${where(f, result.repo, outcome.branch)}${withAhead}: ${when}. The rest stays held.`;
  };
  return { parts: [{ kind: "sentence" as const, text }], summary: text };
}

function askToConfirm(result: LetResult, others: readonly number[], surface: "github" | "slack") {
  const { repo, pull } = result;
  const text: Text = () =>
    `⏸️ #${pull}'s merge group also holds ${pulls(others)}, ahead of it in the queue: letting it through merges ${others.length === 1 ? "that one" : "them"} too. Nothing was let through yet.`;
  const how: Text = (f) =>
    surface === "github"
      ? `To let them all through, comment ${f.code(`${f.invocation} let #${pull} through confirm`)}.`
      : `To let them all through, click below or type ${f.code(`${f.invocation} let ${repo.fullName}#${pull} through confirm`)}.`;
  const parts: Part[] = [
    { kind: "sentence", text },
    { kind: "sentence", text: how },
    {
      kind: "buttons",
      buttons: [
        {
          label: `Let #${pull} through with ${pulls(others)}`,
          runs: { name: "let", repo, pull, confirm: true },
          style: "primary",
        },
      ],
    },
  ];
  return { parts, summary: (f: TextFormat) => `${text(f)} ${how(f)}` };
}
