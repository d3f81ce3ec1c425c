import type { Handler } from "../server/http-server.js";

/**
 * A background service: a loop or a connection a feature keeps while the app runs. The composition root
 * (create-app.ts) starts every one once the server listens, in the order the features were wired, and
 * stops them all on close; one still stopping at the stop's deadline is reported abandoned.
 */
export interface Service {
  /** What it is, for a reader of the root and of the logs ("notifier", "freezes", ...). */
  name: string;
  start(): void | Promise<void>;
  /** Resolves once the work it had begun is done (it starts nothing new meanwhile). */
  stop(): Promise<unknown>;
}

/** What a feature's wiring gives the root: its HTTP endpoints and its background services (none: none). */
export interface Wired {
  handlers?: Handler[];
  services?: Service[];
}
