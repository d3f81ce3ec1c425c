import { splitExcept } from "../core/exemptions.js";
import type { QueuePause } from "../core/pause.js";
import type { PauseAttribution } from "../core/records.js";
import type { Repo } from "../repo.js";
import { recordPauseChange } from "../use-cases/pause.js";
import type { Text } from "../wording/description.js";
import { clip, formatTime, resumesText } from "../wording/words.js";
import { type Actor, defineCommand } from "./command.js";
import { CommandError, CommandErrorCode } from "./errors.js";
import { branchOption, pausesOf } from "./github-pause.js";
import { exceptText } from "./github-queue.js";
import { missing, pauseReason } from "./grammar/arguments.js";
import { type ResumeSpec, resumeInstant, splitResume, userZone } from "./grammar/resume-time.js";
import { parseTarget } from "./grammar/targets.js";
import type { Ports } from "./ports.js";
import { stepsOf } from "./steps.js";
import { unpauseButton } from "./unpause-button.js";

export interface PauseCommand {
  name: "pause";
  repo: Repo;
  reason: string;
  /** A timed pause: when it ends (`for <duration>`, `until <time>`). */
  resume?: ResumeSpec;
  /** `branch=<name>`: one branch's queue (GitHub's merge queue); absent: the default branch's. */
  branch?: string;
  /** `except label:<name> …`: labels whose pull requests pass (GitHub's merge queue); absent: none. */
  except?: string[];
}

export interface PauseResult {
  name: "pause";
  repo: Repo;
  pause: QueuePause;
  /** The branch named (GitHub's merge queue). */
  branch?: string;
  /** A timed pause: when it ends, reckoned at `now`, and the zone its time was read in. */
  resumes?: { at: Date; now: Date; zone: string };
}

/**
 * The reason, the timed pause's end and the exemptions, as typed after the command (or after its
 * repository): `[branch=<name>] <reason> [for … | until …] [except label:<name> …]`.
 */
function pauseArguments(repo: Repo, text: string): PauseCommand {
  const { branch, rest: afterBranch } = branchOption("pause", text);
  const { rest, labels } = splitExcept("pause", afterBranch);
  const { reason, resume } = splitResume("pause", rest);
  if (branch !== undefined && resume) {
    throw new CommandError(CommandErrorCode.InvalidArgument, {
      command: "pause",
      argument: "resume time",
      detail:
        "a timed pause holds the default branch's queue: pause another branch without for or until, and unpause it by hand",
    });
  }
  return {
    name: "pause",
    repo,
    reason: pauseReason("pause", reason),
    ...(resume ? { resume } : {}),
    ...(branch !== undefined ? { branch } : {}),
    ...(labels.length ? { except: labels } : {}),
  };
}

/**
 * pause: pauses the repository's merge queue with a reason (the rest of the line), until someone
 * unpauses it or, for a timed pause, until the time it ends (docs/commands.md, "Timed pauses").
 */
export const pause = defineCommand<PauseCommand, PauseResult>({
  name: "pause",
  summary: "pause the repository's merge queue",
  permission: "write",
  needsLink: true,
  changes: true,
  grammar: {
    github: {
      usage: "pause [branch=<name>] <reason> [for <duration> | until <time>] [except label:<name> …]",
      read: ({ text }, place) => pauseArguments(place.repo, text),
    },
    slack: {
      usage: "pause [repo] [branch=<name>] <reason> [for <duration> | until <time>] [except label:<name> …]",
      read: ({ words, text }, place) => {
        const first = words[0] ? parseTarget("pause", words[0], place) : undefined;
        if (first?.repo && first.pull === undefined) {
          return pauseArguments(first.repo, text.slice(words[0]?.length ?? 0));
        }
        if (!place.defaultRepo) return missing("pause", "repository (owner/repo)");
        return pauseArguments(place.defaultRepo, text);
      },
    },
  },
  async execute(command, actor, ports) {
    const steps = stepsOf(ports);
    // A queue without a pause: refused before anything else (a timed pause's end included).
    const need = command.except ? "exemptions" : undefined;
    const pauses = await pausesOf(ports, "pause", command.repo, command.branch, need);
    const resume = command.resume;
    // A timed pause's end, reckoned once: a run taking the command over keeps the first run's instant.
    const resumes = resume
      ? fromEnds(await steps.once("pause.ends", async () => toEnds(await whenItEnds(resume, actor, ports))))
      : undefined;
    const target = { repo: command.repo, branch: command.branch ?? null };
    // The merge queue's pause, once: a run taking over a pause begun and not recorded finds the queue
    // paused for this reason (its replica died after asking) and does not ask again.
    const state = await steps.once(
      "queue.pause",
      () =>
        pauses.pause(target, {
          reason: command.reason,
          by: pauser(actor),
          ...(command.except ? { except: command.except } : {}),
        }),
      async () => {
        const current = await pauses.current(target);
        return current?.reason === command.reason ? current : null;
      },
    );
    // A pause of another branch than the default one (the gate's) leaves the default branch's timed
    // pause and Yardmaster's record of who paused it alone: both are kept per repository.
    if (command.branch === undefined) await keepTimedPause(command, actor, ports, resumes);
    return {
      name: "pause",
      repo: command.repo,
      pause: state,
      ...(resumes ? { resumes } : {}),
      ...(command.branch !== undefined ? { branch: command.branch } : {}),
    };
  },
  describe(result, context) {
    const { by } = context;
    const since = result.pause.pausedAt ? `since ${formatTime(result.pause.pausedAt)}` : "";
    const ends = result.resumes
      ? ` · ${resumesText(result.resumes.at, result.resumes.now, result.resumes.zone)}`
      : "";
    const said = result.pause.warning;
    const warning: Text | undefined = said ? (f) => `⚠️ ${f.escape(clip(said, 500))}` : undefined;
    // The branch held: the one named, or where one pause holds one branch (the gate), the default one.
    const held = result.branch ?? result.pause.branch;
    const headline: Text = (f) => {
      const repo = `${f.code(result.repo.fullName)}${held !== undefined ? ` (branch ${f.code(clip(held, 255))})` : ""}`;
      const reason = `${f.escape(clip(result.pause.reason || "no reason given", 300))}${ends}${exceptText(f, result.pause.except)}`;
      // GitHub's summary comment says how the queue stands; both wordings are pinned by the
      // end-to-end tests of their surface, so they stay two until one of those tests is revised.
      if (context.surface === "github")
        return `⏸️ The merge queue of ${repo} is ${f.bold("paused")}: ${reason}`;
      return by
        ? `⏸️ ${by} paused the merge queue of ${repo}: ${reason}`
        : `⏸️ Merge queue of ${repo} paused: ${reason}`;
    };
    return {
      parts: [
        { kind: "sentence", text: headline },
        ...(warning ? [{ kind: "sentence" as const, text: warning }] : []),
        ...(since ? [{ kind: "note" as const, texts: [() => `Paused ${since}.`] }] : []),
        { kind: "buttons", buttons: [unpauseButton(result.repo, result.branch)] },
      ],
      summary: (f) => `${headline(f)}${since ? ` (${since})` : ""}.${warning ? ` ${warning(f)}` : ""}`,
    };
  },
});

/**
 * When a timed pause ends, refused (before anything is called) when past, more than 14 days ahead, or
 * where nothing keeps the schedule. A time without a zone is read in the Slack user's zone on Slack (as
 * Slack knows it), in UTC on GitHub.
 */
async function whenItEnds(
  resume: ResumeSpec,
  actor: Actor,
  ports: Ports,
): Promise<{ at: Date; now: Date; zone: string }> {
  const schedule = ports.unpauseSchedule;
  if (!schedule) {
    throw new CommandError(CommandErrorCode.Unavailable, { command: "pause", detail: "timed pauses" });
  }
  let zone = "UTC";
  if (resume.kind === "until") zone = resume.zone ?? (await userZone(actor, ports));
  const now = schedule.now();
  return { at: resumeInstant("pause", resume, now, zone), now, zone };
}

type Ends = { at: Date; now: Date; zone: string };

/** A timed pause's end as its step records it (JSON), and back. */
function toEnds(ends: Ends): { at: string; now: string; zone: string } {
  return { at: ends.at.toISOString(), now: ends.now.toISOString(), zone: ends.zone };
}
function fromEnds(ends: { at: string; now: string; zone: string }): Ends {
  return { at: new Date(ends.at), now: new Date(ends.now), zone: ends.zone };
}

/**
 * A new pause or drain of the default branch replaces a timed pause's end (with its own, or with none),
 * and is attributed; refused with what to do when the end could not be kept or cancelled. Both are the same write again in a run that takes the command over (a put or a removal of
 * the repository's one end, its one attribution): not steps.
 */
export async function keepTimedPause(
  command: Pick<PauseCommand, "repo" | "reason"> & { name: "pause" | "drain" },
  actor: Actor,
  ports: Ports,
  resumes: { at: Date; now: Date; zone: string } | undefined,
): Promise<void> {
  // A new pause replaces a timed pause's end: with its own, or with none.
  try {
    if (resumes) {
      await ports.unpauseSchedule?.put({
        repository: command.repo,
        reason: command.reason,
        resumesAt: resumes.at,
        scheduledBy: pauser(actor),
        surface: actor.surface,
        createdAt: resumes.now,
      });
    } else {
      await ports.unpauseSchedule?.cancel(command.repo);
    }
  } catch {
    const held = `the merge queue of ${command.repo.fullName} is ${command.name === "drain" ? "draining" : "paused"}`;
    throw new CommandError(CommandErrorCode.Unavailable, {
      command: command.name,
      repository: command.repo.fullName,
      detail: resumes
        ? `${held}, but Yardmaster could not keep when it ends: unpause it by hand`
        : `${held}, but Yardmaster could not cancel the end of an earlier timed pause, which may unpause it`,
    });
  }
  await attributePause(ports, actor, command.repo, "pause", command.reason, resumes?.at ?? null);
}

/** How attributions and schedules name the person. */
export function pauser(actor: Actor): string {
  return actor.githubLogin ?? actor.display;
}

/** Best effort: the pause happened whether or not it can be attributed. */
export async function attributePause(
  ports: Ports,
  actor: Actor,
  repo: Repo,
  action: PauseAttribution["action"],
  reason: string | null,
  resumesAt: Date | null = null,
): Promise<void> {
  const who = { login: pauser(actor), surface: actor.surface };
  await recordPauseChange(ports, repo, who, { action, reason, resumesAt });
}
