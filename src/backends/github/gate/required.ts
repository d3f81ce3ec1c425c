import type { Repo } from "../../../repo.js";
import type { BranchRule, GateGitHub } from "./github.js";

/**
 * Whether the gate can hold a branch's queue at all: GitHub's merge queue waits for the gate only where
 * the branch's rules require it (README, “Pausing GitHub's merge queue”). Read from the rules GitHub lists
 * for the branch (`GET /repos/{owner}/{repo}/rules/branches/{branch}`, rulesets only), as the doctor does.
 */

/** Whether the branch's rulesets list the check among their required status checks. */
export function requiresCheck(rules: readonly BranchRule[], checkName: string): boolean {
  return rules
    .filter((r) => r.type === "required_status_checks")
    .flatMap((r) => r.parameters?.required_status_checks ?? [])
    .some((c) => c.context === checkName);
}

/** What a pause of a branch whose rules do not require the gate tells the person. */
export function notRequiredWarning(branch: string, checkName: string): string {
  return `Paused in Yardmaster, but GitHub's merge queue of ${branch} is not held: ${checkName} is not a required check of the branch's ruleset, so its merge groups still merge until an admin makes it one (README, “Pausing GitHub's merge queue”).`;
}

/**
 * The warning a pause of the branch carries; undefined where the gate is required, and where the rules
 * cannot be read (nothing is said then: classic branch protection, or GitHub unavailable, may still hold it).
 */
export async function gateWarning(
  github: Pick<GateGitHub, "branchRules">,
  repo: Repo,
  branch: string,
  checkName: string,
): Promise<string | undefined> {
  const rules = await github.branchRules(repo, branch).catch(() => null);
  if (rules === null || requiresCheck(rules, checkName)) return undefined;
  return notRequiredWarning(branch, checkName);
}
