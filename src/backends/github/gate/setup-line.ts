import { pass, reason, type SetupLine, warn } from "../../../core/setup-line.js";
import type { Repo } from "../../../repo.js";
import type { BranchRule } from "./github.js";
import { gateSource, requireFromAppHow } from "./required.js";

/**
 * Whether a branch on GitHub's merge queue requires the gate check (README, "Pausing GitHub's merge
 * queue"): its rules as GitHub lists them for the branch (`GET /repos/{owner}/{repo}/rules/branches/{branch}`,
 * rulesets only), the gate among the required status checks with the GitHub App as its source (a rule
 * without one accepts it from any source: a workflow job of that name opens the gate during a pause),
 * and the queue's check timeout. Classic branch protection is not listed there: said so, with where to look,
 * rather than asking for the administration permission that reads it.
 */

const CHECK = "gate check";
const HOW =
  "an admin adds it to the branch's ruleset: Settings → Rules → Rulesets → Require status checks to pass → Add checks → the gate's name, source: this GitHub App (README, “Pausing GitHub's merge queue”)";
const CLASSIC =
  "rules of classic branch protection are not listed by GitHub's rules API: if the gate is required there, it shows under Settings → Branches → the branch's protection rule → Require status checks";

export interface GateRulesTarget {
  repo: Repo;
  branch: string;
  /** GATE_CHECK_NAME. */
  gateName: string;
  /** The GitHub App's id: the source the gate is expected from. */
  appId: number;
}

/** The setup check's gate line of one repository on GitHub's merge queue, from its branch's rules (or why they could not be read). */
export function gateRulesLine(target: GateRulesTarget, rules: readonly BranchRule[] | Error): SetupLine {
  const where = `${target.repo.fullName}: ${target.gateName} on ${target.branch}`;
  if (rules instanceof Error) {
    return warn(
      CHECK,
      `${where}: the branch's rules cannot be read (${reason(rules).slice(0, 200)})`,
      "the GitHub App reads them with metadata: read; run npm run doctor again",
    );
  }
  const timeout = rules
    .map((r) => r.parameters?.check_response_timeout_minutes)
    .find((m): m is number => typeof m === "number");
  const timeoutText = timeout !== undefined ? `; the queue's checks time out after ${timeout} min` : "";
  const source = gateSource(rules, target.gateName, target.appId);
  if (source === "absent") {
    return warn(
      CHECK,
      `${where}: not a required check of the branch's rulesets, so /mq pause cannot hold its merge queue${timeoutText} (${CLASSIC})`,
      HOW,
    );
  }
  if (source === "any") {
    return warn(
      CHECK,
      `${where}: required from any source (no app chosen in the ruleset), so a workflow job or another app's check named ${target.gateName} passes it and merges go on during a pause${timeoutText}`,
      requireFromAppHow(target.gateName),
    );
  }
  if (source === "other") {
    return warn(
      CHECK,
      `${where}: required, but from another GitHub App, not this one (app ${target.appId}): that app's check decides, and a pause does not hold the queue${timeoutText}`,
      requireFromAppHow(target.gateName),
    );
  }
  return pass(
    CHECK,
    `${where}: required, from this GitHub App${timeoutText} (a longer pause puts back on unpause what GitHub removed for it)`,
  );
}
