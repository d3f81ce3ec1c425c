import { describe, expect, it } from "vitest";
import { InFlight } from "../../src/server/in-flight.js";

describe("InFlight", () => {
  it("is idle at once when nothing runs", async () => {
    expect(await new InFlight().idle()).toBe(true);
  });

  it("counts work until it settles, fulfilled or rejected, and then is idle", async () => {
    const inFlight = new InFlight();
    let fulfil = () => {};
    let reject = (_: Error) => {};
    void inFlight.track(new Promise<void>((resolve) => (fulfil = resolve)));
    inFlight.track(new Promise<void>((_, no) => (reject = no))).catch(() => {});
    const end = inFlight.begin();
    expect(inFlight.size).toBe(3);
    const idle = inFlight.idle();
    fulfil();
    reject(new Error("failed"));
    end();
    end();
    expect(await idle).toBe(true);
    expect(inFlight.size).toBe(0);
  });

  it("gives up waiting when the signal aborts, leaving the work counted", async () => {
    const inFlight = new InFlight();
    inFlight.begin();
    const controller = new AbortController();
    const idle = inFlight.idle(controller.signal);
    controller.abort();
    expect(await idle).toBe(false);
    expect(inFlight.size).toBe(1);
    expect(await inFlight.idle(controller.signal)).toBe(false);
  });
});
