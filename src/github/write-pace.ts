import type {
  PaceChange,
  PaceKind,
  WaitingKind,
  WaitingWrites,
  WritePaceState,
  WritePaceStore,
} from "../store/index.js";

// What the pace keeps is the store's record (src/store/shared-github-writes.ts); the rules are here.
export type { PaceChange, PaceKind, WaitingKind, WaitingWrites, WritePaceState, WritePaceStore };

/**
 * The app's write pace (docs/commands.md, "Writing to GitHub within its limits"): when the next write
 * may start, whichever replica makes it. GitHub counts its secondary limits per app, so every replica
 * asks one pace, kept in the store (`github_write_pace`, one row per app, changed in one transaction);
 * a single process may keep it in memory (`LocalWritePace`). The rules are the pure `askPace` and
 * `blockPace` below, whichever keeps the state:
 *
 * - a write starts at least `intervalMs` after the one before (any replica's);
 * - a content-creating write (a comment, a reaction) fits every window of `content`, each kept a sixtieth
 *   longer (a request reaches GitHub a moment after it starts, and GitHub counts arrivals);
 * - nothing starts before a rate-limit answer's wait has passed (`blockPace`), whoever got the answer;
 * - what a person waits for goes first across replicas too: each replica, when it asks, records the
 *   kinds of writes it has waiting (their priority, whether they create content), until a little after
 *   it said it would ask again (`WAITING_GRACE_MS`). A write may not take a slot that another replica's
 *   waiting write of a better priority could take at the same moment: it asks again an interval later,
 *   by when that replica has taken it. A replica that stops asking (killed) holds nothing up for longer
 *   than the grace.
 *
 * A replica asks only when it has a write ready (and again when told, or when a write of another kind
 * comes), so the store sees one transaction per write plus the wake-ups it was told.
 */

export interface ContentWindow {
  limit: number;
  windowMs: number;
}

export interface WriteLimits {
  /** Least time between the starts of two writes. */
  intervalMs: number;
  /** Content-creating writes allowed in any window of `windowMs`. */
  content: readonly ContentWindow[];
}

/** GitHub's published figures. */
export const GITHUB_WRITE_LIMITS: WriteLimits = {
  intervalMs: 1_000,
  content: [
    { limit: 80, windowMs: 60_000 },
    { limit: 500, windowMs: 3_600_000 },
  ],
};

/** The same rules on a faster clock (tests): every duration times `factor`. */
export function scaleWriteLimits(limits: WriteLimits, factor: number): WriteLimits {
  return {
    intervalMs: limits.intervalMs * factor,
    content: limits.content.map((w) => ({ limit: w.limit, windowMs: w.windowMs * factor })),
  };
}

/**
 * How long a replica's waiting writes hold up the lower-priority writes of the others after the moment
 * it said it would ask again (or after a start it was given, while that write is under way).
 */
export const WAITING_GRACE_MS = 10_000;

export const EMPTY_PACE: WritePaceState = {
  lastStartAt: null,
  blockedUntil: 0,
  contentStarts: [],
  waiting: {},
};

/** Where the pace is kept. */
export interface WritePaceKeeper {
  /** This process, as named in `waiting`. */
  readonly replica: string;
  /**
   * Runs `change` (pure, synchronous) on the app's pace with no other change in between (across replicas:
   * in one transaction that holds the pace), keeps the state it returns and resolves with its result.
   */
  update<T>(change: (state: WritePaceState) => PaceChange<T>): Promise<T>;
}

/** The pace of one process, in memory (a single replica, or the tests). */
export class LocalWritePace implements WritePaceKeeper {
  private state: WritePaceState = EMPTY_PACE;

  constructor(readonly replica = "local") {}

  async update<T>(change: (state: WritePaceState) => PaceChange<T>): Promise<T> {
    const { state, result } = change(this.state);
    this.state = state;
    return result;
  }
}

/** The pace every replica of the app shares, kept in the store. */
export class StoreWritePace implements WritePaceKeeper {
  constructor(
    private readonly store: WritePaceStore,
    /** The GitHub App's id: its writes share one pace. */
    private readonly app: string,
    readonly replica: string,
  ) {}

  update<T>(change: (state: WritePaceState) => PaceChange<T>): Promise<T> {
    return this.store.updateGitHubWritePace(this.app, change);
  }
}

/** A start for one write of this kind now, or when to ask again. */
export type PaceAnswer = { go: PaceKind } | { askAt: number };

export interface PaceAsk {
  replica: string;
  now: number;
  /** The kinds of this replica's writes ready to go but for the pace; none: it has nothing waiting. */
  kinds: readonly WaitingKind[];
}

/** The windows as kept: a sixtieth longer (a second a minute). */
function keptWindows(limits: WriteLimits): ContentWindow[] {
  return limits.content.map((w) => ({ limit: w.limit, windowMs: w.windowMs + Math.ceil(w.windowMs / 60) }));
}

/** When the next content-creating write fits every window, given the starts within the longest. */
function contentFreeAt(starts: readonly number[], limits: WriteLimits, now: number): number {
  let at = now;
  for (const { limit, windowMs } of keptWindows(limits)) {
    const inWindow = starts.filter((t) => t > now - windowMs);
    if (inWindow.length >= limit) at = Math.max(at, inWindow[inWindow.length - limit]! + windowMs);
  }
  return at;
}

/** Asks for a start: the best of `ask.kinds` that may go now goes, or the answer says when to ask again. */
export function askPace(
  state: WritePaceState,
  ask: PaceAsk,
  limits: WriteLimits,
  graceMs = WAITING_GRACE_MS,
): PaceChange<PaceAnswer> {
  const { replica, now } = ask;
  const longest = Math.max(0, ...keptWindows(limits).map((w) => w.windowMs));
  const contentStarts = state.contentStarts.filter((t) => t > now - longest);
  const others = Object.entries(state.waiting).filter(([id, w]) => id !== replica && w.until > now);
  const slotAt = Math.max(
    now,
    state.blockedUntil,
    state.lastStartAt === null ? now : state.lastStartAt + limits.intervalMs,
  );
  const contentAt = Math.max(slotAt, contentFreeAt(contentStarts, limits, now));
  const readyAt = (kind: PaceKind) => (kind.content ? contentAt : slotAt);
  const mine = ask.kinds.filter((k) => k.count > 0);
  const go = mine.filter((k) => readyAt(k) <= now).sort((a, b) => a.rank - b.rank)[0];
  const ahead =
    go !== undefined && others.some(([, w]) => w.kinds.some((k) => k.rank < go.rank && readyAt(k) <= now));

  let result: PaceAnswer;
  let left: WaitingKind[] = mine;
  let until: number;
  let lastStartAt = state.lastStartAt;
  let starts = contentStarts;
  if (go && !ahead) {
    result = { go: { rank: go.rank, content: go.content } };
    left = mine.map((k) => (k === go ? { ...k, count: k.count - 1 } : k)).filter((k) => k.count > 0);
    until = now + graceMs;
    lastStartAt = now;
    if (go.content) starts = [...contentStarts, now];
  } else {
    // Behind another replica's better write: it takes this slot, the next is an interval later.
    const askAt = go ? slotAt + limits.intervalMs : Math.min(...mine.map(readyAt));
    result = { askAt: mine.length === 0 ? Number.POSITIVE_INFINITY : askAt };
    until = askAt + graceMs;
  }
  const waiting: Record<string, WaitingWrites> = Object.fromEntries(others);
  if (left.length > 0) waiting[replica] = { kinds: left, until };
  return { state: { ...state, lastStartAt, contentStarts: starts, waiting }, result };
}

/** GitHub answered a rate limit: no write, from any replica, until `until`. */
export function blockPace(state: WritePaceState, until: number): PaceChange<void> {
  return { state: { ...state, blockedUntil: Math.max(state.blockedUntil, until) }, result: undefined };
}
