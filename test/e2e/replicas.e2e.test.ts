import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Repo } from "../../src/repo.js";
import { METADATA_EVENT_TYPE } from "../../src/slack/slack-poster.js";
import type { Yardmaster } from "../../src/yardmaster.js";
import {
  commentWebhookPayload,
  linkSlackUser,
  startWorld,
  tickReplicas,
  type World,
} from "../helpers/e2e.js";
import { useSchema } from "../helpers/postgres.js";

/**
 * Several replicas on one PostgreSQL (docs/operations.md, "Several replicas"): commands are served by any replica and
 * the poller's work is shared, so nothing is polled or notified twice.
 */
const db = useSchema("ym_replicas");
const REPO = "acme/sprockets";
const CHANNEL = "C0REPL";
const ALICE = "U0ALICE";
let world: World;
let second: { app: Yardmaster; url: string };

beforeAll(async () => {
  world = await startWorld({ DATABASE_URL: db.url() });
  second = await world.replica();
  world.sim.state.addRepository(REPO, { branches: ["main"] });
  world.github.state.addRepository(REPO);
  world.github.state.setPermission(REPO, "alice", "write");
  world.github.state.addPullRequest({
    repository: REPO,
    number: 1,
    author: "alice",
    title: "One",
    base: "main",
  });
  world.slack.state.addChannel({ id: CHANNEL, name: "replicas", botIsMember: true });
  world.slack.state.addUser({ id: ALICE, name: "alice" });
  await linkSlackUser(world, ALICE, "alice", 1);
  await world.yardmaster.store.putSubscription({
    channelId: CHANNEL,
    teamId: "T0001",
    repository: Repo.from(REPO),
    branchGlob: null,
    groups: ["queue", "checks", "pause"],
    createdBy: "alice",
    // On the merge queue's clock, which stamps the events it is compared with (not the machine's).
    createdAt: new Date(world.sim.clock.now()),
  });
  world.sim.clock.advance(5_000);
});
afterAll(async () => {
  await world?.close();
});

describe("replicas on one PostgreSQL", () => {
  it("share the poller's work: every event is notified once, whichever replica ticks", async () => {
    world.sim.state.relayCommand(REPO, {
      body: "@mergifyio queue",
      pull_request: { number: 1, title: "One", base_ref: "main", author: { id: 1, login: "alice" } },
    });
    for (let i = 0; i < 3; i++) {
      await tickReplicas([world.yardmaster, second.app]);
      world.sim.clock.advance(40_000);
    }
    await tickReplicas([world.yardmaster, second.app]);
    const ids = world.slack.state
      .messages(CHANNEL)
      .flatMap((m) => [m, ...m.replies])
      .filter((m) => m.metadata?.event_type === METADATA_EVENT_TYPE)
      .map((m) => Number(m.metadata?.event_payload.event_id));
    const expected = world.sim.state
      .events(REPO)
      .filter((e) => /^action\.queue\.(enter|leave|merged|change|checks_start|checks_end)$/.test(e.type));
    expect(expected.length).toBeGreaterThan(4);
    expect(ids.sort()).toEqual(expected.map((e) => e.id).sort());
  });

  it("serve a command on any replica, once per GitHub delivery", async () => {
    const payload = commentWebhookPayload(world, REPO, 1, "@yardmaster pause from a replica", 77);
    const before = world.sim.state.events(REPO).filter((e) => e.type.startsWith("queue.pause")).length;
    world.github.setWebhookUrl(`${world.url}/api/github/webhooks`);
    await world.github.deliverWebhook("issue_comment", payload, { deliveryId: "same-delivery" });
    // GitHub redelivers the same delivery to the other replica: it runs nothing.
    world.github.setWebhookUrl(`${second.url}/api/github/webhooks`);
    await world.github.deliverWebhook("issue_comment", payload, { deliveryId: "same-delivery" });
    world.github.setWebhookUrl(`${world.url}/api/github/webhooks`);
    expect(world.sim.state.pauseData(REPO)).toMatchObject({ paused: true, reason: "from a replica" });
    expect(world.sim.state.events(REPO).filter((e) => e.type.startsWith("queue.pause")).length).toBe(
      before + 1,
    );
  });

  it("refuse a signed Slack request replayed to another replica: it ran once", async () => {
    const pauses = () => world.sim.state.events(REPO).filter((e) => e.type.startsWith("queue.pause")).length;
    const before = pauses();
    world.slack.setEventsUrl(`${world.url}/slack/events`);
    const sent = await world.slack.sendSlashCommand({
      text: `pause ${REPO} once from Slack`,
      userId: ALICE,
      channelId: CHANNEL,
    });
    expect(sent.status).toBe(200);
    await world.slack.waitFor(
      () => world.slack.state.responses.find((r) => r.responseUrl === sent.responseUrl),
      10_000,
    );
    expect(world.sim.state.pauseData(REPO)).toMatchObject({ paused: true, reason: "once from Slack" });
    expect(pauses()).toBe(before + 1);

    const replay = await world.slack.resend(sent, { url: `${second.url}/slack/events` });
    expect(replay.status).toBe(401);
    expect(pauses()).toBe(before + 1);
  });
});
