import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pushedEventId } from "../../src/core/pushed-events.js";
import { SETTLE_MS } from "../../src/outside-merges/watch.js";
import { Repo } from "../../src/repo.js";
import { DIGEST_METADATA_EVENT_TYPE, METADATA_EVENT_TYPE } from "../../src/slack/slack-poster.js";
import type { Yardmaster } from "../../src/yardmaster.js";
import { eventually, linkSlackUser, startWorld, subscribeChannel, type World } from "../helpers/e2e.js";
import { useSchema } from "../helpers/postgres.js";

/**
 * Merges that skipped GitHub's own merge queue, end to end (docs/notifications.md, "Merged outside the
 * queue"): MERGE_QUEUE_PROVIDER=github, two replicas on one PostgreSQL. The GitHub stand-in runs the queue
 * and merges a pull request directly when an admin asks (`PUT .../pulls/{n}/merge`, an admin's bypass),
 * sending GitHub's webhooks; the world's clock moves only by hand. The health channel (subscribed with its
 * default groups and a weekly digest) hears it once; a channel subscribed without `health` does not.
 */
const db = useSchema("ym_outside_github");
const SHIPS = "acme/ships";
const HEALTH = "C0HEALTH";
const QUIET = "C0QUIET"; // queue and pause, no health
const ALICE = "U0ALICE";
const SECOND = 1_000;
const DAY = 24 * 3600 * SECOND;
let world: World;
let second: { app: Yardmaster; url: string };

/** The first Monday 09:00 UTC (DIGEST_TIME_ZONE's default) after `after`. */
function mondayNineAfter(after: number): number {
  const day = new Date(after);
  let t = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), 9);
  while (t <= after || new Date(t).getUTCDay() !== 1) t += DAY;
  return t;
}

async function slash(text: string) {
  const sent = await world.slack.sendSlashCommand({ text, userId: ALICE, channelId: HEALTH });
  const answer = await world.slack.waitFor(() =>
    world.slack.state.responses.find((r) => r.responseUrl === sent.responseUrl),
  );
  return `${answer.text ?? ""}\n${JSON.stringify(answer.blocks ?? [])}`;
}

beforeAll(async () => {
  world = await startWorld({
    DATABASE_URL: db.url(),
    MERGE_QUEUE_PROVIDER: "github",
    MERGE_QUEUE_API_TOKEN: "",
  });
  second = await world.replica();
  const { state } = world.github;
  state.addRepository(SHIPS);
  state.setPermission(SHIPS, "alice", "write");
  state.setPermission(SHIPS, "bob", "write");
  state.setPermission(SHIPS, "dana", "admin");
  world.github.mergeQueues.enable(SHIPS, "main");
  for (const [number, title, base] of [
    [11, "Faster hulls", "main"],
    [12, "Brass <fittings>", "main"],
    [13, "Sails", "main"],
    [14, "Typos", "docs"],
  ] as const)
    state.addPullRequest({ repository: SHIPS, number, author: "alice", title, base });
  world.slack.state.addChannel({ id: HEALTH, name: "ships", botIsMember: true });
  world.slack.state.addUser({ id: ALICE, name: "alice" });
  await linkSlackUser(world, ALICE, "alice", 1);
  // Two days before a Monday 09:00: the week the digest sums up holds everything below.
  const now = world.sim.clock.now();
  world.sim.clock.advance(mondayNineAfter(now + 2 * DAY) - 2 * DAY - now);
  // The health channel: the default groups (queue, pause, health), with a weekly digest.
  expect(await slash(`subscribe ${SHIPS} digest=weekly`)).toContain("weekly digest");
  await subscribeChannel(world, QUIET, [SHIPS], ["queue", "pause"]);
  world.sim.clock.advance(60 * SECOND);
}, 60_000);
afterAll(async () => {
  await world?.close();
});

const apps = () => [world.yardmaster, second.app];
const outsideId = (number: number) => pushedEventId(`merged-outside:${Repo.from(SHIPS).key}#${number}`);
/** The messages of a channel about a merge outside the queue (their metadata's event), top level or not. */
function outsideNotices(channel: string) {
  return world.slack.state.messages(channel).flatMap((top) =>
    [top, ...top.replies]
      .filter((m) => m.metadata?.event_type === METADATA_EVENT_TYPE)
      .filter((m) =>
        [11, 12, 13, 14].some((n) => Number(m.metadata?.event_payload.event_id) === outsideId(n)),
      )
      .map((m) => ({ topLevel: m === top, text: m.text ?? "", blocks: JSON.stringify(m.blocks ?? []) })),
  );
}
/** Both replicas judge what is due at once (each merge claimed by one); returns how many they said. */
async function judge(): Promise<number> {
  const said = await Promise.all(apps().map((app) => app.outsideMerges!.runDue()));
  for (const app of [...apps(), ...apps()]) await app.poller!.deliver();
  return said.reduce((a, b) => a + b, 0);
}
const judgement = (number: number) =>
  world.yardmaster.store.getMergedPullJudgement(Repo.from(SHIPS), number).then((j) => j?.judgement);
const comment = (number: number, body: string) =>
  world.github.deliverIssueComment({ repository: SHIPS, number, body, author: "alice" });
/** A person merges with GitHub's merge button (the REST API, with their own token). */
const mergeButton = (number: number, login: string) =>
  fetch(`${world.github.apiUrl}/repos/${SHIPS}/pulls/${number}/merge`, {
    method: "PUT",
    headers: { authorization: `token ${world.github.userToken(login)}`, "content-type": "application/json" },
    body: JSON.stringify({ merge_method: "squash" }),
  });

describe("a pull request merged outside GitHub's merge queue (two replicas)", () => {
  it("one merged by the queue says nothing", async () => {
    await comment(11, "@yardmaster queue");
    await world.github.settle();
    world.github.mergeQueues.completeChecks(SHIPS, 11, { ci: "success" });
    world.github.mergeQueues.merge(SHIPS, "main");
    await world.github.settle();
    world.sim.clock.advance(SETTLE_MS + SECOND);
    expect(await judge()).toBe(0);
    expect(await judgement(11)).toBe("queue");
    // Its merge was told as the queue's (threaded in the channel): nothing of a merge outside it.
    await eventually(() => world.slack.state.messages(HEALTH).some((m) => m.text?.includes("#11")));
    expect(outsideNotices(HEALTH)).toEqual([]);
  });

  it("an admin's bypass of a pull request the queue dropped is said once in the health channel, with who merged it", async () => {
    await comment(12, "@yardmaster queue");
    await world.github.settle();
    expect(world.github.mergeQueues.completeChecks(SHIPS, 12, { ci: "failure" })).toMatchObject({
      removed: true,
    });
    await world.github.settle();
    // A writer may not merge past the queue; an admin may.
    const refused = await mergeButton(12, "bob");
    expect(refused.status).toBe(405);
    expect(await refused.text()).toContain("Changes must be made through the merge queue");
    expect((await mergeButton(12, "dana")).status).toBe(200);
    await world.github.settle();
    // GitHub's queue may still say it merged it: nothing before SETTLE_MS.
    expect(await judge()).toBe(0);
    world.sim.clock.advance(SETTLE_MS + SECOND);
    expect(await judge()).toBe(1);
    const [notice, ...more] = outsideNotices(HEALTH);
    expect(more).toEqual([]);
    expect(notice?.topLevel).toBe(true);
    expect(notice?.text).toBe(
      "acme/ships#12 was merged into main by @\u200bdana without going through the merge queue: it was not tested with the rest of the queue. Check that main still passes its checks.",
    );
    expect(notice?.blocks).toContain("Brass &lt;fittings&gt;");
    expect(outsideNotices(QUIET)).toEqual([]);
    expect(await judgement(12)).toBe("outside");
  });

  it("the same webhook redelivered to the other replica is not said again", async () => {
    const closed = world.github.deliveries.find(
      (d) =>
        d.event === "pull_request" &&
        d.action === "closed" &&
        (d.payload as { number: number }).number === 12,
    );
    expect(
      (await world.github.redeliver(closed!.deliveryId, `${second.url}/api/github/webhooks`)).status,
    ).toBe(200);
    world.sim.clock.advance(SETTLE_MS + SECOND);
    expect(await judge()).toBe(0);
    expect(outsideNotices(HEALTH)).toHaveLength(1);
  });

  it("a branch without a merge queue says nothing", async () => {
    expect((await mergeButton(14, "bob")).status).toBe(200);
    await world.github.settle();
    world.sim.clock.advance(SETTLE_MS + SECOND);
    expect(await judge()).toBe(0);
    expect(await judgement(14)).toBe("no-queue");
    expect(outsideNotices(HEALTH)).toHaveLength(1);
  });

  it("/mq stats and the weekly digest count it", async () => {
    world.sim.clock.advance(60 * SECOND);
    const stats = await slash(`stats ${SHIPS}`);
    expect(stats).toContain("Merged outside the queue");
    expect(stats).toContain("acme/ships#12 by @\u200bdana");
    // Its merge is not the queue's: only #11's counts as merged (in no time: the clock stood still).
    expect(stats).toContain("merged 1 (previous 7 days: 0, +1)");
    const now = world.sim.clock.now();
    world.sim.clock.advance(mondayNineAfter(now) - now);
    expect(await world.yardmaster.digests?.runDue()).toBe(1);
    const [digest] = world.slack.state
      .messages(HEALTH)
      .filter((m) => m.metadata?.event_type === DIGEST_METADATA_EVENT_TYPE);
    expect(digest?.text).toContain("Weekly digest: queue health of acme/ships");
    expect(digest?.text).toContain("merged outside the queue 1 (previous 7 days: 0, +1)");
    expect(digest?.text).toContain("merged 1 (previous 7 days: 0, +1)");
  });
});
