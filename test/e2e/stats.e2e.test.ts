import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUMMARY_MARKER } from "../../src/github/summary-comment.js";
import { linkSlackUser, startWorld, type World } from "../helpers/e2e.js";

/**
 * `stats` end to end: a repository's log in the simulator, asked from a GitHub comment and from Slack.
 * Every figure below is computed by hand from the events appended in beforeAll.
 */
let world: World;
const REPO = "acme/stats";
const CHANNEL = "C0STATS";
const ALICE = "U0ALICE";
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const UNIT = "https://ci.example/acme/stats/unit/1";

beforeAll(async () => {
  world = await startWorld();
  world.sim.state.addRepository(REPO, { branches: ["main"] });
  world.github.state.addRepository(REPO);
  world.github.state.setPermission(REPO, "alice", "read");
  world.github.state.addPullRequest({
    repository: REPO,
    number: 5,
    author: "alice",
    title: "Stats",
    base: "main",
  });
  world.slack.state.addChannel({ id: CHANNEL, name: "stats", botIsMember: true });
  world.slack.state.addUser({ id: ALICE, name: "alice" });

  const now = world.sim.clock.now();
  const add = (ago: number, type: string, pull: number | null, metadata: Record<string, unknown>) =>
    world.sim.state.appendEvent(REPO, {
      receivedAt: now - ago,
      trigger: "merge queue",
      pullRequest: pull,
      baseRef: pull === null ? null : "main",
      outcome: "success",
      type: type as never,
      metadata,
    });
  const queued = (ago: number) => ({
    queue_name: "default",
    branch: "main",
    queued_at: new Date(now - ago).toISOString(),
  });
  const merged = (ago: number, pull: number, waited: number) =>
    add(ago, "action.queue.merged", pull, { ...queued(ago + waited), merge_commit_sha: "abc" });
  const left = (ago: number, pull: number, code: string, reason: string, checks: string[] = []) =>
    add(ago, "action.queue.leave", pull, {
      ...queued(ago + 5 * MINUTE),
      merged: false,
      dequeue_code: code,
      reason,
      unsuccessful_checks: checks.map((name) => ({
        name,
        description: "failed",
        url: UNIT,
        state: "failure",
        avatar_url: null,
      })),
    });
  // The previous seven days: one merge of an hour.
  merged(10 * DAY, 1, HOUR);
  // The last seven days. #2 entered twice: thrown out by its unit tests, requeued, merged 10 min later.
  left(6 * DAY, 2, "CHECKS_FAILED", "unit failed", ["unit"]);
  merged(6 * DAY - HOUR, 2, 10 * MINUTE);
  merged(4 * DAY, 3, 30 * MINUTE);
  add(3 * DAY, "queue.pause.create", null, { reason: "release" });
  add(3 * DAY - 90 * MINUTE, "queue.pause.delete", null, {});
  left(2 * DAY, 4, "PR_MANUALLY_DEQUEUED", "dequeued by <!channel>");
  merged(HOUR, 6, 2 * HOUR);

  await linkSlackUser(world, ALICE, "alice", 1);
});
afterAll(() => world.close());

function summary(number: number): string {
  const found = world.github.state
    .comments(REPO, number)
    .filter((c: { body: string }) => c.body.includes(SUMMARY_MARKER));
  return found[0]?.body ?? "";
}

const logReads = () => world.sim.requests.snapshot().repositories[REPO]?.routes ?? {};
const totalLogReads = () =>
  Object.entries(logReads())
    .filter(([route]) => route.includes("logs"))
    .reduce((n, [, count]) => n + count, 0);

describe("stats, end to end", () => {
  it("answers a comment with the week's figures and the week before", async () => {
    const { status } = await world.github.deliverIssueComment({
      repository: REPO,
      number: 5,
      body: "@yardmaster stats",
      author: "alice",
    });
    expect(status).toBe(200);
    const body = summary(5);
    expect(body).toContain("Queue health of acme/stats");
    // Merges: 10 min, 30 min, 2 h (nearest rank: p50 the 2nd, p90 the 3rd); the week before: 1 of 1 h.
    expect(body).toContain("**Merged:** 3 (previous 7 days: 1, +2)");
    expect(body).toContain("**Time in queue:** p50 30 min · p90 2 h (previous 7 days: p50 1 h · p90 1 h)");
    expect(body).toContain("**Left without merging:** 2 (previous 7 days: 0, +2)");
    expect(body).toContain("**Pauses:** 1, 1 h 30 min paused in all (previous 7 days: 0, 0 s)");
    expect(body).toContain("its checks failed × 1");
    expect(body).toContain("it was removed by hand × 1");
    expect(body).not.toContain("CHECKS_FAILED");
    expect(body).toContain(`[unit](${UNIT}) × 1`);
    // The service's text is not shown where its code says why.
    expect(body).not.toContain("<!channel>");
  });

  it("answers /mq stats for 30 days, and reads only today from the log the second time", async () => {
    const ask = async () => {
      const sent = await world.slack.sendSlashCommand({
        text: `stats ${REPO} 30d`,
        userId: ALICE,
        channelId: CHANNEL,
      });
      return world.slack.waitFor(() =>
        world.slack.state.responses.find((r) => r.responseUrl === sent.responseUrl),
      );
    };
    const first = await ask();
    const text = `${first.text ?? ""}\n${JSON.stringify(first.blocks ?? [])}`;
    expect(text).toContain("Queue health of acme/stats");
    expect(text).toContain("4 (previous 30 days: 0, +4)");
    expect(text).toContain("p50 30 min · p90 2 h");
    expect(text).toContain("it was removed by hand × 1");
    expect(text).not.toContain("<!channel>");
    const before = totalLogReads();
    const second = await ask();
    expect(`${second.text ?? ""}`).toContain("4 (previous 30 days: 0, +4)");
    expect(totalLogReads() - before).toBe(1);
  });

  it("refuses a period it does not know, with the ones it does", async () => {
    const sent = await world.slack.sendSlashCommand({
      text: `stats ${REPO} 3w`,
      userId: ALICE,
      channelId: CHANNEL,
    });
    const answer = await world.slack.waitFor(() =>
      world.slack.state.responses.find((r) => r.responseUrl === sent.responseUrl),
    );
    expect(`${answer.text ?? ""}${JSON.stringify(answer.blocks ?? [])}`).toContain("24h, 7d or 30d");
  });
});
