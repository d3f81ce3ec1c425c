import { HttpError } from "./http.js";

/** Which requests a fault applies to: a method, and a path (exact, with or without `/api/v3`, or a RegExp). */
export interface RequestMatch {
  method?: string;
  path: string | RegExp;
}

export interface FailureFault extends RequestMatch {
  /** The status answered, e.g. 500 or 502. */
  status: number;
  /** How many of the next matching requests fail; default 1. */
  count?: number;
  /** Default "Server Error". */
  message?: string;
}

export function matchesRequest(match: RequestMatch, method: string, fullPath: string): boolean {
  if (match.method && match.method.toUpperCase() !== method) return false;
  if (typeof match.path === "string") return fullPath === match.path || fullPath === `/api/v3${match.path}`;
  return match.path.test(fullPath);
}

/**
 * Faults for tests: the next N matching requests answer an error (after the rate limits counted
 * them, as GitHub counts a request that failed), and the app's writes can be held (not answered)
 * until released, as if GitHub were slow.
 */
export class GitHubFaults {
  private failures: Array<FailureFault & { left: number }> = [];
  private held: Promise<void> | null = null;
  private holds: Array<{ match: RequestMatch; released: Promise<void> }> = [];

  /** The next `count` requests matching answer `status`. */
  fail(fault: FailureFault): void {
    this.failures.push({ ...fault, left: fault.count ?? 1 });
  }

  /** Takes one failure for a request, if one applies: throws it. */
  apply(method: string, fullPath: string): void {
    const fault = this.failures.find((f) => f.left > 0 && matchesRequest(f, method, fullPath));
    if (!fault) return;
    fault.left -= 1;
    this.failures = this.failures.filter((f) => f.left > 0);
    throw new HttpError(fault.status, fault.message ?? "Server Error");
  }

  /** From now on the app's writes wait (unanswered) until the returned function is called. */
  holdWrites(): () => void {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.held = held;
    return () => {
      if (this.held === held) this.held = null;
      release();
    };
  }

  /**
   * From now on the requests matching `match` (anyone's, reads too) wait, unanswered, until the returned
   * function is called: a GitHub slow to answer one route.
   */
  hold(match: RequestMatch): () => void {
    let release: () => void = () => undefined;
    const hold = { match, released: new Promise<void>((resolve) => (release = resolve)) };
    this.holds.push(hold);
    return () => {
      this.holds = this.holds.filter((h) => h !== hold);
      release();
    };
  }

  /** Resolves when a request may be answered: no hold matches it (any more). */
  async gate(method: string, fullPath: string): Promise<void> {
    for (;;) {
      const hold = this.holds.find((h) => matchesRequest(h.match, method, fullPath));
      if (!hold) return;
      await hold.released;
    }
  }

  /** Resolves when the app's writes may go on. */
  async writeGate(): Promise<void> {
    while (this.held) await this.held;
  }

  clear(): void {
    this.failures = [];
  }
}
