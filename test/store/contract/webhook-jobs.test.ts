import { beforeEach, describe, expect, it } from "vitest";
import { claimSignaturesOnce } from "../../../src/slack/request-verification.js";
import type { Store, WebhookJob } from "../../../src/store/index.js";
import { at, DAY, MINUTE_MS as MINUTE, SECOND, storeContract } from "./harness.js";

storeContract("webhook-jobs", ({ h }) => {
  let store: Store;
  beforeEach(async () => {
    store = await h.open();
  });
  const job = (deliveryId: string, receivedAt = at(0)): WebhookJob => ({
    deliveryId,
    kind: "comment",
    installationId: 7,
    payload: { comment: { id: 1, body: "@yardmaster pause" } },
    receivedAt,
  });

  describe("webhook jobs' bodies, by delivery id", () => {
    it("keeps a job's body until it is forgotten", async () => {
      expect(await store.readWebhookJob("d-1")).toBeNull();
      await store.recordWebhookJob(job("d-1"));
      await store.recordWebhookJob(job("d-2"));
      expect(await store.readWebhookJob("d-1")).toEqual(job("d-1"));
      await store.forgetWebhookJob("d-1", at(SECOND));
      expect(await store.readWebhookJob("d-1")).toBeNull();
      expect(await store.readWebhookJob("d-2")).toEqual(job("d-2"));
    });

    it("replaces the body left of a delivery recorded again (forgotten since)", async () => {
      await store.recordWebhookJob(job("d-1"));
      await store.recordWebhookJob(job("d-1", at(8 * DAY)));
      expect(await store.readWebhookJob("d-1")).toEqual(job("d-1", at(8 * DAY)));
    });

    it("prunes the bodies left behind a week after they were received", async () => {
      await store.recordWebhookJob(job("old", at(0)));
      await store.recordWebhookJob(job("recent", at(2 * DAY)));
      await store.forgetWebhookJob("other", at(8 * DAY)); // prunes
      expect(await store.readWebhookJob("old")).toBeNull();
      expect(await store.readWebhookJob("recent")).toEqual(job("recent", at(2 * DAY)));
    });
  });

  describe("Slack signatures accepted (once-claims, scope slack-signature)", () => {
    const claim = (signature: string, ms: number, owner = "a") =>
      claimSignaturesOnce(store, owner)(signature, at(ms));

    it("claims a signature once, on whichever replica, and races to one", async () => {
      expect(await claim("v0=aa", 0)).toBe(true);
      expect(await claim("v0=aa", SECOND, "b")).toBe(false);
      expect(await claim("v0=bb", SECOND)).toBe(true);
      const raced = await Promise.all([claim("v0=race", 0, "a"), claim("v0=race", 0, "b")]);
      expect(raced.sort()).toEqual([false, true]);
    });

    it("refuses a signature seen within 15 minutes, and takes it again after", async () => {
      expect(await claim("v0=aa", 0)).toBe(true);
      expect(await claim("v0=aa", 10 * MINUTE)).toBe(false);
      expect(await claim("v0=aa", 15 * MINUTE - 1)).toBe(false);
      expect(await claim("v0=aa", 15 * MINUTE)).toBe(true);
      expect(await claim("v0=aa", 20 * MINUTE)).toBe(false);
    });

    it("keeps signatures apart from webhook deliveries", async () => {
      const lease = { owner: "a", now: at(0), until: at(MINUTE), keepMs: DAY };
      expect(await store.claimOnce("github-delivery", "same", lease)).toBe("claimed");
      expect(await claim("same", 0)).toBe(true);
    });
  });
});
