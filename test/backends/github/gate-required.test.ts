import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GitHubGate, octokitGateGitHub } from "../../../src/backends/github/gate/index.js";
import { anySourceWarning, notRequiredWarning } from "../../../src/backends/github/gate/required.js";
import { createLogger } from "../../../src/logger.js";
import { Repo } from "../../../src/repo.js";
import { openStore, type Store } from "../../../src/store/index.js";
import { WorkRunner } from "../../../src/work/runner.js";
import { TestOctokit } from "../../helpers/github-app.js";

/**
 * A pause of a branch whose rules do not require the gate still happens, with a warning that GitHub's
 * queue is not held: the branch's rules read from GitHub's REST API (nock), the pause kept in a real store.
 */
const API = "https://api.github.com";
const SHIPS = Repo.of("acme", "ships");
const GATE = "yardmaster/gate";
const T0 = new Date("2026-11-20T10:00:00Z");
let store: Store;

function gate(): GitHubGate {
  const octokit = new TestOctokit({ auth: { token: "installation-token" } });
  return new GitHubGate({
    store,
    github: octokitGateGitHub(async () => octokit),
    checkName: GATE,
    owner: "replica-1",
    now: () => T0,
    work: new WorkRunner({
      store,
      owner: "replica-1",
      now: () => T0,
      logger: createLogger({ level: "silent" }),
    }),
    claimsNow: () => T0,
    logger: createLogger({ level: "silent" }),
  });
}

const rules = (contexts: string[]) => [
  { type: "merge_queue", parameters: { check_response_timeout_minutes: 60 } },
  {
    type: "required_status_checks",
    parameters: { required_status_checks: contexts.map((context) => ({ context, integration_id: 1 })) },
  },
];

beforeEach(async () => {
  store = await openStore({ kind: "sqlite", path: ":memory:" });
  nock.disableNetConnect();
});
afterEach(async () => {
  nock.cleanAll();
  await store.close();
});

describe("pausing a branch whose rules do not require the gate", () => {
  it("pauses, and warns that GitHub's queue is not held until an admin requires the gate", async () => {
    const read = nock(API)
      .get("/repos/acme/ships/rules/branches/release%2F2.0")
      .query(true)
      .reply(200, rules(["ci"]));
    const pause = await gate().pause(
      { repo: SHIPS, branch: "release/2.0" },
      { reason: "deploy", by: "alice" },
    );
    expect(read.isDone()).toBe(true);
    expect(pause).toMatchObject({ reason: "deploy", by: "alice" });
    expect(pause.warning).toBe(notRequiredWarning("release/2.0", GATE));
    expect(pause.warning).toContain(
      "GitHub's merge queue of release/2.0 is not held: yardmaster/gate is not a required check of the branch's ruleset",
    );
    // The pause is kept all the same.
    expect(await gate().current({ repo: SHIPS, branch: "release/2.0" })).toMatchObject({ reason: "deploy" });
  });

  it("says nothing more where the gate is required", async () => {
    nock(API)
      .get("/repos/acme/ships/rules/branches/main")
      .query(true)
      .reply(200, rules(["ci", GATE]));
    const pause = await gate().pause({ repo: SHIPS, branch: "main" }, { reason: "deploy", by: "alice" });
    expect(pause.warning).toBeUndefined();
  });

  it("warns where the rules accept the gate from any source, saying how to require it from the app", async () => {
    nock(API)
      .get("/repos/acme/ships/rules/branches/main")
      .query(true)
      .reply(200, [
        { type: "required_status_checks", parameters: { required_status_checks: [{ context: GATE }] } },
      ]);
    const pause = await gate().pause({ repo: SHIPS, branch: "main" }, { reason: "deploy", by: "alice" });
    expect(pause.warning).toBe(anySourceWarning("main", GATE, "any"));
    expect(pause.warning).toContain(
      "GitHub's merge queue of main may not be held: its ruleset accepts yardmaster/gate from any source",
    );
    expect(pause.warning).toContain("source: this GitHub App");
  });

  it("says nothing more where the rules cannot be read, and pauses", async () => {
    nock(API)
      .get("/repos/acme/ships/rules/branches/main")
      .query(true)
      .reply(403, { message: "Resource not accessible by integration" });
    const pause = await gate().pause({ repo: SHIPS, branch: "main" }, { reason: "deploy", by: "alice" });
    expect(pause.warning).toBeUndefined();
    expect(await gate().current({ repo: SHIPS, branch: "main" })).toMatchObject({ reason: "deploy" });
  });
});
