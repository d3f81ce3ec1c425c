import type { Repo } from "../repo.js";
import { unexpected } from "./arguments.js";
import { defineCommand } from "./command.js";
import { sentence } from "./description.js";
import { notOnThisQueue, queueOf } from "./github-queue.js";
import { clip, cut, plural } from "./present.js";
import { repoArgument } from "./targets.js";

export interface BranchesCommand {
  name: "branches";
  repo: Repo;
}

export interface BranchesResult {
  name: "branches";
  repo: Repo;
  branches: string[];
}

/** branches: the branches of a repository that have an active merge queue. */
export const branches = defineCommand<BranchesCommand, BranchesResult>({
  name: "branches",
  summary: "list the branches with an active merge queue",
  permission: "none",
  needsLink: false,
  changes: false,
  grammar: {
    slack: {
      usage: "branches [repo]",
      read: ({ words }, place) => {
        const { repo, rest } = repoArgument("branches", words, place);
        unexpected("branches", rest);
        return { name: "branches", repo };
      },
    },
  },
  async execute(command, _actor, ports) {
    const backend = await queueOf(ports, command.repo);
    if (!backend.branches) {
      notOnThisQueue(
        "branches",
        command.repo,
        "it uses GitHub's merge queue, whose queues are set per branch in its rulesets: try `status <branch>`",
      );
    }
    return { name: "branches", repo: command.repo, branches: await backend.branches(command.repo) };
  },
  describe({ repo, branches }) {
    if (!branches.length) {
      return sentence((f) => `No branch of ${f.code(repo.fullName)} has an active merge queue.`);
    }
    const branch = (b: string) => clip(b, 255);
    const few = cut(branches, 20);
    return {
      parts: [
        {
          kind: "list",
          name: "branches",
          heading: (f) =>
            `${f.bold("Branches with an active merge queue")} in ${f.code(repo.fullName)} (${branches.length})`,
          items: branches.map((b) => (f) => f.code(branch(b))),
          more: (n) => () => `…and ${plural(n, "more branch", "more branches")}`,
        },
      ],
      summary: (f) =>
        `Branches with an active merge queue in ${f.code(repo.fullName)}: ${few.shown.map((b) => f.code(branch(b))).join(", ")}${few.more ? `, and ${few.more} more` : ""}.`,
    };
  },
});
