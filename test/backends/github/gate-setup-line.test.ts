import { describe, expect, it } from "vitest";
import { gateRulesLine } from "../../../src/backends/github/gate/setup-line.js";
import { Repo } from "../../../src/repo.js";

const target = { repo: Repo.of("acme", "ships"), branch: "main", gateName: "yardmaster/gate", appId: 7 };
const queueRule = { type: "merge_queue", parameters: { check_response_timeout_minutes: 60 } };
const required = (checks: Array<{ context: string; integration_id?: number }>) => ({
  type: "required_status_checks",
  parameters: { required_status_checks: checks },
});

describe("the doctor's gate line", () => {
  it("passes when the gate is required from the app, and shows the check timeout", () => {
    const line = gateRulesLine(target, [
      queueRule,
      required([{ context: "yardmaster/gate", integration_id: 7 }]),
    ]);
    expect(line.status).toBe("pass");
    expect(line.message).toContain(
      "required, from this GitHub App; the queue's checks time out after 60 min",
    );
  });

  it("warns when it is not required, saying how to add it and that classic protection is not listed", () => {
    const line = gateRulesLine(target, [queueRule, required([{ context: "ci", integration_id: 15368 }])]);
    expect(line.status).toBe("warn");
    expect(line.message).toContain("not a required check of the branch's rulesets");
    expect(line.message).toContain("rules of classic branch protection are not listed");
    expect(line.fix).toContain("source: this GitHub App");
  });

  it("warns when it is required from any source, saying how to require it from the app", () => {
    const line = gateRulesLine(target, [required([{ context: "yardmaster/gate" }])]);
    expect(line.status).toBe("warn");
    expect(line.message).toContain(
      "required from any source (no app chosen in the ruleset), so a workflow job or another app's check named yardmaster/gate passes it and merges go on during a pause",
    );
    expect(line.fix).toContain("source: this GitHub App (not “any source”)");
  });

  it("warns when it is required from another app", () => {
    const line = gateRulesLine(target, [required([{ context: "yardmaster/gate", integration_id: 15368 }])]);
    expect(line.status).toBe("warn");
    expect(line.message).toContain("required, but from another GitHub App, not this one (app 7)");
  });

  it("passes when one ruleset takes it from any source and another from the app", () => {
    const line = gateRulesLine(target, [
      required([{ context: "yardmaster/gate" }]),
      required([{ context: "yardmaster/gate", integration_id: 7 }]),
    ]);
    expect(line.status).toBe("pass");
  });

  it("warns when the rules cannot be read", () => {
    const line = gateRulesLine(target, new Error("404: Not Found"));
    expect(line).toMatchObject({ status: "warn" });
    expect(line.message).toContain("cannot be read (404: Not Found)");
  });
});
