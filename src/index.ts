import "dotenv/config";
import { loadConfig } from "./app/config.js";
import { HOW_TO_CONFIGURE } from "./app/start-log.js";
import { createLogger, type Logger } from "./logger.js";
import { installLastResortHandlers } from "./server/last-resort.js";
import { ConfigError } from "./settings/read-settings.js";
import { createYardmaster, type Yardmaster } from "./yardmaster.js";

/** How long the logger may take to write what it holds before the process exits anyway. */
const FLUSH_TIMEOUT_MS = 2_000;
/** How long closing the store may take after the stop's deadline before the process exits anyway. */
const CLOSE_GRACE_MS = 5_000;

/** `npm start`: production, from the environment (and .env). */
async function main(): Promise<number> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(
        error.nothingConfigured ? HOW_TO_CONFIGURE : `${error.message}\n\nSee .env.example and the README.`,
      );
      return 1;
    }
    throw error;
  }
  const logger = createLogger({ level: config.logLevel });
  const timeoutMs = config.shutdownTimeoutSeconds * 1000;
  let app: Yardmaster | undefined;
  let stopping = false;
  /** Stops once: the first signal (or fatal error) stops gracefully, a second one exits at once. */
  const stop = (why: string, failed: boolean) => {
    if (stopping) {
      logger.warn(`${why} while stopping: exiting now`);
      void flush(logger).then(() => process.exit(1));
      return;
    }
    stopping = true;
    void shutdown(app, logger, why, timeoutMs, failed);
  };
  installLastResortHandlers(process, logger, () => stop("uncaught exception", true));
  process.on("SIGINT", () => stop("SIGINT", false));
  process.on("SIGTERM", () => stop("SIGTERM", false));
  try {
    app = await createYardmaster(config, { logger });
    await app.listen();
    return 0;
  } catch (error) {
    logger.fatal({ err: error }, (error as Error).message);
    await app?.close();
    await flush(logger);
    return 1;
  }
}

/**
 * The graceful stop: no new connection or request; in-flight requests and commands get `timeoutMs` to
 * finish, then are abandoned; the poller stops and the store closes; the logger writes what it holds.
 * Exits 0, or 1 when work was abandoned (or the stop was for a fatal error).
 */
async function shutdown(
  app: Yardmaster | undefined,
  logger: Logger,
  why: string,
  timeoutMs: number,
  failed: boolean,
): Promise<never> {
  logger.info({ timeoutSeconds: timeoutMs / 1000 }, `${why}: stopping`);
  setTimeout(() => {
    logger.fatal("the stop did not finish in time: exiting");
    void flush(logger).then(() => process.exit(1));
  }, timeoutMs + CLOSE_GRACE_MS);
  const { abandoned } = app ? await app.close({ timeoutMs }) : { abandoned: 0 };
  if (abandoned > 0) {
    logger.warn({ abandoned }, `stopped: ${abandoned} requests or commands were abandoned unfinished`);
  } else logger.info("stopped");
  await flush(logger);
  process.exit(abandoned > 0 || failed ? 1 : 0);
}

/** Resolves once the logger wrote what it holds, or after FLUSH_TIMEOUT_MS (a stuck standard output). */
function flush(logger: Logger): Promise<void> {
  return new Promise((resolve) => {
    setTimeout(resolve, FLUSH_TIMEOUT_MS).unref();
    logger.flush(() => resolve());
  });
}

const code = await main();
if (code !== 0) process.exit(code);
