/** Slack message timestamps ("1700000000.000100": unix seconds, six digits of microseconds) and cursors. */

/** Parses a Slack ts (or a plain number of seconds, as `oldest`/`latest` may be) into microseconds. */
export function tsToMicros(ts: string): number | undefined {
  const match = /^(\d+)(?:\.(\d{0,6})\d*)?$/.exec(ts.trim());
  if (!match) return undefined;
  const seconds = Number(match[1]);
  const fraction = (match[2] ?? "").padEnd(6, "0");
  return seconds * 1_000_000 + Number(fraction);
}

export function microsToTs(micros: number): string {
  const seconds = Math.floor(micros / 1_000_000);
  const rest = micros - seconds * 1_000_000;
  return `${seconds}.${String(rest).padStart(6, "0")}`;
}

/**
 * Hands out unique, strictly increasing timestamps that follow the wall clock, like Slack's (or another
 * clock, epoch milliseconds: a test whose Yardmaster runs on the simulator's time gives Slack the same).
 */
export class TsClock {
  private last = 0;
  now: () => number = Date.now;

  next(): string {
    const now = this.now() * 1000;
    this.last = Math.max(now, this.last + 1);
    return microsToTs(this.last);
  }
}

/** Slack's cursors are opaque base64 strings; ours encode "next_ts:<ts>" (as Slack's do). */
export function encodeCursor(ts: string): string {
  return Buffer.from(`next_ts:${ts}`, "utf8").toString("base64");
}

export function decodeCursor(cursor: string): string | undefined {
  const decoded = Buffer.from(cursor, "base64").toString("utf8");
  const match = /^next_ts:(\d+\.\d{6})$/.exec(decoded);
  return match?.[1];
}
