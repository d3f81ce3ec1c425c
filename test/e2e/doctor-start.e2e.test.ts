import { afterEach, describe, expect, it } from "vitest";
import { type ChildServer, startChildServer } from "../helpers/child-server.js";
import { eventually } from "../helpers/e2e.js";

/** `npm start` logs the setup check once it listens (SETUP_CHECK_ON_START, on by default), and never fails for it. */
let child: ChildServer | undefined;
afterEach(async () => {
  await child?.close();
  child = undefined;
});

const message = (line: Record<string, unknown>) => String(line.msg ?? "");
const verdict = (line: Record<string, unknown>) => /^(Ready|\d+ required checks? failed)/.test(message(line));

describe("the setup check at start", () => {
  it("is logged once after listening, a line per check, failures at error level, and the server stays up", async () => {
    // An http PUBLIC_URL (a warning) and the app installed nowhere (a failure): the start goes on.
    child = await startChildServer();
    const end = await child.waitForLog(verdict);
    expect(message(end)).toMatch(/^1 required check failed, 1 warning/);
    const logs = child.logs();
    const listening = logs.findIndex((l) => /^Yardmaster \S+ listening/.test(message(l)));
    const checks = logs.filter((l) => l.name === "setup-check" && typeof l.check === "string");
    expect(listening).toBeGreaterThanOrEqual(0);
    expect(logs.indexOf(checks[0] as Record<string, unknown>)).toBeGreaterThan(listening);
    expect(checks.find((l) => l.check === "GitHub installations")).toMatchObject({
      level: 50,
      status: "fail",
    });
    expect(checks.find((l) => l.check === "PUBLIC_URL")).toMatchObject({ level: 40, status: "warn" });
    expect(checks.find((l) => l.check === "Slack token")).toMatchObject({ level: 30, status: "pass" });
    expect(logs.filter(verdict)).toHaveLength(1);
    expect(child.hasExited()).toBe(false);
    const health = await fetch(`${child.url}/healthz`);
    expect(health.status).toBe(200);
  }, 60_000);

  it("is not run with SETUP_CHECK_ON_START=false", async () => {
    child = await startChildServer({ SETUP_CHECK_ON_START: "false" });
    await child.waitForLog((l) => /^Yardmaster \S+ listening/.test(message(l)));
    // Said in the check's place when its service starts: from then on, the check cannot begin.
    const skipped = await child.waitForLog((l) => /^The setup check is not run at start/.test(message(l)));
    expect(message(skipped)).toMatch(/SETUP_CHECK_ON_START=false.*\/mq doctor/);
    expect(child.logs().some((l) => l.name === "setup-check" || verdict(l))).toBe(false);
    // Slack's auth.test is called once: Bolt's own at start (which may come after the line above), not the
    // setup check's.
    const authTests = () => child?.servers.slack.calls.filter((c) => c.method === "auth.test") ?? [];
    await eventually(() => authTests().length > 0);
    expect(authTests()).toHaveLength(1);
  }, 60_000);
});
