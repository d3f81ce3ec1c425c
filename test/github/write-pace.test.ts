import { describe, expect, it } from "vitest";
import {
  askPace,
  blockPace,
  EMPTY_PACE,
  type WaitingKind,
  type WriteLimits,
  type WritePaceState,
} from "../../src/github/write-pace.js";

// The pace's rules alone (src/github/write-pace.ts), as every replica applies them to the state they
// share; the queue that asks is tested in github-writes.test.ts, the store that keeps it in the contract.

const LIMITS: WriteLimits = { intervalMs: 1_000, content: [{ limit: 2, windowMs: 60_000 }] };
const T0 = Date.parse("2025-11-05T12:00:00Z");
const answer = (count = 1): WaitingKind => ({ rank: 0, content: true, count });
const edit = (count = 1): WaitingKind => ({ rank: 0, content: false, count });
const reaction = (count = 1): WaitingKind => ({ rank: 2, content: true, count });
const deletion = (count = 1): WaitingKind => ({ rank: 2, content: false, count });

function ask(state: WritePaceState, replica: string, at: number, kinds: WaitingKind[]) {
  return askPace(state, { replica, now: T0 + at, kinds }, LIMITS, 5_000);
}

describe("the app's write pace", () => {
  it("gives one start per interval, whichever replica asks", () => {
    const first = ask(EMPTY_PACE, "a", 0, [edit()]);
    expect(first.result).toEqual({ go: { rank: 0, content: false } });
    const second = ask(first.state, "b", 10, [edit()]);
    expect(second.result).toEqual({ askAt: T0 + 1_000 });
    const third = ask(second.state, "b", 1_000, [edit()]);
    expect(third.result).toEqual({ go: { rank: 0, content: false } });
  });

  it("keeps content creation within its windows (a sixtieth longer), letting edits through", () => {
    let state = ask(EMPTY_PACE, "a", 0, [answer()]).state;
    state = ask(state, "b", 1_000, [reaction()]).state;
    const full = ask(state, "a", 2_000, [answer(), deletion()]);
    // The window is full until the first creation leaves it (61 s): the deletion goes.
    expect(full.result).toEqual({ go: { rank: 2, content: false } });
    const later = ask(full.state, "b", 3_000, [answer()]);
    expect(later.result).toEqual({ askAt: T0 + 61_000 });
  });

  it("turns a reaction back while another replica's answer waits for the same start", () => {
    let state = ask(EMPTY_PACE, "a", 0, [edit()]).state;
    // b's answer asked before the slot came; told to come back at 1 s.
    const b = ask(state, "b", 100, [answer()]);
    expect(b.result).toEqual({ askAt: T0 + 1_000 });
    state = b.state;
    const a = ask(state, "a", 1_000, [reaction()]);
    expect(a.result).toEqual({ askAt: T0 + 2_000 });
    const bAgain = ask(a.state, "b", 1_010, [answer()]);
    expect(bAgain.result).toEqual({ go: { rank: 0, content: true } });
    // b has nothing left waiting: a's reaction takes the next start.
    expect(ask(bAgain.state, "a", 2_010, [reaction()]).result).toEqual({ go: { rank: 2, content: true } });
  });

  it("lets a deletion go while another replica's answer waits for the content window", () => {
    let state = ask(EMPTY_PACE, "a", 0, [answer()]).state;
    state = ask(state, "a", 1_000, [answer()]).state;
    state = ask(state, "b", 2_000, [answer()]).state;
    expect(ask(state, "a", 3_000, [deletion()]).result).toEqual({ go: { rank: 2, content: false } });
  });

  it("forgets a replica's waiting writes a grace after it said it would ask again (a killed replica)", () => {
    let state = ask(EMPTY_PACE, "a", 0, [edit()]).state;
    state = ask(state, "b", 100, [answer(3)]).state; // asks again at 1 s, then never does
    expect(ask(state, "a", 1_000, [deletion()]).result).toEqual({ askAt: T0 + 2_000 });
    expect(ask(state, "a", 6_000, [deletion()]).result).toEqual({ go: { rank: 2, content: false } });
  });

  it("clears a replica's waiting writes when it asks with none", () => {
    let state = ask(EMPTY_PACE, "b", 0, [answer(2)]).state;
    expect(Object.keys(state.waiting)).toEqual(["b"]);
    state = ask(state, "b", 10, []).state;
    expect(state.waiting).toEqual({});
  });

  it("starts nothing, for any replica, before a rate limit's wait has passed", () => {
    let state = ask(EMPTY_PACE, "a", 0, [answer()]).state;
    state = blockPace(state, T0 + 30_000).state;
    expect(ask(state, "b", 5_000, [edit()]).result).toEqual({ askAt: T0 + 30_000 });
    // An earlier wait told later changes nothing.
    state = blockPace(state, T0 + 10_000).state;
    expect(ask(state, "b", 30_000, [edit()]).result).toEqual({ go: { rank: 0, content: false } });
  });
});
