import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * The tokens the simulator accepts: its own (every repository, every route, the control endpoints),
 * and limited ones issued with `issueToken`, as an API key given access to some repositories only, or
 * scoped to the queue without the event log.
 */
export interface TokenLimits {
  /** The repositories (owner/repo, any case) it may read and change; default all. */
  repositories?: readonly string[];
  /** Whether it may read the event log (`GET …/logs`); default true. */
  eventLog?: boolean;
}

export type TokenAccess =
  | { kind: "full" }
  | { kind: "limited"; repositories: Set<string> | null; eventLog: boolean };

const digest = (text: string) => createHash("sha256").update(text).digest();

export class SimTokens {
  readonly #full: Buffer;
  readonly #limited = new Map<string, TokenAccess & { kind: "limited" }>();

  constructor(token: string) {
    this.#full = digest(token);
  }

  issue(limits: TokenLimits = {}): string {
    const token = `sim-${randomBytes(12).toString("hex")}`;
    this.#limited.set(token, {
      kind: "limited",
      repositories: limits.repositories ? new Set(limits.repositories.map((r) => r.toLowerCase())) : null,
      eventLog: limits.eventLog ?? true,
    });
    return token;
  }

  /** What a Bearer token may do, or null when it is no token of this simulator. */
  access(token: string): TokenAccess | null {
    if (timingSafeEqual(digest(token), this.#full)) return { kind: "full" };
    return this.#limited.get(token) ?? null;
  }
}
