import { describe, expect, it } from "vitest";
import type { WorkDone } from "../../src/store/index.js";
import { Completions } from "../../src/work/completions.js";

// The completions of one turn of the event loop go to the store in one call.

function recordingStore(answer: (done: readonly WorkDone[]) => boolean[] | Error) {
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

describe("completions written together", () => {
  it("completes the runs that end in one turn in one call, each with its own answer", async () => {
    const { store, calls } = recordingStore((all) => all.map((d) => d.key !== "lost"));
    const completions = new Completions(store, "replica-a");
    const answers = await Promise.all(["a", "lost", "b"].map((key) => completions.complete(done(key))));
    expect(answers).toEqual([true, false, true]);
    expect(calls).toEqual([{ owner: "replica-a", keys: ["a", "lost", "b"] }]);
    // A run ending in a later turn is written by itself.
    expect(await completions.complete(done("c"))).toBe(true);
    expect(calls.map((c) => c.keys)).toEqual([["a", "lost", "b"], ["c"]]);
  });

  it("fails each run of the call when the store cannot write them", async () => {
    const { store } = recordingStore(() => new Error("database is locked"));
    const completions = new Completions(store, "replica-a");
    const settled = await Promise.allSettled(["a", "b"].map((key) => completions.complete(done(key))));
    expect(settled.map((s) => s.status)).toEqual(["rejected", "rejected"]);
    expect(String((settled[0] as PromiseRejectedResult).reason)).toContain("database is locked");
  });
});
