import type { Repo } from "../../../repo.js";
import type { BranchRule, GateGitHub } from "./github.js";

/**
 * Whether the gate can hold a branch's queue at all: GitHub's merge queue waits for the gate only where
 * the branch's rules require it (README, “Pausing GitHub's merge queue”), and only the app's own report
 * is waited for where the rule names the app as the check's source (its `integration_id`). A required
 * check without one is satisfied by any check run or status of that name: a workflow job called
 * `yardmaster/gate` in a merge group's run succeeds on its own, and merges go on during a pause. Read from
 * the rules GitHub lists for the branch (`GET /repos/{owner}/{repo}/rules/branches/{branch}`, rulesets
 * only), as the doctor does.
 */

/**
 * Where the branch's rules take the gate from: this app ("app"), any source ("any": a rule lists it
 * without `integration_id`), another app only ("other"), or nowhere: not required ("absent"). With
 * `appId` unknown, any `integration_id` counts as the app's.
 */
export type GateSource = "app" | "any" | "other" | "absent";

export function gateSource(rules: readonly BranchRule[], checkName: string, appId?: number): GateSource {
  const required = rules
    .filter((r) => r.type === "required_status_checks")
    .flatMap((r) => r.parameters?.required_status_checks ?? [])
    .filter((c) => c.context === checkName);
  if (required.length === 0) return "absent";
  // Two rulesets may both require it: GitHub waits for every rule, so one naming the app holds the queue.
  if (
    required.some(
      (c) => c.integration_id !== undefined && (appId === undefined || c.integration_id === appId),
    )
  )
    return "app";
  return required.some((c) => c.integration_id === undefined) ? "any" : "other";
}

/** How an admin makes the gate's source this GitHub App (the doctor's fix and the pause's warning say it). */
export function requireFromAppHow(checkName: string): string {
  return `an admin edits the branch's ruleset: Settings → Rules → Rulesets → Require status checks to pass → ${checkName} → source: this GitHub App (not “any source”)`;
}

/** What a pause of a branch whose rules do not require the gate tells the person. */
export function notRequiredWarning(branch: string, checkName: string): string {
  return `Paused in Yardmaster, but GitHub's merge queue of ${branch} is not held: ${checkName} is not a required check of the branch's ruleset, so its merge groups still merge until an admin makes it one (README, “Pausing GitHub's merge queue”).`;
}

/** What a pause of a branch whose rules accept the gate from any source (or another app) tells the person. */
export function anySourceWarning(branch: string, checkName: string, source: "any" | "other"): string {
  const from =
    source === "any"
      ? `its ruleset accepts ${checkName} from any source, so a workflow job or another app's check of that name passes it and its merge groups may still merge`
      : `its ruleset expects ${checkName} from another GitHub App, so Yardmaster's gate does not count and that app's check decides`;
  return `Paused in Yardmaster, but GitHub's merge queue of ${branch} may not be held: ${from}. To hold it, ${requireFromAppHow(checkName)} (README, “Pausing GitHub's merge queue”).`;
}

/**
 * The warning a pause of the branch carries; undefined where the gate is required from the app, and where
 * the rules cannot be read (nothing is said then: classic branch protection, or GitHub unavailable, may
 * still hold it).
 */
export async function gateWarning(
  github: Pick<GateGitHub, "branchRules">,
  repo: Repo,
  branch: string,
  checkName: string,
  appId?: number,
): Promise<string | undefined> {
  const rules = await github.branchRules(repo, branch).catch(() => null);
  if (rules === null) return undefined;
  const source = gateSource(rules, checkName, appId);
  if (source === "app") return undefined;
  return source === "absent"
    ? notRequiredWarning(branch, checkName)
    : anySourceWarning(branch, checkName, source);
}
