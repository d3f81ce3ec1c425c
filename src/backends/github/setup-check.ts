import { CommandError } from "../../core/errors.js";
import { fail, pass, reason, type SetupLine } from "../../core/setup-line.js";
import type { Repo } from "../../repo.js";
import type { GitHubQueueClient } from "./client.js";
import type { BranchRule } from "./gate/index.js";
import { gateRulesLine } from "./gate/setup-line.js";

/**
 * The setup check's reading of GitHub's merge queue on one subscribed repository: the GitHub App asks
 * GitHub (as the repository's installation, the GraphQL read `auto` makes) whether the default branch
 * has a merge queue, and where it has one, whether the gate check is required there (gate/setup-line.ts).
 * Which backend then serves a repository without one is src/backends/setup-check.ts's to say.
 */

/** The check's name on each of its lines. */
export const QUEUE_CHECK = "merge queue";
const READ_FIX =
  "install the GitHub App on the repository with the permissions app.yml asks for (see the GitHub App lines), then run npm run doctor again";

/** The gate check (GATE_CHECK_NAME) whose place in a GitHub queue's branch rules is read. */
export interface GateReading {
  name: string;
  /** The GitHub App's id: the source the gate is expected from. */
  appId: number;
  rulesFor: (repo: Repo, branch: string) => Promise<BranchRule[]>;
}

/** What GitHub says of a repository's default branch: its merge queue, none, or why it cannot be read. */
export type DefaultBranchQueue =
  | { repo: Repo; found: "queue"; line: SetupLine; gate?: SetupLine }
  | { repo: Repo; found: "none"; where: string }
  | { repo: Repo; found: "unreadable"; line: SetupLine };

export async function readDefaultBranchQueue(
  client: GitHubQueueClient,
  repo: Repo,
  gate: GateReading | undefined,
): Promise<DefaultBranchQueue> {
  const name = repo.fullName;
  let branch: string | null;
  let queue: boolean;
  try {
    ({ branch, queue } = await client.defaultBranchQueue(repo));
  } catch (error) {
    const detail = error instanceof CommandError ? (error.details.detail ?? error.message) : reason(error);
    return {
      repo,
      found: "unreadable",
      line: fail(
        QUEUE_CHECK,
        `${name}: the GitHub App cannot read whether its default branch has a merge queue (${detail.slice(0, 200)})`,
        READ_FIX,
      ),
    };
  }
  const where = branch ?? "its default branch";
  if (!queue) return { repo, found: "none", where };
  const line = pass(QUEUE_CHECK, `${name}: GitHub's merge queue (${where})`);
  if (!gate || !branch) return { repo, found: "queue", line };
  const rules = await gate.rulesFor(repo, branch).catch((error: unknown) => error as Error);
  const target = { repo, branch, gateName: gate.name, appId: gate.appId };
  return { repo, found: "queue", line, gate: gateRulesLine(target, rules) };
}
