// Fault injection, per repository, for the `/v1` API. Counted modes apply to the next N requests of the
// repository, in this order of precedence: drop, forced status, 5xx, 429, malformed body. Latency is
// added to every request; `forbidden` answers 403 to every request until cleared.

import { repositoryKey } from "./model.js";

export interface FaultConfig {
  /** Latency added to every request of the repository, in ms. */
  latencyMs?: number;
  /** The next `count` requests answer a 5xx (default 500) with `{"detail": detail}`. */
  serverErrors?: { count: number; status?: number; detail?: string };
  /** The next `count` requests answer 429 with a `Retry-After` header (seconds, default 1). */
  rateLimit?: { count: number; retryAfterSeconds?: number };
  /**
   * The next `count` requests answer their normal 2xx status with a malformed body: "not_json" (truncated
   * text) or "missing_field" (the JSON body without its first required field).
   */
  malformed?: { count: number; kind?: "not_json" | "missing_field" };
  /** The next `count` requests get their connection destroyed without a response. */
  drop?: { count: number };
  /** The next `count` requests answer `status` (e.g. 403, 409, 422) with `{"detail": detail}`. */
  forced?: { count: number; status: number; detail?: string };
  /** Every request answers 403 until cleared. */
  forbidden?: boolean;
}

export type FaultAction =
  | { kind: "drop" }
  | { kind: "status"; status: number; detail: string; headers?: Record<string, string> }
  | { kind: "malformed"; variant: "not_json" | "missing_field" };

const DEFAULT_DETAILS: Record<number, string> = {
  403: "Forbidden",
  404: "Not Found",
  409: "Conflict",
  422: "Unprocessable Entity",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

function validCount(value: unknown): boolean {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** Checks a fault configuration (e.g. from the control endpoint); returns the problems found. */
export function checkFaultConfig(config: unknown): string[] {
  if (typeof config !== "object" || config === null || Array.isArray(config))
    return ["faults must be an object"];
  const problems: string[] = [];
  const value = config as Record<string, unknown>;
  const known = ["latencyMs", "serverErrors", "rateLimit", "malformed", "drop", "forced", "forbidden"];
  for (const key of Object.keys(value)) if (!known.includes(key)) problems.push(`unknown fault: ${key}`);
  if (value.latencyMs !== undefined && !validCount(value.latencyMs))
    problems.push("latencyMs: a whole number >= 0");
  if (value.forbidden !== undefined && typeof value.forbidden !== "boolean")
    problems.push("forbidden: a boolean");
  const counted = (name: string, extra?: (item: Record<string, unknown>) => string | null) => {
    const item = value[name];
    if (item === undefined) return;
    if (typeof item !== "object" || item === null) {
      problems.push(`${name}: an object with count`);
      return;
    }
    const record = item as Record<string, unknown>;
    if (!validCount(record.count)) problems.push(`${name}.count: a whole number >= 0`);
    const problem = extra?.(record) ?? null;
    if (problem !== null) problems.push(`${name}.${problem}`);
  };
  counted("serverErrors", (item) =>
    item.status !== undefined &&
    (!validCount(item.status) || (item.status as number) < 500 || (item.status as number) > 599)
      ? "status: 500 to 599"
      : null,
  );
  counted("rateLimit", (item) =>
    item.retryAfterSeconds !== undefined && !validCount(item.retryAfterSeconds)
      ? "retryAfterSeconds: >= 0"
      : null,
  );
  counted("malformed", (item) =>
    item.kind !== undefined && item.kind !== "not_json" && item.kind !== "missing_field"
      ? 'kind: "not_json" or "missing_field"'
      : null,
  );
  counted("drop");
  counted("forced", (item) =>
    !validCount(item.status) || (item.status as number) < 100 || (item.status as number) > 599
      ? "status: an HTTP status"
      : null,
  );
  return problems;
}

export class Faults {
  private readonly byRepository = new Map<string, FaultConfig>();

  /** Replaces the repository's faults. */
  set(fullName: string, config: FaultConfig): void {
    this.byRepository.set(repositoryKey(fullName), structuredClone(config));
  }

  /** Adds to the repository's faults (the given modes replace the same modes). */
  update(fullName: string, config: FaultConfig): void {
    const key = repositoryKey(fullName);
    this.byRepository.set(key, { ...this.byRepository.get(key), ...structuredClone(config) });
  }

  /** Clears one repository's faults, or every repository's. */
  clear(fullName?: string): void {
    if (fullName === undefined) this.byRepository.clear();
    else this.byRepository.delete(repositoryKey(fullName));
  }

  get(fullName: string): FaultConfig {
    return structuredClone(this.byRepository.get(repositoryKey(fullName)) ?? {});
  }

  latencyOf(fullName: string): number {
    return this.byRepository.get(repositoryKey(fullName))?.latencyMs ?? 0;
  }

  /** The fault the next request of the repository gets (consuming one of its counts), if any. */
  take(fullName: string): FaultAction | null {
    const config = this.byRepository.get(repositoryKey(fullName));
    if (config === undefined) return null;
    if (config.forbidden === true)
      return { kind: "status", status: 403, detail: "Forbidden (simulated fault)" };
    if (consume(config.drop)) return { kind: "drop" };
    if (consume(config.forced)) {
      const status = config.forced?.status ?? 500;
      return {
        kind: "status",
        status,
        detail: config.forced?.detail ?? DEFAULT_DETAILS[status] ?? "Simulated fault",
      };
    }
    if (consume(config.serverErrors)) {
      const status = config.serverErrors?.status ?? 500;
      return {
        kind: "status",
        status,
        detail: config.serverErrors?.detail ?? DEFAULT_DETAILS[status] ?? "Server error",
      };
    }
    if (consume(config.rateLimit)) {
      const retryAfter = config.rateLimit?.retryAfterSeconds ?? 1;
      return {
        kind: "status",
        status: 429,
        detail: "Rate limit exceeded",
        headers: { "retry-after": String(retryAfter) },
      };
    }
    if (consume(config.malformed))
      return { kind: "malformed", variant: config.malformed?.kind ?? "not_json" };
    return null;
  }
}

function consume(mode: { count: number } | undefined): boolean {
  if (mode === undefined || mode.count <= 0) return false;
  mode.count -= 1;
  return true;
}
