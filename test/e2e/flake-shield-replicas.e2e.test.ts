import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pushedEventId } from "../../src/backends/github/queue-events.js";
import { Repo } from "../../src/repo.js";
import { METADATA_EVENT_TYPE } from "../../src/slack/slack-poster.js";
import type { Yardmaster } from "../../src/yardmaster.js";
import { eventually, startWorld, subscribeChannel, type World } from "../helpers/e2e.js";
import { useSchema } from "../helpers/postgres.js";

/**
 * The flake shield on two replicas of one PostgreSQL (docs/notifications.md, "The flake shield"): GitHub
 * delivers the removal of a pull request whose check failed for two others to both replicas at once (a
 * delivery that timed out at one, redelivered to the other): it is queued again once, and the channel
 * hears it once.
 */
const db = useSchema("ym_shield");
const SHIPS = "acme/ships";
const CHANNEL = "C0SHIPS";
let world: World;
let second: { app: Yardmaster; url: string };

beforeAll(async () => {
  world = await startWorld({
    DATABASE_URL: db.url(),
    MERGE_QUEUE_PROVIDER: "github",
    MERGE_QUEUE_API_TOKEN: "",
  });
  second = await world.replica();
  const { state } = world.github;
  state.addRepository(SHIPS);
  state.setPermission(SHIPS, "bob", "write");
  world.github.mergeQueues.enable(SHIPS, "main", { requiredChecks: ["ci/test"] });
  for (const number of [51, 52, 53])
    state.addPullRequest({ repository: SHIPS, number, author: "bob", title: `Part ${number}`, base: "main" });
  await subscribeChannel(world, CHANNEL, [SHIPS]);
  await world.yardmaster.store.putFlakeShield({
    repository: Repo.from(SHIPS),
    enabled: true,
    changedBy: "bob",
    surface: "slack",
    changedAt: new Date(world.sim.clock.now()),
  });
  world.sim.clock.advance(60_000);
}, 60_000);
afterAll(() => world?.close());

const enqueue = (number: number) =>
  world.github.mergeQueues.enqueue(
    world.github.state.getIssue(SHIPS, number)!,
    world.github.state.getUser("bob")!,
    {
      jump: false,
      expectedHeadOid: null,
    },
  );
const enqueued = (number: number) =>
  world.github.deliveries.filter(
    (d) =>
      d.event === "pull_request" &&
      d.action === "enqueued" &&
      (d.payload as { number: number }).number === number,
  );
const dequeued = (number: number) =>
  world.github.deliveries.filter(
    (d) =>
      d.event === "pull_request" &&
      d.action === "dequeued" &&
      (d.payload as { number: number }).number === number,
  );
/** The channel's notices of an event, by its id. */
const noticesOf = (eventId: number) =>
  world.slack.state
    .messages(CHANNEL)
    .flatMap((top) => [top, ...top.replies])
    .filter((m) => m.metadata?.event_type === METADATA_EVENT_TYPE)
    .filter((m) => Number(m.metadata?.event_payload.event_id) === eventId);

describe("the flake shield on two replicas", () => {
  it("queues again once, and says so once, when both replicas hear the removal at once", async () => {
    for (const number of [51, 52]) {
      enqueue(number);
      await world.github.settle();
      world.github.mergeQueues.completeChecks(SHIPS, number, { "ci/test": "failure" });
      await world.github.settle();
      await eventually(
        () => noticesOf(pushedEventId(`delivery:${dequeued(number)[0]?.deliveryId}`)).length > 0,
      );
    }
    enqueue(53);
    await world.github.settle();
    // GitHub cannot reach Yardmaster while #53 is removed; then its webhooks reach both replicas at once.
    const webhookUrl = `${world.url}/api/github/webhooks`;
    const from = world.github.deliveries.length;
    world.github.setWebhookUrl("http://127.0.0.1:9/api/github/webhooks");
    world.github.mergeQueues.completeChecks(SHIPS, 53, { "ci/test": "failure" });
    await world.github.settle();
    world.github.setWebhookUrl(webhookUrl);
    const missed = world.github.deliveries.slice(from).filter((d) => d.status === null);
    expect(missed.map((d) => `${d.event}.${d.action}`)).toContain("pull_request.dequeued");
    for (const d of missed) {
      await Promise.all(
        [world.url, second.url].map((url) =>
          world.github.deliverWebhook(d.event, d.payload, {
            deliveryId: d.deliveryId,
            url: `${url}/api/github/webhooks`,
          }),
        ),
      );
    }
    await world.github.settle();
    // Both replicas took the removal (each answered it).
    const removalId = dequeued(53)[0]?.deliveryId;
    const answered = world.github.deliveries.filter((d) => d.deliveryId === removalId && d.status === 200);
    expect(answered.map((d) => d.url).sort()).toEqual(
      [world.url, second.url].map((u) => `${u}/api/github/webhooks`).sort(),
    );
    // Queued again once: one enqueuePullRequest from the app, by one replica.
    const mutations = world.github.requests.filter(
      (r) => r.path.endsWith("/graphql") && JSON.stringify(r.body ?? "").includes("enqueuePullRequest"),
    );
    expect(mutations).toHaveLength(1);
    expect(world.github.mergeQueues.entries(SHIPS, "main").map((e) => e.pull.number)).toEqual([53]);
    expect(enqueued(53)).toHaveLength(2);
    const retries = await world.yardmaster.store.listShieldRetries(Repo.from(SHIPS), {
      from: new Date(0),
      to: new Date(world.sim.clock.now() + 60_000),
    });
    expect(retries.map((r) => [r.pull, r.outcome])).toEqual([[53, "requeued"]]);
    // The channel hears the removal once, saying it was queued again.
    const removal = pushedEventId(`delivery:${dequeued(53)[0]?.deliveryId}`);
    await world.yardmaster.poller!.tick();
    await second.app.poller!.tick();
    const said = await eventually(() => (noticesOf(removal).length > 0 ? noticesOf(removal) : undefined));
    expect(said).toHaveLength(1);
    expect(JSON.stringify(said[0]?.blocks)).toContain(
      "ci/test is failing for everyone: queued again, attempt 2 of 2",
    );
  });
});
