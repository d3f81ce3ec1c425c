// `npm run sandbox [-- --port 3000]`: the whole product on loopback (127.0.0.1), with a page to play
// with it. Prints the page's URL; stops cleanly on Ctrl-C (SIGINT) or SIGTERM.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type Sandbox, startSandbox } from "./start-sandbox.js";

const USAGE = `usage: npm run sandbox -- [--port 3000] [--refuse-bot-commands]
  --refuse-bot-commands  the merge queue keeps Mergify's default commands_restrictions, which refuse
                         Yardmaster's bot: relayed queue and dequeue are refused (README, "Mergify setup
                         for relayed commands")`;

function fail(message: string): never {
  process.stderr.write(`sandbox: ${message}\n${USAGE}\n`);
  process.exit(2);
}

function options(argv: string[]): { port: number; refuseBotCommands: boolean } {
  try {
    const { values } = parseArgs({
      args: argv,
      options: {
        port: { type: "string", default: "3000" },
        "refuse-bot-commands": { type: "boolean", default: false },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    });
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    }
    const port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port > 65_535) fail(`--port must be 0 to 65535, got "${values.port}"`);
    return { port, refuseBotCommands: values["refuse-bot-commands"] };
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
}

async function main(): Promise<void> {
  const { port, refuseBotCommands } = options(process.argv.slice(2));
  const dataDir = mkdtempSync(join(tmpdir(), "yardmaster-sandbox-"));
  let sandbox: Sandbox;
  try {
    sandbox = await startSandbox({ port, dataDir, engine: { refuseBotCommands } });
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") fail(`port ${port} is in use; pick another with --port`);
    throw error;
  }
  process.stdout.write(`Yardmaster sandbox: ${sandbox.url}\n`);
  process.stdout.write(`Ctrl-C to stop. Logs: ${sandbox.logFile}\n`);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    sandbox.close().then(
      () => {
        // The log stays for a look afterwards; the database goes.
        for (const name of ["yardmaster.db", "yardmaster.db-wal", "yardmaster.db-shm"]) {
          rmSync(join(dataDir, name), { force: true });
        }
        process.stdout.write("sandbox stopped\n");
        process.exit(0);
      },
      (error: unknown) => {
        process.stderr.write(`sandbox: stop failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `sandbox: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
