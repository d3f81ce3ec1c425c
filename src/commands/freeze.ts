import type { Freeze } from "../core/records.js";
import { type FreezeSpec, MAX_FREEZE_NAME, parseFreeze, refuseFreeze } from "../freezes/parse.js";
import {
  exemptText,
  freezeLine,
  type ListedFreeze,
  listed,
  nextFreeze,
  windowText,
} from "../freezes/present.js";
import { windowAt } from "../freezes/schedule.js";
import type { FreezePorts } from "../freezes/types.js";
import type { Repo } from "../repo.js";
import { type Part, sentence } from "../wording/description.js";
import { type Actor, defineCommand } from "./command.js";
import { CommandError, CommandErrorCode } from "./errors.js";
import { pausesOf } from "./github-pause.js";
import { missing } from "./grammar/arguments.js";
import { userZone } from "./grammar/resume-time.js";
import { parseTarget } from "./grammar/targets.js";
import type { Ports } from "./ports.js";
import { stepsOf } from "./steps.js";

export interface FreezeCommand extends Omit<FreezeSpec, "name"> {
  name: "freeze";
  repo: Repo;
  freezeName: string;
}

export interface FreezeResult {
  name: "freeze";
  repo: Repo;
  freeze: ListedFreeze;
}

function freezeArguments(repo: Repo, text: string): FreezeCommand {
  const { name, schedule, zone, except } = parseFreeze("freeze", text);
  return { name: "freeze", repo, freezeName: name, schedule, zone, except };
}

/** The freeze ports, or "not available" (a store-less setup). */
export function freezePorts(ports: Ports, command: string): FreezePorts {
  if (!ports.freezes)
    throw new CommandError(CommandErrorCode.Unavailable, { command, detail: "freeze windows" });
  return ports.freezes;
}

/**
 * freeze: a window in which the repository's merge queue is paused by itself, every week, every day or
 * once (docs/commands.md, "Freeze windows"). Its pause and resume are src/freezes/runner.ts's.
 */
export const freeze = defineCommand<FreezeCommand, FreezeResult>({
  name: "freeze",
  summary: "pause the merge queue by itself in a window: every week, every day, or once",
  permission: "write",
  needsLink: true,
  changes: true,
  grammar: {
    github: {
      usage:
        "freeze <name> every <day> <HH:MM> - <day> <HH:MM> [zone] | from <date> <HH:MM> to <date> <HH:MM> [zone] [except label:<name> …]",
      read: ({ text }, place) => freezeArguments(place.repo, text),
    },
    slack: {
      usage:
        "freeze [repo] <name> every <day> <HH:MM> - <day> <HH:MM> [zone] | from <date> <HH:MM> to <date> <HH:MM> [zone] [except label:<name> …]",
      read: ({ words, text }, place) => {
        const first = words[0] ? parseTarget("freeze", words[0], place) : undefined;
        if (first?.repo && first.pull === undefined)
          return freezeArguments(first.repo, text.slice(words[0]?.length ?? 0));
        if (!place.defaultRepo) return missing("freeze", "repository (owner/repo)");
        return freezeArguments(place.defaultRepo, text);
      },
    },
  },
  async execute(command, actor, ports) {
    const freezes = freezePorts(ports, "freeze");
    // A queue that cannot be paused cannot be frozen; nor, with exemptions, one that cannot let some through.
    await pausesOf(
      ports,
      "freeze",
      command.repo,
      undefined,
      command.except.length ? "exemptions" : undefined,
    );
    const zone = await zoneOf(command, actor, ports);
    const now = freezes.now();
    if (!windowAt(command.schedule, zone, now))
      refuseFreeze("freeze", `the window ends in the past (${zone})`);
    const freeze: Freeze = {
      id: "",
      number: 0,
      repository: command.repo,
      name: command.freezeName.slice(0, MAX_FREEZE_NAME),
      schedule: command.schedule,
      zone,
      createdBy: actor.githubLogin ?? actor.display,
      surface: actor.surface,
      createdAt: now,
      ...(command.except.length ? { except: command.except } : {}),
    };
    // Added once: a run taking over an addition begun and not recorded finds the freeze of this name
    // by this person (its replica died after adding it), rather than be told the name is taken.
    const added = await stepsOf(ports).once(
      "freeze.add",
      async () => {
        if ((await freezes.store.listFreezes(command.repo)).length >= MAX_FREEZES) tooMany(command.repo);
        const made = await freezes.store.addFreeze(freeze);
        if (made === "name-taken")
          refuseFreeze(
            "freeze",
            `${command.repo.fullName} already has a freeze named "${command.freezeName}"`,
          );
        await keepWithinLimit(freezes, made);
        return { id: made.id, number: made.number };
      },
      async () => {
        const same = (await freezes.store.listFreezes(command.repo)).find(
          (f) => f.name.toLowerCase() === freeze.name.toLowerCase() && f.createdBy === freeze.createdBy,
        );
        return same ? { id: same.id, number: same.number } : null;
      },
    );
    return { name: "freeze", repo: command.repo, freeze: listed({ ...freeze, ...added }, now) };
  },
  describe(result, { by }) {
    return sentence((f) => {
      const who = by
        ? `${by} set a freeze of ${f.code(result.repo.fullName)}`
        : `Freeze set on ${f.code(result.repo.fullName)}`;
      return `❄️ ${who}: ${freezeLine(f, result.freeze)}. Its merge queue is paused by itself in each window and resumed at its end; ${f.code("unpause")} ends a window early.`;
    });
  },
});

/** At most this many freeze windows per repository (docs/security.md, "Limits"). */
export const MAX_FREEZES = 20;

function tooMany(repo: Repo): never {
  throw new CommandError(CommandErrorCode.InvalidArgument, {
    command: "freeze",
    argument: "freeze window",
    detail: `${repo.fullName} already has ${MAX_FREEZES} freeze windows, the most a repository may have: remove one first (freezes lists them, unfreeze <number> removes one)`,
  });
}

/**
 * Two people adding windows at once on two replicas may both have seen fewer than MAX_FREEZES: the ones
 * numbered past the limit are taken out again and refused (the first MAX_FREEZES by number stay).
 */
async function keepWithinLimit(freezes: FreezePorts, added: Freeze): Promise<void> {
  const all = await freezes.store.listFreezes(added.repository);
  if (all.findIndex((f) => f.id === added.id) < MAX_FREEZES) return;
  await freezes.store.deleteFreeze(added.repository, { number: added.number });
  tooMany(added.repository);
}

/** The zone typed, else the Slack user's (as Slack knows it), else UTC (always on GitHub). */
async function zoneOf(command: FreezeCommand, actor: Actor, ports: Ports): Promise<string> {
  return command.zone ?? (await userZone(actor, ports));
}

/** The repository's freeze in progress or next, for `status`; undefined when none or unreadable. */
export async function nextFreezeOf(
  ports: Pick<Ports, "freezes">,
  repo: Repo,
): Promise<ListedFreeze | undefined> {
  if (!ports.freezes) return undefined;
  const all = await ports.freezes.store.listFreezes(repo).catch(() => []);
  return nextFreeze(all, ports.freezes.now()) ?? undefined;
}

/** "❄️ Freeze weekend freeze: next from … to …", as `status` shows it. */
export function freezeNote(freeze: ListedFreeze): Part {
  return {
    kind: "note",
    texts: [
      (f) =>
        `❄️ Freeze ${f.escape(freeze.name)}: ${windowText(freeze)} (${f.code(freeze.schedule)}${exemptText(f, freeze.except)})`,
    ],
  };
}
