import { freezeLine, type ListedFreeze, listed } from "../freezes/present.js";
import type { Repo } from "../repo.js";
import { sentence } from "../wording/description.js";
import { plural } from "../wording/words.js";
import { defineCommand } from "./command.js";
import { freezePorts } from "./freeze.js";
import { unexpected } from "./grammar/arguments.js";
import { repoArgument } from "./grammar/targets.js";

export interface FreezesResult {
  name: "freezes";
  repo: Repo;
  freezes: ListedFreeze[];
}

/** freezes: a repository's freeze windows, with their next start and end. */
export const freezes = defineCommand<{ name: "freezes"; repo: Repo }, FreezesResult>({
  name: "freezes",
  summary: "list the repository's freeze windows, with their next start and end",
  permission: "none",
  needsLink: false,
  changes: false,
  grammar: {
    github: {
      usage: "freezes",
      read: ({ words }, place) => {
        unexpected("freezes", words);
        return { name: "freezes", repo: place.repo };
      },
    },
    slack: {
      usage: "freezes [repo]",
      read: ({ words }, place) => {
        const { repo, rest } = repoArgument("freezes", words, place);
        unexpected("freezes", rest);
        return { name: "freezes", repo };
      },
    },
  },
  async execute(command, _actor, ports) {
    const { store, now } = freezePorts(ports, "freezes");
    const at = now();
    const all = await store.listFreezes(command.repo);
    return { name: "freezes", repo: command.repo, freezes: all.map((f) => listed(f, at)) };
  },
  describe(result) {
    if (!result.freezes.length)
      return sentence(
        (f) =>
          `${f.code(result.repo.fullName)} has no freeze windows. Set one with ${f.code(`${f.invocation} freeze ${result.repo.fullName} weekend every fri 18:00 - mon 08:00`)}.`,
      );
    return {
      parts: [
        {
          kind: "list",
          name: "freezes",
          heading: (f) =>
            `${f.bold("Freeze windows of")} ${f.code(result.repo.fullName)} (${result.freezes.length})`,
          items: result.freezes.map((fr) => (f) => freezeLine(f, fr)),
          more: (n) => () => `…and ${plural(n, "more freeze", "more freezes")}`,
        },
      ],
      summary: (f) =>
        `Freeze windows of ${f.code(result.repo.fullName)}: ${result.freezes.map((fr) => freezeLine(f, fr)).join("; ")}.`,
    };
  },
});
