import { EventEmitter } from "node:events";
import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { createHttpServer } from "../../src/server/http-server.js";
import { installLastResortHandlers } from "../../src/server/last-resort.js";

function capture() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger(
    { level: "info" },
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
        done();
      },
    }),
  );
  return { logger, lines };
}

/** The process's events, played by an emitter of the test's own (vitest listens to the real ones). */
function fakeProcess() {
  return new EventEmitter() as EventEmitter & Parameters<typeof installLastResortHandlers>[0];
}

describe("the last resort", () => {
  it("logs a rejection nobody awaited and keeps going", () => {
    const { logger, lines } = capture();
    const target = fakeProcess();
    const fatal: unknown[] = [];
    installLastResortHandlers(target, logger, (error) => fatal.push(error));
    target.emit("unhandledRejection", new TypeError("respond is not a function"));
    expect(fatal).toEqual([]);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 50,
        msg: "unhandled promise rejection (a bug: still serving)",
        err: expect.objectContaining({ type: "TypeError", message: "respond is not a function" }),
      }),
    ]);
  });

  it("stops the process (through `fatal`) for an exception outside any request", () => {
    const { logger, lines } = capture();
    const target = fakeProcess();
    const fatal: unknown[] = [];
    installLastResortHandlers(target, logger, (error) => fatal.push(error));
    const error = new Error("broken");
    target.emit("uncaughtException", error);
    expect(fatal).toEqual([error]);
    expect(lines).toEqual([expect.objectContaining({ level: 60, msg: "uncaught exception: stopping" })]);
  });

  it("answers 500 to the request an exception escaped from, and keeps serving", async () => {
    const { logger, lines } = capture();
    const target = fakeProcess();
    const fatal: unknown[] = [];
    const remove = installLastResortHandlers(target, logger, (error) => fatal.push(error));
    // A handler whose callback throws where no promise catches it: the process would see it as uncaught.
    const server = createHttpServer(
      [
        () =>
          new Promise<boolean>(() => {
            setTimeout(() => {
              try {
                throw new Error("thrown in a callback");
              } catch (error) {
                target.emit("uncaughtException", error as Error);
              }
            }, 1);
          }),
      ],
      logger,
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const status = await new Promise<number>((resolve, reject) => {
        request({ port, host: "127.0.0.1", path: "/x", agent: false }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
          .on("error", reject)
          .end();
      });
      expect(status).toBe(500);
      expect(fatal).toEqual([]);
      expect(lines.at(-1)).toMatchObject({
        msg: "uncaught exception while handling a request (a bug: the request failed, still serving)",
        request: { method: "GET", path: "/x", source: "127.0.0.1" },
      });
    } finally {
      remove();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    }
    expect(target.listenerCount("uncaughtException")).toBe(0);
  });
});
