import { beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../../src/store/index.js";
import { at, DAY, HOUR, MINUTE_MS, SECOND, storeContract } from "./harness.js";

storeContract("webhook-jobs", ({ h }) => {
  let store: Store;
  beforeEach(async () => {
    store = await h.open();
  });

  describe("webhook deliveries", () => {
    it("claims a delivery id the first time only", async () => {
      expect(await store.claimDelivery("d-1", at(0))).toBe(true);
      expect(await store.claimDelivery("d-1", at(SECOND))).toBe(false);
      expect(await store.claimDelivery("d-2", at(SECOND))).toBe(true);
    });

    it("lets exactly one of two concurrent claims win", async () => {
      const results = await Promise.all([
        store.claimDelivery("d-race", at(0)),
        store.claimDelivery("d-race", at(0)),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it("forgets deliveries older than 7 days", async () => {
      expect(await store.claimDelivery("old", at(0))).toBe(true);
      expect(await store.claimDelivery("recent", at(2 * DAY))).toBe(true);
      expect(await store.claimDelivery("new", at(8 * DAY))).toBe(true); // prunes
      expect(await store.claimDelivery("old", at(8 * DAY))).toBe(true);
      expect(await store.claimDelivery("recent", at(8 * DAY))).toBe(false);
    });
  });

  describe("webhook jobs", () => {
    const job = (deliveryId: string, receivedAt = at(0)) => ({
      deliveryId,
      kind: "comment",
      installationId: 2_000_000_001,
      payload: { comment: { id: 7, body: "@yardmaster status" }, tags: ["é", 1] },
      receivedAt,
    });
    const A = { owner: "replica-a", until: at(30 * SECOND) };

    it("records a delivery's job once: a redelivery records nothing, and counts as a claimed delivery", async () => {
      expect(await store.recordWebhookJob(job("d-1"), A)).toBe(true);
      expect(await store.recordWebhookJob(job("d-1"), { owner: "replica-b", until: at(HOUR) })).toBe(false);
      expect(await store.claimDelivery("d-1", at(SECOND))).toBe(false);
      // A delivery claimed the old way is not recorded as a job either.
      expect(await store.claimDelivery("d-2", at(0))).toBe(true);
      expect(await store.recordWebhookJob(job("d-2"), A)).toBe(false);
      // Nobody else may take d-1 while its claim holds; once it lapsed, one replica may.
      expect(
        await store.claimLapsedWebhookJobs({ owner: "b", now: at(29 * SECOND), until: at(HOUR), limit: 10 }),
      ).toEqual([]);
      expect(
        await store.claimLapsedWebhookJobs({ owner: "b", now: at(30 * SECOND), until: at(HOUR), limit: 10 }),
      ).toEqual([job("d-1")]);
    });

    it("lets exactly one of two concurrent records of a delivery win", async () => {
      const results = await Promise.all([
        store.recordWebhookJob(job("d-race"), A),
        store.recordWebhookJob(job("d-race"), { owner: "replica-b", until: at(30 * SECOND) }),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it("renews and finishes a job only for the replica that holds it; a job done is never claimed again", async () => {
      await store.recordWebhookJob(job("d-1"), A);
      expect(await store.renewWebhookJob("d-1", "replica-b", at(HOUR))).toBe(false);
      expect(await store.renewWebhookJob("d-1", "replica-a", at(MINUTE_MS))).toBe(true);
      expect(
        await store.claimLapsedWebhookJobs({
          owner: "b",
          now: at(MINUTE_MS - 1),
          until: at(HOUR),
          limit: 10,
        }),
      ).toEqual([]);
      expect(await store.finishWebhookJob("d-1", "replica-b", at(SECOND))).toBe(false);
      expect(await store.finishWebhookJob("d-1", "replica-a", at(SECOND))).toBe(true);
      expect(await store.finishWebhookJob("d-1", "replica-a", at(SECOND))).toBe(false);
      expect(await store.renewWebhookJob("d-1", "replica-a", at(HOUR))).toBe(false);
      expect(
        await store.claimLapsedWebhookJobs({ owner: "b", now: at(DAY), until: at(2 * DAY), limit: 10 }),
      ).toEqual([]);
    });

    it("hands a lapsed job to one replica of two claiming at once, oldest first, up to the limit", async () => {
      await store.recordWebhookJob(job("d-late", at(2 * SECOND)), A);
      await store.recordWebhookJob(job("d-early", at(SECOND)), A);
      await store.recordWebhookJob(job("d-last", at(3 * SECOND)), A);
      expect(
        (
          await store.claimLapsedWebhookJobs({ owner: "b", now: at(MINUTE_MS), until: at(HOUR), limit: 2 })
        ).map((j) => j.deliveryId),
      ).toEqual(["d-early", "d-late"]);
      const [b, c] = await Promise.all([
        store.claimLapsedWebhookJobs({ owner: "b", now: at(2 * HOUR), until: at(3 * HOUR), limit: 10 }),
        store.claimLapsedWebhookJobs({ owner: "c", now: at(2 * HOUR), until: at(3 * HOUR), limit: 10 }),
      ]);
      expect([...b, ...c].map((j) => j.deliveryId).sort()).toEqual(["d-early", "d-last", "d-late"]);
      // The replica that took it over holds it now: the first one's renewal and finish fail.
      expect(await store.renewWebhookJob("d-early", "replica-a", at(4 * HOUR))).toBe(false);
      expect(await store.finishWebhookJob("d-early", "replica-a", at(2 * HOUR))).toBe(false);
    });

    it("forgets a delivery after 7 days: it is recorded again, as a job to run", async () => {
      await store.recordWebhookJob(job("d-1"), A);
      await store.finishWebhookJob("d-1", "replica-a", at(SECOND));
      await store.finishWebhookJob("d-2", "replica-a", at(2 * DAY)); // prunes the jobs done
      expect(await store.recordWebhookJob(job("d-1", at(2 * DAY)), A)).toBe(false);
      expect(await store.recordWebhookJob(job("d-1", at(8 * DAY)), A)).toBe(true);
      const lapsed = { owner: "b", now: at(9 * DAY), until: at(10 * DAY), limit: 10 };
      expect(await store.claimLapsedWebhookJobs(lapsed)).toEqual([job("d-1", at(8 * DAY))]);
    });
  });

  describe("Slack request signatures", () => {
    const MINUTE = 60 * SECOND;

    it("claims a signature the first time only", async () => {
      expect(await store.claimSlackSignature("v0=aa", at(0))).toBe(true);
      expect(await store.claimSlackSignature("v0=aa", at(SECOND))).toBe(false);
      expect(await store.claimSlackSignature("v0=bb", at(SECOND))).toBe(true);
      expect(await store.claimSlackSignature("v0=aa", at(2 * SECOND))).toBe(false);
    });

    it("lets exactly one of two concurrent claims win", async () => {
      const results = await Promise.all([
        store.claimSlackSignature("v0=race", at(0)),
        store.claimSlackSignature("v0=race", at(0)),
      ]);
      expect(results.sort()).toEqual([false, true]);
    });

    it("remembers a signature for 15 minutes, then takes a new claim of it", async () => {
      expect(await store.claimSlackSignature("v0=aa", at(0))).toBe(true);
      expect(await store.claimSlackSignature("v0=aa", at(10 * MINUTE))).toBe(false);
      expect(await store.claimSlackSignature("v0=aa", at(15 * MINUTE - 1))).toBe(false);
      expect(await store.claimSlackSignature("v0=aa", at(15 * MINUTE))).toBe(true);
      // The new claim starts a new 15 minutes.
      expect(await store.claimSlackSignature("v0=aa", at(20 * MINUTE))).toBe(false);
    });

    it("forgets signatures older than 15 minutes when it prunes", async () => {
      expect(await store.claimSlackSignature("v0=old", at(0))).toBe(true);
      expect(await store.claimSlackSignature("v0=recent", at(10 * MINUTE))).toBe(true);
      expect(await store.claimSlackSignature("v0=new", at(20 * MINUTE))).toBe(true); // prunes
      expect(await store.claimSlackSignature("v0=old", at(20 * MINUTE))).toBe(true);
      expect(await store.claimSlackSignature("v0=recent", at(20 * MINUTE))).toBe(false);
    });

    it("keeps signatures apart from webhook deliveries", async () => {
      expect(await store.claimDelivery("same", at(0))).toBe(true);
      expect(await store.claimSlackSignature("same", at(0))).toBe(true);
    });
  });
});
