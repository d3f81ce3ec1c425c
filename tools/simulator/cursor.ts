// Opaque pagination cursors of the event log. A cursor pins the page's snapshot (the highest event id
// visible when the first page was read) and the time range, so that events appended while a client
// pages never make a page skip or repeat an event. It is base64url JSON: opaque, and not an offset.

export type CursorDirection = "first" | "after" | "before";

export interface LogCursor {
  /** Highest event id of the snapshot. */
  snapshot: number;
  /** Pinned time range, epoch ms (inclusive). */
  from: number;
  to: number;
  direction: CursorDirection;
  /** Position key (received_at ms, id) the page starts strictly after or ends strictly before. */
  key: [number, number] | null;
}

interface Encoded {
  v: 1;
  s: number;
  f: number;
  t: number;
  d: "f" | "a" | "b";
  k?: [number, number];
}

const DIRECTION_CODES: Record<CursorDirection, Encoded["d"]> = { first: "f", after: "a", before: "b" };

export function encodeCursor(cursor: LogCursor): string {
  const encoded: Encoded = {
    v: 1,
    s: cursor.snapshot,
    f: cursor.from,
    t: cursor.to,
    d: DIRECTION_CODES[cursor.direction],
  };
  if (cursor.key !== null) encoded.k = cursor.key;
  return Buffer.from(JSON.stringify(encoded), "utf8").toString("base64url");
}

function isInt(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value);
}

/** Decodes a cursor; null when it is not one this simulator issued. */
export function decodeCursor(text: string): LogCursor | null {
  if (text.length === 0 || text.length > 512 || !/^[A-Za-z0-9_-]+$/.test(text)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    return null;
  }
  if (typeof raw !== "object" || raw === null) return null;
  const value = raw as Partial<Encoded>;
  if (value.v !== 1 || !isInt(value.s) || !isInt(value.f) || !isInt(value.t)) return null;
  const direction = (Object.keys(DIRECTION_CODES) as CursorDirection[]).find(
    (name) => DIRECTION_CODES[name] === value.d,
  );
  if (direction === undefined) return null;
  let key: [number, number] | null = null;
  if (direction !== "first") {
    const k = value.k;
    if (!Array.isArray(k) || k.length !== 2 || !isInt(k[0]) || !isInt(k[1])) return null;
    key = [k[0], k[1]];
  }
  return { snapshot: value.s, from: value.f, to: value.t, direction, key };
}
