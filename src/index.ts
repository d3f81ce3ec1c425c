import "dotenv/config";
import { installLastResortHandlers } from "./last-resort.js";
import { loadConfig } from "./load-config.js";
import { createLogger } from "./logger.js";
import { ConfigError } from "./settings/read-settings.js";
import { HOW_TO_CONFIGURE } from "./settings/start-log.js";
import { createYardmaster } from "./yardmaster.js";

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
  let app: Awaited<ReturnType<typeof createYardmaster>> | undefined;
  installLastResortHandlers(process, logger, () => {
    void (app?.close() ?? Promise.resolve()).finally(() => process.exit(1));
  });
  try {
    app = await createYardmaster(config, { logger });
    await app.listen();
    const stop = async (signal: string) => {
      logger.info(`${signal}: shutting down`);
      await app?.close();
      process.exit(0);
    };
    process.once("SIGINT", () => void stop("SIGINT"));
    process.once("SIGTERM", () => void stop("SIGTERM"));
    return 0;
  } catch (error) {
    logger.fatal({ err: error }, (error as Error).message);
    return 1;
  }
}

const code = await main();
if (code !== 0) process.exit(code);
