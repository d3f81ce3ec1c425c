// Command line: `npm run simulator -- --port 4010 --token <t> --seed demo [--clock real|manual] [--host h]`
// Starts the simulator, prints one line with its API URL, stops cleanly on SIGINT/SIGTERM.

import { parseArgs } from "node:util";
import { pino } from "pino";
import { startSimulator } from "./index.js";

const USAGE =
  "usage: npm run simulator -- --token <token> [--port 4010] [--host 127.0.0.1] [--seed demo|empty] [--clock real|manual]";

function fail(message: string): never {
  process.stderr.write(`merge-queue simulator: ${message}\n${USAGE}\n`);
  process.exit(2);
}

interface CliOptions {
  port: number;
  host: string;
  token: string;
  seed: "demo" | "empty";
  clock: "real" | "manual";
}

function parseCliArgs(argv: string[]): CliOptions {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: "string", default: "4010" },
        host: { type: "string", default: "127.0.0.1" },
        token: { type: "string" },
        seed: { type: "string", default: "empty" },
        clock: { type: "string", default: "real" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const port = Number(values.port);
  if (!/^\d+$/.test(String(values.port)) || port > 65_535)
    fail(`--port must be a port number (0 to 65535), got "${values.port}"`);
  const token = values.token;
  if (typeof token !== "string" || token.length === 0) fail("--token is required");
  const seed = values.seed;
  if (seed !== "demo" && seed !== "empty") fail(`--seed must be "demo" or "empty", got "${seed}"`);
  const clock = values.clock;
  if (clock !== "real" && clock !== "manual") fail(`--clock must be "real" or "manual", got "${clock}"`);
  const host = String(values.host);
  if (host.length === 0) fail("--host must not be empty");
  return { port, host, token, seed, clock };
}

async function main(): Promise<void> {
  const options = parseCliArgs(process.argv.slice(2));
  const logger = pino(
    { level: process.env.LOG_LEVEL ?? "info", name: "merge-queue-simulator" },
    pino.destination(2),
  );
  const simulator = await startSimulator({ ...options, logger });
  const shownToken =
    options.token.length <= 4 ? "****" : `${options.token.slice(0, 2)}…${options.token.slice(-2)}`;
  process.stdout.write(
    `merge-queue simulator: ${simulator.apiUrl} (seed ${options.seed}, clock ${options.clock}, token ${shownToken})\n`,
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "stopping");
    simulator.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, "close failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

main().catch((error: unknown) => {
  process.stderr.write(`merge-queue simulator: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
