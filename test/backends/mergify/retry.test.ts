import nock from "nock";
import { describe, expect, it } from "vitest";
import {
  backoffDelayMs,
  type CallRecord,
  DEFAULT_RETRY_POLICY,
  MergeQueueError,
  MergeQueueErrorCode,
  parseRetryAfterMs,
  planRetry,
  type RetryPolicy,
} from "../../../src/backends/mergify/index.js";
import { resolveRetryPolicy } from "../../../src/backends/mergify/retry.js";
import { makeClient, ORIGIN, pauseState, queueStatus, REPO, REPO_PATH } from "./fixtures.js";

const STATUS_PATH = `${REPO_PATH}/merge-queue/status`;
const policy: RetryPolicy = { retries: 3, minDelayMs: 100, maxDelayMs: 1_000, maxElapsedMs: 10_000 };

async function rejection(promise: Promise<unknown>): Promise<MergeQueueError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MergeQueueError);
  return error as MergeQueueError;
}

function recorder() {
  const calls: CallRecord[] = [];
  return { calls, onCall: (call: CallRecord) => calls.push(call) };
}

describe("backoff", () => {
  it("grows exponentially with full jitter, capped by maxDelayMs", () => {
    const top = () => 0.999_999;
    expect(backoffDelayMs(0, policy, top)).toBe(99);
    expect(backoffDelayMs(1, policy, top)).toBe(199);
    expect(backoffDelayMs(3, policy, top)).toBe(799);
    expect(backoffDelayMs(10, policy, top)).toBe(999);
    expect(backoffDelayMs(3, policy, () => 0)).toBe(0);
  });

  it("has the documented defaults and refuses nonsense overrides", () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({
      retries: 3,
      minDelayMs: 200,
      maxDelayMs: 5_000,
      maxElapsedMs: 20_000,
    });
    expect(resolveRetryPolicy({ retries: 0 }).retries).toBe(0);
    expect(() => resolveRetryPolicy({ retries: -1 })).toThrow(RangeError);
  });
});

describe("parseRetryAfterMs", () => {
  const now = Date.parse("2025-11-05T12:00:00Z");
  it.each([
    ["120", 120_000],
    [" 0 ", 0],
    ["1.5", 1_500],
    ["Wed, 05 Nov 2025 12:00:30 GMT", 30_000],
    ["Wed, 05 Nov 2025 11:00:00 GMT", 0],
    ["soon", undefined],
    ["-5", undefined],
    [null, undefined],
  ])("%s → %s", (value, expected) => {
    expect(parseRetryAfterMs(value, now)).toBe(expected);
  });
});

describe("planRetry", () => {
  it("stops when the retries are used up", () => {
    expect(planRetry(policy, { retriesDone: 3, elapsedMs: 0 })).toEqual({
      retry: false,
      reason: "exhausted",
    });
  });

  it("honours Retry-After as given, never earlier, even beyond maxDelayMs", () => {
    expect(planRetry(policy, { retriesDone: 0, elapsedMs: 0, retryAfterMs: 300 })).toEqual({
      retry: true,
      delayMs: 300,
    });
    expect(planRetry(policy, { retriesDone: 0, elapsedMs: 0, retryAfterMs: 4_000 })).toEqual({
      retry: true,
      delayMs: 4_000,
    });
  });

  it("stops when Retry-After goes beyond the remaining time budget", () => {
    expect(planRetry(policy, { retriesDone: 0, elapsedMs: 9_000, retryAfterMs: 2_000 })).toEqual({
      retry: false,
      reason: "budget",
      retryAfterMs: 2_000,
    });
  });

  it("stops when the backoff would end after the time budget", () => {
    const decision = planRetry(policy, { retriesDone: 2, elapsedMs: 9_990, random: () => 0.5 });
    expect(decision).toEqual({ retry: false, reason: "budget" });
  });
});

describe("client retries", () => {
  it("retries a 5xx then succeeds", async () => {
    const { calls, onCall } = recorder();
    nock(ORIGIN).get(STATUS_PATH).reply(503).get(STATUS_PATH).reply(200, queueStatus());
    await expect(makeClient({ onCall }).getStatus(REPO)).resolves.toMatchObject({ mode: "parallel" });
    expect(calls.map((c) => c.status)).toEqual([503, 200]);
  });

  it("retries a network error and a timeout then succeeds", async () => {
    const { calls, onCall } = recorder();
    nock(ORIGIN)
      .get(STATUS_PATH)
      .replyWithError("socket hang up")
      .get(STATUS_PATH)
      .delay(5_000)
      .reply(200, queueStatus())
      .get(STATUS_PATH)
      .reply(200, queueStatus());
    // Wide margins both ways: a loaded machine may take tens of milliseconds to answer at all.
    await makeClient({ onCall, timeoutMs: 500 }).getStatus(REPO);
    expect(calls.map((c) => c.status)).toEqual(["network", "timeout", 200]);
  });

  it("retries the PUT pause with the same body (safe to repeat)", async () => {
    const bodies: unknown[] = [];
    const record = (body: unknown) => {
      bodies.push(body);
      return true;
    };
    nock(ORIGIN)
      .put(`${REPO_PATH}/merge-queue/pause`, record)
      .reply(502)
      .put(`${REPO_PATH}/merge-queue/pause`, record)
      .reply(200, pauseState());
    await makeClient().pause(REPO, "release freeze");
    expect(bodies).toEqual([{ reason: "release freeze" }, { reason: "release freeze" }]);
  });

  it("waits for Retry-After on a 429, then succeeds", async () => {
    const { calls, onCall } = recorder();
    nock(ORIGIN)
      .get(STATUS_PATH)
      .reply(429, { detail: "Too many requests" }, { "Retry-After": "0.06" })
      .get(STATUS_PATH)
      .reply(200, queueStatus());
    // The wait is what Retry-After asked for (60 ms), not the jittered backoff (at most 1 ms here).
    const started = performance.now();
    await makeClient({ onCall, retry: { minDelayMs: 1, maxDelayMs: 1 } }).getStatus(REPO);
    expect(calls.map((c) => c.status)).toEqual([429, 200]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
  });

  it("throws Unavailable once the retries are exhausted", async () => {
    const { calls, onCall } = recorder();
    nock(ORIGIN).get(STATUS_PATH).times(4).reply(500, { detail: "boom" });
    const error = await rejection(makeClient({ onCall, retry: { retries: 3 } }).getStatus(REPO));
    expect(error.code).toBe(MergeQueueErrorCode.Unavailable);
    expect(error.status).toBe(500);
    expect(calls).toHaveLength(4);
  });

  it("throws RateLimited once the retries are exhausted on 429, with the wait asked for", async () => {
    const { calls, onCall } = recorder();
    nock(ORIGIN).get(STATUS_PATH).times(3).reply(429, { detail: "slow down" }, { "Retry-After": "0" });
    const error = await rejection(makeClient({ onCall, retry: { retries: 2 } }).getStatus(REPO));
    expect(error.code).toBe(MergeQueueErrorCode.RateLimited);
    expect(error.status).toBe(429);
    expect(error.retryAfterSeconds).toBe(0);
    expect(error.detail).toBe("slow down");
    expect(calls).toHaveLength(3);
  });

  it("stops at once when Retry-After exceeds the time budget", async () => {
    const { calls, onCall } = recorder();
    nock(ORIGIN).get(STATUS_PATH).reply(429, {}, { "Retry-After": "60" });
    const error = await rejection(makeClient({ onCall, retry: { maxElapsedMs: 500 } }).getStatus(REPO));
    expect(error.code).toBe(MergeQueueErrorCode.RateLimited);
    expect(error.retryAfterSeconds).toBe(60);
    expect(calls).toHaveLength(1);
  });

  it("reads Retry-After as an HTTP-date", async () => {
    const inAMinute = new Date(Date.now() + 60_000).toUTCString();
    nock(ORIGIN).get(STATUS_PATH).reply(429, {}, { "Retry-After": inAMinute });
    const error = await rejection(makeClient({ retry: { maxElapsedMs: 500 } }).getStatus(REPO));
    expect(error.code).toBe(MergeQueueErrorCode.RateLimited);
    expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(58);
    expect(error.retryAfterSeconds).toBeLessThanOrEqual(61);
  });

  it("never retries other 4xx", async () => {
    for (const status of [400, 403, 404, 409, 422]) {
      const { calls, onCall } = recorder();
      const scope = nock(ORIGIN).get(STATUS_PATH).times(2).reply(status, { detail: "no" });
      await rejection(makeClient({ onCall }).getStatus(REPO));
      expect(calls).toHaveLength(1);
      expect(scope.isDone()).toBe(false);
      nock.cleanAll();
    }
  });

  it("respects maxElapsedMs however many retries are allowed", async () => {
    const { calls, onCall } = recorder();
    nock(ORIGIN).get(STATUS_PATH).times(1_000).reply(503);
    const client = makeClient({
      onCall,
      // A budget of 50 delays: the first answer would have to take a second for no retry to fit.
      retry: { retries: 1_000, minDelayMs: 20, maxDelayMs: 20, maxElapsedMs: 1_000 },
    });
    const error = await rejection(client.getStatus(REPO));
    expect(error.code).toBe(MergeQueueErrorCode.Unavailable);
    expect(calls.length).toBeGreaterThan(1);
    expect(calls.length).toBeLessThan(1_000);
  });
});
