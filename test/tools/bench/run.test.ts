import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// A smoke test of `npm run bench`: it runs, prints its report and exits 0. No figure is asserted. The
// benchmark runs under --expose-gc directly (as run.ts would rerun itself), one process rather than three
// (tsx's CLI, its child, run.ts's rerun), with generous time: a tiny one took 35 s at a load of 25. The bad
// flag goes the way `npm run bench` does (tsx's CLI, the rerun under --expose-gc).
const root = fileURLToPath(new URL("../../..", import.meta.url));
const ONE_PROCESS = ["--expose-gc", "--import", "tsx", "tools/bench/run.ts"];
const AS_NPM_RUNS = [createRequire(import.meta.url).resolve("tsx/cli"), "tools/bench/run.ts"];

function bench(
  args: string[],
  command = ONE_PROCESS,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...command, ...args], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("npm run bench", () => {
  it("runs a tiny notifier benchmark to the end and prints its report", { timeout: 240_000 }, async () => {
    const result = await bench([
      "notifier",
      "--repos",
      "6",
      // One busy repository, one pull request a cycle: the posts Slack's pace spaces a second apart are few.
      "--busy",
      "1",
      "--pulls",
      "1",
      "--cycles",
      "3",
      "--latency",
      "0",
      "--backlog",
      "40",
      "--backlog-window",
      "2",
      "--backlog-probe",
      "100",
    ]);
    expect(result.code, result.stderr).toBe(0);
    for (const section of [
      "Setup",
      "Per cycle",
      "Summary",
      "per idle repository",
      "event-to-post lag",
      "Notes",
      "Backlog phase: 40 events at once",
      "longest event-loop block",
      "/healthz latency",
      "backlog notices",
    ]) {
      expect(result.stdout).toContain(section);
    }
  });

  it("explains a bad flag", { timeout: 90_000 }, async () => {
    const result = await bench(["notifier", "--repos", "many"], AS_NPM_RUNS);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--repos must be a whole number");
  });
});
