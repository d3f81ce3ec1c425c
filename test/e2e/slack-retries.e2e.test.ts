import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { World } from "../helpers/e2e.js";
import { useSchema } from "../helpers/postgres.js";
import { ALICE, CHANNEL, pullLink, startSlackWorld, unfurlWhen } from "../helpers/slack-world.js";

/**
 * Slack's retries of a `link_shared` event over HTTP (docs/operations.md, "Slack requests"), on two
 * replicas of one PostgreSQL: an event whose first delivery was not handled is unfurled on a retry,
 * once; one whose first delivery was handled is not unfurled again on its retries.
 */
const db = useSchema("ym_slack_retries");
let world: World;
let second: string;

beforeAll(async () => {
  world = await startSlackWorld([201, 202, 203, 204], { DATABASE_URL: db.url() });
  second = `${(await world.replica()).url}/slack/events`;
});
afterAll(() => world?.close());

const share = (pull: number) =>
  world.slack.shareLink({ userId: ALICE, channelId: CHANNEL, text: pullLink(world, pull), compose: false });
const unfurlsOf = (ts: string) => world.slack.state.unfurls.of(`${CHANNEL}:${ts}`);
const unfurlCallsFor = (ts: string) =>
  world.slack.calls.filter((c) => c.method === "chat.unfurl" && String(c.args.ts) === ts);
const pendingFor = (eventBody: string) => {
  const { event_id: eventId } = JSON.parse(eventBody) as { event_id: string };
  return world.slack.events.pending().filter((p) => p.eventId === eventId);
};

describe("Slack's retries of an event", () => {
  it("unfurls on the retry a link whose first delivery failed (the unfurl call failed: answered 500)", async () => {
    world.slack.faults.fail("chat.unfurl", "internal_error");
    const shared = await share(201);
    expect(shared.posted.status).toBe(500);
    expect(unfurlsOf(shared.ts)).toEqual([]);
    expect(pendingFor(shared.posted.eventBody)).toEqual([
      expect.objectContaining({ retries: 0, reason: "http_error" }),
    ]);

    const [retry] = await world.slack.events.retry();
    expect(retry).toMatchObject({ status: 200, retryNum: 1 });
    const unfurl = await unfurlWhen(world, { channel: CHANNEL, ts: shared.ts }, pullLink(world, 201), (t) =>
      t.includes("Change 201"),
    );
    expect(unfurl.updates).toBe(1);
    expect(pendingFor(shared.posted.eventBody)).toEqual([]);
  });

  it("unfurls on a retry to the other replica a link whose delivery never reached Yardmaster", async () => {
    world.slack.events.cut(1, "before");
    const shared = await share(202);
    expect(shared.posted.status).toBe(0);
    expect(unfurlCallsFor(shared.ts)).toHaveLength(0);

    const [retry] = await world.slack.events.retry({ url: second });
    expect(retry).toMatchObject({ status: 200, retryNum: 1 });
    expect(retry?.sentHeaders["x-slack-retry-reason"]).toBe("connection_failed");
    await unfurlWhen(world, { channel: CHANNEL, ts: shared.ts }, pullLink(world, 202), () => true);
    expect(unfurlsOf(shared.ts)).toEqual([expect.objectContaining({ updates: 1 })]);
    expect(unfurlCallsFor(shared.ts)).toHaveLength(1);
  });

  it("does not unfurl again on its retries, on either replica, a link whose first delivery was handled", async () => {
    // Yardmaster handled it and answered; Slack never heard the answer (as one after its 3 seconds).
    world.slack.events.cut(1, "after");
    const shared = await share(203);
    expect(shared.posted.status).toBe(0);
    await unfurlWhen(world, { channel: CHANNEL, ts: shared.ts }, pullLink(world, 203), () => true);

    // The retry's answer comes once the event was passed over: nothing more is under way for it.
    const [toSecond] = await world.slack.events.retry({ url: second });
    expect(toSecond).toMatchObject({ status: 200, retryNum: 1 });
    const again = await world.slack.sendEventAgain(shared.posted.eventBody);
    expect(again.status).toBe(200);
    expect(unfurlCallsFor(shared.ts)).toHaveLength(1);
    expect(unfurlsOf(shared.ts)).toEqual([expect.objectContaining({ updates: 1 })]);
  });

  it("unfurls once when a failed event's retries reach both replicas at the same time", async () => {
    world.slack.events.cut(1, "before");
    const shared = await share(204);
    expect(shared.posted.status).toBe(0);

    const both = (
      await Promise.all([world.slack.events.retry(), world.slack.events.retry({ url: second })])
    ).flat();
    // One replica handled it; the other found it handled (200) or being handled (503: Slack retries later).
    expect(both.map((d) => d.status).sort()).toSatisfy(
      (statuses: number[]) => statuses[0] === 200 && [200, 503].includes(statuses[1] as number),
    );
    // A later retry (the one after a 503) finds it handled.
    for (const retry of await world.slack.events.retry()) expect(retry.status).toBe(200);
    await unfurlWhen(world, { channel: CHANNEL, ts: shared.ts }, pullLink(world, 204), () => true);
    expect(unfurlCallsFor(shared.ts)).toHaveLength(1);
    expect(unfurlsOf(shared.ts)).toEqual([expect.objectContaining({ updates: 1 })]);
  });
});
