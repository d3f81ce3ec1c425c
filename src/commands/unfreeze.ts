import type { Repo } from "../repo.js";
import { sentence } from "../wording/description.js";
import { defineCommand } from "./command.js";
import { CommandError, CommandErrorCode } from "./errors.js";
import { freezePorts } from "./freeze.js";
import { missing } from "./grammar/arguments.js";
import { parseTarget } from "./grammar/targets.js";
import { stepsOf } from "./steps.js";

export interface UnfreezeCommand {
  name: "unfreeze";
  repo: Repo;
  /** A number as `freezes` lists it, or a name. */
  which: { number: number } | { name: string };
}

export interface UnfreezeResult {
  name: "unfreeze";
  repo: Repo;
  removed: { number: number; name: string };
}

function which(text: string): UnfreezeCommand["which"] {
  const t = text.trim().replace(/^#(?=\d+$)/, "");
  if (t === "") missing("unfreeze", "freeze (its name or number, as freezes lists it)");
  return /^\d+$/.test(t) ? { number: Number(t) } : { name: t };
}

/** unfreeze: removes a freeze window; a window in progress still ends at its end (unpause ends it now). */
export const unfreeze = defineCommand<UnfreezeCommand, UnfreezeResult>({
  name: "unfreeze",
  summary: "remove a freeze window",
  permission: "write",
  needsLink: true,
  changes: true,
  grammar: {
    github: {
      usage: "unfreeze <name or number>",
      read: ({ text }, place) => ({ name: "unfreeze", repo: place.repo, which: which(text) }),
    },
    slack: {
      usage: "unfreeze [repo] <name or number>",
      read: ({ words, text }, place) => {
        const first = words[0] ? parseTarget("unfreeze", words[0], place) : undefined;
        if (first?.repo && first.pull === undefined)
          return { name: "unfreeze", repo: first.repo, which: which(text.slice(words[0]?.length ?? 0)) };
        if (!place.defaultRepo) return missing("unfreeze", "repository (owner/repo)");
        return { name: "unfreeze", repo: place.defaultRepo, which: which(text) };
      },
    },
  },
  async execute(command, _actor, ports) {
    const { store } = freezePorts(ports, "unfreeze");
    const steps = stepsOf(ports);
    // Which freeze, read once: a run taking the command over removes the one the first run read, and
    // finds it gone if that run removed it (its replica died after removing it) rather than say there
    // is none.
    const target = await steps.once("freeze.target", async () => {
      const found = (await store.listFreezes(command.repo)).find((f) =>
        "number" in command.which
          ? f.number === command.which.number
          : f.name.toLowerCase() === command.which.name.toLowerCase(),
      );
      return found ? { number: found.number, name: found.name } : null;
    });
    const removed = target
      ? await steps.once(
          "freeze.remove",
          async () => {
            const gone = await store.deleteFreeze(command.repo, { number: target.number });
            return gone ? { number: gone.number, name: gone.name } : null;
          },
          async () => {
            const all = await store.listFreezes(command.repo);
            return all.some((f) => f.number === target.number && f.name === target.name) ? null : target;
          },
        )
      : null;
    if (!removed) {
      const shown =
        "number" in command.which ? `number ${command.which.number}` : `named "${command.which.name}"`;
      throw new CommandError(CommandErrorCode.InvalidArgument, {
        command: "unfreeze",
        argument: "freeze",
        detail: `${command.repo.fullName} has no freeze ${shown} (see freezes ${command.repo.fullName})`,
      });
    }
    return { name: "unfreeze", repo: command.repo, removed: { number: removed.number, name: removed.name } };
  },
  describe(result, { by }) {
    return sentence((f) => {
      const what = `the freeze ${f.bold(`#${result.removed.number}`)} ${f.escape(result.removed.name)} of ${f.code(result.repo.fullName)}`;
      return `✅ ${by ? `${by} removed ${what}` : `Removed ${what}`}. A window in progress still ends at its end; ${f.code("unpause")} ends it now.`;
    });
  },
});
