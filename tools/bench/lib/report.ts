// Figures and their printing for the benchmarks: percentiles, aligned tables, units.

/** The p-th percentile (0-100) by nearest rank; NaN for no values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((sum, v) => sum + v, 0) / values.length;
}

export function max(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((m, v) => Math.max(m, v), Number.NEGATIVE_INFINITY);
}

export function min(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((m, v) => Math.min(m, v), Number.POSITIVE_INFINITY);
}

/** Least-squares slope of `values` against their index (units per step). */
export function slope(values: readonly number[]): number {
  const n = values.length;
  if (n < 2) return Number.NaN;
  const meanX = (n - 1) / 2;
  const meanY = mean(values);
  let num = 0;
  let den = 0;
  values.forEach((y, x) => {
    num += (x - meanX) * (y - meanY);
    den += (x - meanX) ** 2;
  });
  return num / den;
}

/** A number with `digits` decimals, or "n/a". */
export function num(value: number, digits = 0): string {
  return Number.isFinite(value) ? value.toFixed(digits) : "n/a";
}

export function ms(value: number): string {
  if (!Number.isFinite(value)) return "n/a";
  return value >= 10_000 ? `${(value / 1000).toFixed(1)} s` : `${value.toFixed(0)} ms`;
}

export function seconds(valueMs: number): string {
  return Number.isFinite(valueMs) ? `${(valueMs / 1000).toFixed(2)} s` : "n/a";
}

export function mb(bytes: number): string {
  return Number.isFinite(bytes) ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : "n/a";
}

/** Rows of cells as aligned columns: text columns left-aligned, numeric ones right-aligned. */
export function table(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  indent = "  ",
): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const numeric = header.map(
    (_, i) => rows.length > 0 && rows.every((r) => /^(?:-?\d[\d.,]*|n\/a|)$/.test(r[i] ?? "")),
  );
  const line = (cells: readonly string[]) =>
    indent +
    cells
      .map((cell, i) => (numeric[i] ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/** "label   value" lines, the labels padded to one width; a value's further lines are indented to match. */
export function pairs(entries: readonly (readonly [string, string])[], indent = "  "): string {
  const width = Math.max(...entries.map(([label]) => label.length));
  const continuation = `\n${indent}${" ".repeat(width)}  `;
  return entries
    .map(([label, value]) => `${indent}${label.padEnd(width)}  ${value.split("\n").join(continuation)}`)
    .join("\n");
}

export interface Figure {
  label: string;
  value: string;
  /** What the issue asks for; printed under the value with the verdict. */
  target?: string;
  /** Whether the target is met; undefined or null: no verdict (informative). */
  met?: boolean | null;
}

/** Figures with their targets: "label  value", then "target: ... [met]" under the value. */
export function figures(rows: readonly Figure[], indent = "  "): string {
  return pairs(
    rows.map((r) => {
      const verdict = r.met === undefined || r.met === null ? "" : r.met ? "  [met]" : "  [NOT MET]";
      return [
        r.label,
        r.target === undefined ? r.value : `${r.value}\ntarget: ${r.target}${verdict}`,
      ] as const;
    }),
    indent,
  );
}

/**
 * Counts of values in fixed-width buckets, allocated once: recording does not grow the heap, so a
 * long run's memory figures are not the benchmark's own. Percentiles are exact to one bucket.
 */
export class Histogram {
  private readonly counts: Uint32Array;
  private total = 0;
  private largest = Number.NEGATIVE_INFINITY;

  /** Buckets of `resolution` from 0 to `limit`; larger values count in the last one (the max stays exact). */
  constructor(
    private readonly resolution: number,
    limit: number,
  ) {
    this.counts = new Uint32Array(Math.ceil(limit / resolution) + 1);
  }

  record(value: number): void {
    if (!Number.isFinite(value)) return;
    const index = Math.min(this.counts.length - 1, Math.max(0, Math.floor(value / this.resolution)));
    this.counts[index] = (this.counts[index] ?? 0) + 1;
    this.total += 1;
    this.largest = Math.max(this.largest, value);
  }

  get count(): number {
    return this.total;
  }

  get max(): number {
    return this.total === 0 ? Number.NaN : this.largest;
  }

  /** The p-th percentile (nearest rank), as the upper edge of its bucket; NaN when empty. */
  percentile(p: number): number {
    if (this.total === 0) return Number.NaN;
    const rank = Math.max(1, Math.ceil((p / 100) * this.total));
    let seen = 0;
    for (let i = 0; i < this.counts.length; i++) {
      seen += this.counts[i] ?? 0;
      if (seen >= rank) return Math.min((i + 1) * this.resolution, this.largest);
    }
    return this.largest;
  }
}
