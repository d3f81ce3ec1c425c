import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUMMARY_MARKER } from "../../src/github/summary-comment.js";
import { commentWebhookPayload, startWorld, type World } from "../helpers/e2e.js";

/** End to end over loopback: GitHub stand-in → Yardmaster (real webhook signatures) → simulator. */
let world: World;
const REPO = "acme/widgets";

beforeAll(async () => {
  // 👀 after a minute, not a second: a loaded test machine does not add one to a quick command (github-load
  // tests 👀).
  world = await startWorld({}, { githubAnswers: { seenAfterMs: 60_000 } });
  const { state } = world.github;
  state.addRepository(REPO);
  state.setPermission(REPO, "alice", "write");
  state.setPermission(REPO, "rita", "read");
  state.addPullRequest({
    repository: REPO,
    number: 101,
    author: "alice",
    title: "Add sprockets",
    base: "main",
  });
  state.addPullRequest({ repository: REPO, number: 102, author: "rita", title: "Fix typo", base: "main" });
});
afterAll(() => world.close());

const comment = (number: number, body: string, author = "alice") =>
  world.github.deliverIssueComment({ repository: REPO, number, body, author });

function summary(number: number): string {
  const found = world.github.state
    .comments(REPO, number)
    .filter((c: { body: string }) => c.body.includes(SUMMARY_MARKER));
  expect(found.length).toBeLessThanOrEqual(1);
  return found[0]?.body ?? "";
}

function reactions(commentId: number): string[] {
  return world.github.state.reactions(commentId).map((r: { content: string }) => r.content);
}

describe("GitHub comment commands, end to end", () => {
  it("queues a pull request in the merge queue and shows its position in the summary", async () => {
    const { status, commentId } = await comment(101, "@yardmaster queue");
    expect(status).toBe(200);
    const details = world.sim.state.pullDetails(REPO, 101)!;
    expect(details.number).toBe(101);
    const comments = world.github.state.comments(REPO, 101).map((c: { body: string }) => c.body);
    expect(comments.some((b: string) => b.startsWith("@mergifyio queue\n"))).toBe(true);
    expect(summary(101)).toContain(
      `#101 is in the merge queue \`default\` at position ${details.position + 1}`,
    );
    expect(reactions(commentId)).toEqual(["+1"]);
  });

  it("pauses and unpauses the simulator's queue, editing one summary comment", async () => {
    const paused = await comment(101, "@yardmaster pause release freeze");
    expect(world.sim.state.pauseData(REPO)).toMatchObject({ paused: true, reason: "release freeze" });
    expect(summary(101)).toContain("is **paused**: release freeze");
    expect(reactions(paused.commentId)).toEqual(["+1"]);

    await comment(101, "@yardmaster unpause");
    expect(world.sim.state.pauseData(REPO).paused).toBe(false);
    expect(summary(101)).toContain("is running again");
  });

  it("refuses a reader, and nothing changes", async () => {
    const before = world.sim.state.events(REPO).length;
    const { commentId } = await comment(102, "@yardmaster pause nope", "rita");
    expect(world.sim.state.pauseData(REPO).paused).toBe(false);
    expect(world.sim.state.events(REPO).length).toBe(before);
    expect(summary(102)).toContain(
      "`pause` needs **write** permission on `acme/widgets`; rita has **read**.",
    );
    expect(reactions(commentId)).toEqual(["confused"]);
  });

  it("explains an unknown command and a missing argument", async () => {
    await comment(102, "@yardmaster puase now", "alice");
    expect(summary(102)).toContain("`puase` is not a command. Did you mean `pause`?");
    await comment(102, "@yardmaster pause", "alice");
    expect(summary(102)).toContain("`pause` needs a reason");
    expect(world.sim.state.pauseData(REPO).paused).toBe(false);
  });

  it("rejects a webhook with a bad signature, and nothing runs", async () => {
    const before = world.github.requests.length;
    const payload = commentWebhookPayload(world, REPO, 101, "@yardmaster pause evil");
    const { status } = await world.github.deliverWebhook("issue_comment", payload, {
      signature: "sha256=0000000000000000000000000000000000000000000000000000000000000000",
    });
    expect(status).toBeGreaterThanOrEqual(400);
    expect(world.sim.state.pauseData(REPO).paused).toBe(false);
    expect(world.github.requests.length).toBe(before);
  });

  it("serves /healthz and /metrics on the same server", async () => {
    const health = await fetch(`${world.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ ok: true });
    const metrics = await (await fetch(`${world.url}/metrics`)).text();
    expect(metrics).toMatch(
      /yardmaster_commands_total\{command="pause",outcome="success",surface="github"\} 1/,
    );
    expect(metrics).toMatch(/yardmaster_merge_queue_requests_total\{method="PUT",/);
  });

  it("removes a right-to-left override typed in a reason from the summary comment", async () => {
    await comment(101, "@yardmaster pause release \u202efreeze, back at 5");
    expect(world.sim.state.pauseData(REPO)).toMatchObject({ paused: true });
    const body = summary(101);
    expect(body).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    expect(body).toContain("`@yardmaster pause release freeze, back at 5`");
    expect(body).toContain("is **paused**: release freeze, back at 5");
    await comment(101, "@yardmaster unpause");
    expect(world.sim.state.pauseData(REPO).paused).toBe(false);
  });
});
