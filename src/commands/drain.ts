import type { QueuePause } from "../core/pause.js";
import type { Repo } from "../repo.js";
import type { Part, Text } from "../wording/description.js";
import { clip, plural } from "../wording/words.js";
import { defineCommand } from "./command.js";
import { branchOption, pausesOf } from "./github-pause.js";
import { notOnThisQueue } from "./github-queue.js";
import { missing, pauseReason } from "./grammar/arguments.js";
import { parseTarget } from "./grammar/targets.js";
import { keepTimedPause, pauser } from "./pause.js";
import { stepsOf } from "./steps.js";
import { unpauseButton } from "./unpause-button.js";

export interface DrainCommand {
  name: "drain";
  repo: Repo;
  reason: string;
  /** `branch=<name>`: one branch's queue; absent: the default branch's. */
  branch?: string;
}

export interface DrainResult {
  name: "drain";
  repo: Repo;
  /** The drain in force (its `drain`: how many entries were queued, and whether it is drained already). */
  pause: QueuePause;
  branch?: string;
}

function drainArguments(repo: Repo, text: string): DrainCommand {
  const { branch, rest } = branchOption("drain", text);
  return {
    name: "drain",
    repo,
    reason: pauseReason("drain", rest),
    ...(branch !== undefined ? { branch } : {}),
  };
}

/**
 * drain: lets what is queued now merge while nothing queued from now on starts; once nothing queued
 * before is left the channels hear the queue is drained, and it stays held until unpaused (docs/commands.md,
 * "Drain"). GitHub's merge queue only, through the gate; Mergify's API has none.
 */
export const drain = defineCommand<DrainCommand, DrainResult>({
  name: "drain",
  summary: "let what is queued merge, start nothing new, and hold the queue once it is empty",
  permission: "write",
  needsLink: true,
  changes: true,
  grammar: {
    github: {
      usage: "drain [branch=<name>] <reason>",
      read: ({ text }, place) => drainArguments(place.repo, text),
    },
    slack: {
      usage: "drain [repo] [branch=<name>] <reason>",
      read: ({ words, text }, place) => {
        const first = words[0] ? parseTarget("drain", words[0], place) : undefined;
        if (first?.repo && first.pull === undefined) {
          return drainArguments(first.repo, text.slice(words[0]?.length ?? 0));
        }
        if (!place.defaultRepo) return missing("drain", "repository (owner/repo)");
        return drainArguments(place.defaultRepo, text);
      },
    },
  },
  async execute(command, actor, ports) {
    const pauses = await pausesOf(ports, "drain", command.repo, command.branch, "drain");
    const drainOf = pauses.drain?.bind(pauses);
    if (!drainOf) return notOnThisQueue("drain", command.repo, "its merge queue has no drain");
    const target = { repo: command.repo, branch: command.branch ?? null };
    // The drain, once: a run taking over a drain begun and not recorded finds the queue draining for
    // this reason (its replica died after asking) and does not drain it again, nor say it again.
    const state = await stepsOf(ports).once(
      "queue.drain",
      () => drainOf(target, { reason: command.reason, by: pauser(actor) }),
      async () => {
        const current = await pauses.current(target);
        return current?.drain && current.reason === command.reason ? current : null;
      },
    );
    // As a pause of the default branch: it replaces a timed pause's end, and is attributed.
    if (command.branch === undefined) await keepTimedPause(command, actor, ports, undefined);
    return {
      name: "drain",
      repo: command.repo,
      pause: state,
      ...(command.branch !== undefined ? { branch: command.branch } : {}),
    };
  },
  describe(result, { by }) {
    const held = result.branch ?? result.pause.branch;
    const where: Text = (f) =>
      `${f.code(result.repo.fullName)}${held !== undefined ? ` (branch ${f.code(clip(held, 255))})` : ""}`;
    const reason: Text = (f) => f.escape(clip(result.pause.reason, 300));
    const headline: Text = (f) => {
      return by
        ? `⏬ ${by} is draining the merge queue of ${where(f)}: ${reason(f)}`
        : `⏬ The merge queue of ${where(f)} is draining: ${reason(f)}`;
    };
    const drain = result.pause.drain;
    const next: Text = (f) =>
      drain?.drainedAt
        ? `Nothing was queued: it is drained already, and held until ${f.code("unpause")}.`
        : `${plural(drain?.entries ?? 0, "pull request")} queued now will merge; what is queued from now on waits until ${f.code("unpause")}. The channel hears when it is drained.`;
    const said = result.pause.warning;
    const warning: Text | undefined = said ? (f) => `⚠️ ${f.escape(clip(said, 500))}` : undefined;
    const parts: Part[] = [
      { kind: "sentence", text: headline },
      { kind: "sentence", text: next },
      ...(warning ? [{ kind: "sentence" as const, text: warning }] : []),
      { kind: "buttons", buttons: [unpauseButton(result.repo, result.branch)] },
    ];
    return { parts, summary: (f) => `${headline(f)}. ${next(f)}${warning ? ` ${warning(f)}` : ""}` };
  },
});
