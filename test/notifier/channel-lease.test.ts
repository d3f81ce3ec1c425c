import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ChannelLease, DELIVERY_LEASE_MS, LEASE_RENEW_MS } from "../../src/notifier/channel-lease.js";
import { openStore, type Store } from "../../src/store/index.js";

let store: Store;
let now: Date;
const clock = () => now;

beforeEach(async () => {
  store = await openStore({ kind: "sqlite", path: ":memory:" });
  now = new Date("2026-01-01T10:00:00Z");
});

afterEach(() => {
  vi.useRealTimers();
});

/** The time moves on by `ms`, on the lease's clock and the timers' alike. */
async function pass(ms: number): Promise<void> {
  now = new Date(now.getTime() + ms);
  await vi.advanceTimersByTimeAsync(ms);
}

describe("a channel's delivery lease", () => {
  it("is renewed by its heartbeat while the pass waits, so no other replica takes the channel", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const lease = await ChannelLease.acquire(store, "C1", "replica-1", clock);
    expect(lease).not.toBeNull();
    expect(await ChannelLease.acquire(store, "C1", "replica-2", clock)).toBeNull();
    // A Slack call that takes three leases' time: the heartbeat keeps the channel.
    for (let i = 0; i < (3 * DELIVERY_LEASE_MS) / LEASE_RENEW_MS; i++) await pass(LEASE_RENEW_MS);
    expect(await store.tryAcquireLease("deliver:C1", "replica-2", now, DELIVERY_LEASE_MS)).toBe(false);
    expect(await lease?.held()).toBe(true);
    await lease?.release();
    const other = await ChannelLease.acquire(store, "C1", "replica-2", clock);
    expect(other).not.toBeNull();
    await other?.release();
  });

  it("lapses DELIVERY_LEASE_MS after its holder stops renewing it (a dead replica), and is then taken over", async () => {
    // A replica killed while holding it: its last renewal, then nothing.
    expect(await store.tryAcquireLease("deliver:C1", "dead", now, DELIVERY_LEASE_MS)).toBe(true);
    now = new Date(now.getTime() + DELIVERY_LEASE_MS - 1);
    expect(await ChannelLease.acquire(store, "C1", "replica-2", clock)).toBeNull();
    now = new Date(now.getTime() + 1);
    const lease = await ChannelLease.acquire(store, "C1", "replica-2", clock);
    expect(lease).not.toBeNull();
    await lease?.release();
  });

  it("tells the pass once another replica has the channel (its own lapsed meanwhile)", async () => {
    const lease = await ChannelLease.acquire(store, "C1", "replica-1", clock);
    now = new Date(now.getTime() + DELIVERY_LEASE_MS);
    expect(await store.tryAcquireLease("deliver:C1", "replica-2", now, DELIVERY_LEASE_MS)).toBe(true);
    expect(await lease?.held()).toBe(false);
    await lease?.release();
    // Its release leaves the other replica's lease alone.
    expect(await store.tryAcquireLease("deliver:C1", "replica-3", now, DELIVERY_LEASE_MS)).toBe(false);
  });
});
