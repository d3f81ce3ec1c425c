import { describe, expect, it } from "vitest";
import type { WorkDone } from "../../src/store/index.js";
import { Completions } from "../../src/work/completions.js";

// A kind's runs completed together: written once none is under way any more, or once enough wait.

function recordingStore(
  answer: (done: readonly WorkDone[]) => boolean[] | Error = (all) => all.map(() => true),
) {
  const calls: { owner: string; keys: string[] }[] = [];
  return {
    calls,
    store: {
      async completeWork(owner: string, done: readonly WorkDone[]) {
        calls.push({ owner, keys: done.map((d) => d.key) });
        const result = answer(done);
        if (result instanceof Error) throw result;
        return result;
      },
    },
  };
}

const done = (key: string): WorkDone => ({ kind: "poll", key, next: null });
/** Lets the event loop turn (I/O, immediates) a few times. */
const turns = async (n = 3) => {
  for (let i = 0; i < n; i += 1) await new Promise((resolve) => setImmediate(resolve));
};

describe("completions written together", () => {
  it("waits for the runs under way, then writes them all in one call, each with its own answer", async () => {
    const { store, calls } = recordingStore((all) => all.map((d) => d.key !== "lost"));
    const completions = new Completions(store, "replica-a", 8);
    const [a, lost, b] = [completions.begin(), completions.begin(), completions.begin()];
    const answers = [a.complete(done("a")), lost.complete(done("lost"))];
    await turns();
    // "b" still runs: nothing written yet.
    expect(calls).toEqual([]);
    answers.push(b.complete(done("b")));
    expect(await Promise.all(answers)).toEqual([true, false, true]);
    expect(calls).toEqual([{ owner: "replica-a", keys: ["a", "lost", "b"] }]);
  });

  it("writes those waiting once `most` wait, however many still run", async () => {
    const { store, calls } = recordingStore();
    const completions = new Completions(store, "replica-a", 2);
    const runs = ["a", "b", "c", "d"].map(() => completions.begin());
    const first = [runs[0]?.complete(done("a")), runs[1]?.complete(done("b"))];
    await Promise.all(first);
    expect(calls.map((c) => c.keys)).toEqual([["a", "b"]]);
    const third = runs[2]?.complete(done("c"));
    await turns();
    expect(calls).toHaveLength(1);
    // The last run failed: the one waiting is written without it.
    runs[3]?.abandon();
    expect(await third).toBe(true);
    expect(calls.map((c) => c.keys)).toEqual([["a", "b"], ["c"]]);
  });

  it("fails each run of the call when the store cannot write them", async () => {
    const { store } = recordingStore(() => new Error("database is locked"));
    const completions = new Completions(store, "replica-a", 8);
    const runs = [completions.begin(), completions.begin()];
    const settled = await Promise.allSettled(runs.map((run, i) => run.complete(done(String(i)))));
    expect(settled.map((s) => s.status)).toEqual(["rejected", "rejected"]);
    expect(String((settled[0] as PromiseRejectedResult).reason)).toContain("database is locked");
  });
});
