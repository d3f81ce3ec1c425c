import type { Logger } from "../logger.js";
import { currentRequest } from "./http-server.js";

/** The process's events the last resort listens to (`process`; tests pass an emitter of their own). */
export interface ProcessEvents {
  on(event: "unhandledRejection", listener: (reason: unknown) => void): unknown;
  on(event: "uncaughtException", listener: (error: Error) => void): unknown;
  off(event: "unhandledRejection", listener: (reason: unknown) => void): unknown;
  off(event: "uncaughtException", listener: (error: Error) => void): unknown;
}

/**
 * The last resort, for a failure that no handler caught (each surface's own failure paths should have):
 *
 * - a rejected promise that nobody awaited is logged, and the process keeps serving: the rejection left
 *   nothing half-done that the next request could trip over;
 * - an exception thrown while handling a request (in any callback or promise the request started) is
 *   logged with the request, the request is answered 500 (or its connection closed), and the process
 *   keeps serving;
 * - any other uncaught exception is logged as fatal and `fatal` is called: the state it left cannot be
 *   trusted, so src/index.ts stops gracefully and exits with status 1.
 *
 * Returns a function that removes the handlers.
 */
export function installLastResortHandlers(
  target: ProcessEvents,
  logger: Logger,
  fatal: (error: unknown) => void,
): () => void {
  const rejection = (reason: unknown) => {
    const request = currentRequest();
    logger.error(
      { err: reason, ...(request ? { request: request.describe() } : {}) },
      "unhandled promise rejection (a bug: still serving)",
    );
  };
  const exception = (error: Error) => {
    const request = currentRequest();
    if (request) {
      logger.error(
        { err: error, request: request.describe() },
        "uncaught exception while handling a request (a bug: the request failed, still serving)",
      );
      request.fail();
      return;
    }
    logger.fatal({ err: error }, "uncaught exception: stopping");
    fatal(error);
  };
  target.on("unhandledRejection", rejection);
  target.on("uncaughtException", exception);
  return () => {
    target.off("unhandledRejection", rejection);
    target.off("uncaughtException", exception);
  };
}
