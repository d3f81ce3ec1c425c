import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  GITHUB_WRITE_LIMITS,
  GitHubWrites,
  rateLimitWaitMs,
  scaleWriteLimits,
  type Write,
  WriteCancelled,
  type WriteKind,
  type WriteLimits,
  type WritePriority,
} from "../../src/github/github-writes.js";
import { LocalWritePace, type WritePaceKeeper } from "../../src/github/write-pace.js";
import { createLogger } from "../../src/logger.js";

/** An error as Octokit throws it: status, message, response headers. */
function httpError(status: number, message = "x", headers: Record<string, string> = {}) {
  return Object.assign(new Error(message), { status, response: { headers } });
}

/**
 * A queue on fake timers that records when (ms from the start) each write was sent, and in what order.
 * Replicas are queues given one pace (as the store's is shared) and one `sent` list.
 */
function queue(
  limits: WriteLimits = GITHUB_WRITE_LIMITS,
  retry = {},
  shared: { pace?: WritePaceKeeper; sent?: { name: string; at: number; attempt: number }[] } = {},
) {
  const t0 = Date.now();
  const sent = shared.sent ?? [];
  const limitedStatuses: number[] = [];
  const writes = new GitHubWrites({
    logger: createLogger({ level: "silent" }),
    limits,
    retry,
    ...(shared.pace ? { pace: shared.pace } : {}),
    onRateLimited: (status) => limitedStatuses.push(status),
  });
  /** `answers`: what each attempt does, in turn (an Error is thrown); the last one repeats. */
  const write = (
    name: string,
    kind: WriteKind = "comment",
    priority: WritePriority = "answer",
    answers: unknown[] = ["ok"],
    signal?: AbortSignal,
  ) => {
    const w: Write<unknown> = {
      kind,
      priority,
      what: name,
      ...(signal ? { signal } : {}),
      send: async (request, attempt) => {
        expect(request.retries).toBe(0);
        sent.push({ name, at: Date.now() - t0, attempt });
        const answer = answers[Math.min(attempt, answers.length) - 1];
        if (answer instanceof Error) throw answer;
        return answer;
      },
    };
    const result = writes.run(w);
    result.catch(() => undefined);
    return result;
  };
  return { writes, write, sent, limitedStatuses, names: () => sent.map((s) => s.name) };
}

describe("the app's GitHub write queue", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: new Date("2025-11-05T12:00:00Z") });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("sends one write at a time, each a second after the one before", async () => {
    const q = queue();
    const done = Promise.all([q.write("a"), q.write("b", "edit"), q.write("c", "reaction")]);
    await vi.advanceTimersByTimeAsync(5_000);
    await done;
    expect(q.sent.map((s) => [s.name, s.at])).toEqual([
      ["a", 0],
      ["b", 1_000],
      ["c", 2_000],
    ]);
  });

  it("sends answers before 👀 and 👀 before final reactions, whatever the order they came in", async () => {
    const q = queue();
    q.write("👍 1", "reaction", "outcome");
    q.write("👀 2", "reaction", "seen");
    q.write("summary 2", "comment", "answer");
    q.write("👍 3", "reaction", "outcome");
    q.write("summary 3", "edit", "answer");
    await vi.advanceTimersByTimeAsync(10_000);
    // The pace is asked (a promise) before the first write starts, by when all five are queued: by
    // priority, first come first.
    expect(q.names()).toEqual(["summary 2", "summary 3", "👀 2", "👍 1", "👍 3"]);
  });

  it("keeps content creation within every window, and lets edits through meanwhile", async () => {
    const q = queue({ intervalMs: 10, content: [{ limit: 3, windowMs: 1_000 }] });
    for (const name of ["c1", "c2", "c3", "c4"]) q.write(name, "comment");
    q.write("r5", "reaction", "outcome");
    q.write("e6", "edit", "outcome");
    q.write("d7", "delete", "outcome");
    await vi.advanceTimersByTimeAsync(5_000);
    expect(q.sent.map((s) => [s.name, s.at])).toEqual([
      ["c1", 0],
      ["c2", 10],
      ["c3", 20],
      ["e6", 30],
      ["d7", 40],
      // c1 leaves the window (kept a sixtieth longer: 1017 ms) at 1017 ms, c2 at 1027 ms.
      ["c4", 1_017],
      ["r5", 1_027],
    ]);
  });

  it("has GitHub's figures by default: 80 creations in any minute (and a second), then the 81st waits", async () => {
    const q = queue();
    for (let i = 1; i <= 81; i++) q.write(`c${i}`, "comment");
    await vi.advanceTimersByTimeAsync(200_000);
    // At one a second, 80 fit in a minute anyway: the minute's limit binds only on a faster pace.
    expect(q.sent.at(-1)).toEqual({ name: "c81", at: 80_000, attempt: 1 });
    const fast = queue({ intervalMs: 100, content: GITHUB_WRITE_LIMITS.content });
    for (let i = 1; i <= 81; i++) fast.write(`c${i}`, "comment");
    await vi.advanceTimersByTimeAsync(200_000);
    expect(fast.sent[79]?.at).toBe(7_900);
    expect(fast.sent[80]?.at).toBe(61_000);
  });

  it("on a secondary rate limit, sends nothing until exactly its retry-after, then the same write again", async () => {
    const q = queue();
    const limited = httpError(403, "You have exceeded a secondary rate limit", { "retry-after": "7" });
    const a = q.write("a", "comment", "answer", [limited, "done"]);
    q.write("b", "reaction", "outcome");
    await vi.advanceTimersByTimeAsync(20_000);
    await expect(a).resolves.toBe("done");
    expect(q.sent).toEqual([
      { name: "a", at: 0, attempt: 1 },
      { name: "a", at: 7_000, attempt: 2 },
      { name: "b", at: 8_000, attempt: 1 },
    ]);
    expect(q.writes.stats).toMatchObject({ sent: 2, rateLimited: 1, failed: 0 });
    // The metrics hear of it (yardmaster_github_rate_limited_total).
    expect(q.limitedStatuses).toEqual([403]);
  });

  it("waits for x-ratelimit-reset when the primary limit is spent, and a minute when GitHub says nothing", () => {
    const now = Date.now();
    const reset = String(Math.floor(now / 1000) + 30);
    expect(
      rateLimitWaitMs(
        httpError(403, "API rate limit exceeded", {
          "x-ratelimit-remaining": "0",
          "x-ratelimit-reset": reset,
        }),
        now,
        60_000,
      ),
    ).toBe(30_000);
    expect(rateLimitWaitMs(httpError(429, "Too many"), now, 60_000)).toBe(60_000);
    expect(rateLimitWaitMs(httpError(403, "You have exceeded a secondary rate limit"), now, 60_000)).toBe(
      60_000,
    );
    expect(rateLimitWaitMs(httpError(429, "x", { "retry-after": "3" }), now, 60_000)).toBe(3_000);
    // A 403 that is about permissions is no rate limit: the write fails at once.
    expect(rateLimitWaitMs(httpError(403, "Resource not accessible by integration"), now, 60_000)).toBeNull();
    expect(rateLimitWaitMs(httpError(500, "x", { "retry-after": "3" }), now, 60_000)).toBeNull();
  });

  it("tries a write GitHub answered 5xx again after 1 s, 4 s, 9 s, letting the others go meanwhile", async () => {
    const q = queue();
    const failing = q.write("a", "comment", "answer", [httpError(500)]);
    q.write("b", "reaction", "outcome");
    await vi.advanceTimersByTimeAsync(30_000);
    await expect(failing).rejects.toMatchObject({ status: 500 });
    expect(q.sent.map((s) => [s.name, s.at, s.attempt])).toEqual([
      ["a", 0, 1],
      ["a", 1_000, 2],
      ["b", 2_000, 1],
      ["a", 1_000 + 4_000, 3],
      ["a", 5_000 + 9_000, 4],
    ]);
    expect(q.writes.stats).toMatchObject({ sent: 1, failed: 1 });
  });

  it("fails at once on an answer that no retry can change (422, a 403 about permissions)", async () => {
    const q = queue();
    const invalid = q.write("a", "comment", "answer", [httpError(422, "Validation Failed")]);
    const forbidden = q.write("b", "comment", "answer", [httpError(403, "Resource not accessible")]);
    await vi.advanceTimersByTimeAsync(5_000);
    await expect(invalid).rejects.toMatchObject({ status: 422 });
    await expect(forbidden).rejects.toMatchObject({ status: 403 });
    expect(q.limitedStatuses).toEqual([]);
    expect(q.sent).toHaveLength(2);
  });

  it("never sends a write cancelled before its turn", async () => {
    const q = queue();
    const cancel = new AbortController();
    q.write("a");
    const eyes = q.write("👀", "reaction", "seen", ["ok"], cancel.signal);
    await vi.advanceTimersByTimeAsync(500);
    cancel.abort();
    await expect(eyes).rejects.toBeInstanceOf(WriteCancelled);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(q.names()).toEqual(["a"]);
    expect(q.writes.stats.cancelled).toBe(1);
  });

  it("scales every duration and keeps the counts", () => {
    expect(scaleWriteLimits(GITHUB_WRITE_LIMITS, 0.1)).toEqual({
      intervalMs: 100,
      content: [
        { limit: 80, windowMs: 6_000 },
        { limit: 500, windowMs: 360_000 },
      ],
    });
  });

  describe("replicas sharing one pace (the store's, here in memory)", () => {
    /** Two queues, as two replicas would be, on one pace (each named as its replica). */
    function replicas(limits: WriteLimits = GITHUB_WRITE_LIMITS) {
      const state = new LocalWritePace("a");
      const sent: { name: string; at: number; attempt: number }[] = [];
      const paceOf = (replica: string): WritePaceKeeper => ({
        replica,
        update: (change) => state.update(change),
      });
      return {
        a: queue(limits, {}, { pace: paceOf("a"), sent }),
        b: queue(limits, {}, { pace: paceOf("b"), sent }),
        sent,
      };
    }

    it("start their writes a second apart between them, not each", async () => {
      const { a, b, sent } = replicas();
      for (let i = 1; i <= 3; i++) {
        a.write(`a${i}`);
        b.write(`b${i}`);
      }
      await vi.advanceTimersByTimeAsync(10_000);
      const at = sent.map((s) => s.at).sort((x, y) => x - y);
      expect(at).toEqual([0, 1_000, 2_000, 3_000, 4_000, 5_000]);
    });

    it("keep content creation within the windows between them", async () => {
      const { a, b, sent } = replicas({ intervalMs: 10, content: [{ limit: 4, windowMs: 1_200 }] });
      for (let i = 1; i <= 3; i++) {
        a.write(`a${i}`, "reaction", "outcome");
        b.write(`b${i}`, "comment");
      }
      await vi.advanceTimersByTimeAsync(5_000);
      const at = sent.map((s) => s.at).sort((x, y) => x - y);
      // Four in the window (kept 20 ms longer: 1,220 ms), then the fifth and sixth as the first leave it.
      expect(at.slice(0, 4).every((t) => t < 100)).toBe(true);
      expect(at[4]).toBe(at[0]! + 1_220);
      expect(at[5]).toBe(at[1]! + 1_220);
    });

    it("write one replica's answers before the other's reactions", async () => {
      const { a, b, sent } = replicas();
      // a's first reaction goes at once and a asks for the next slot (a second later) before b's
      // answers come: a asks first, and is turned back while b's answers wait.
      a.write("a 👍 1", "reaction", "outcome");
      a.write("a 👍 2", "reaction", "outcome");
      a.write("a 👍 3", "reaction", "outcome");
      await vi.advanceTimersByTimeAsync(500);
      b.write("b summary 1", "comment", "answer");
      b.write("b summary 2", "edit", "answer");
      await vi.advanceTimersByTimeAsync(10_000);
      expect(sent.map((s) => [s.name, s.at])).toEqual([
        ["a 👍 1", 0],
        ["b summary 1", 1_000],
        ["b summary 2", 2_000],
        ["a 👍 2", 3_000],
        ["a 👍 3", 4_000],
      ]);
    });

    it("all wait for a rate limit's retry-after that one of them was answered", async () => {
      const { a, b, sent } = replicas();
      const limited = httpError(403, "You have exceeded a secondary rate limit", { "retry-after": "7" });
      a.write("a1", "comment", "answer", [limited, "done"]);
      await vi.advanceTimersByTimeAsync(0);
      b.write("b1", "reaction", "outcome");
      await vi.advanceTimersByTimeAsync(20_000);
      expect(sent.map((s) => [s.name, s.at, s.attempt])).toEqual([
        ["a1", 0, 1],
        ["a1", 7_000, 2],
        ["b1", 8_000, 1],
      ]);
    });
  });
});
