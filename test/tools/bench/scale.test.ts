import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// A smoke test of `npm run bench -- scale`, tiny: it runs every part, prints each figure's line with a
// number and exits 0. No figure is compared with its target (the benchmark prints, the test checks it
// ran). The replicas part uses the integration project's PostgreSQL (TEST_DATABASE_URL).
const root = fileURLToPath(new URL("../../..", import.meta.url));

describe("npm run bench -- scale", () => {
  it("runs a tiny scale benchmark and prints each figure with a number", { timeout: 360_000 }, async () => {
    const child = spawn(
      process.execPath,
      [
        "--expose-gc",
        "--import",
        import.meta.resolve("tsx"),
        "tools/bench/run.ts",
        "scale",
        // Its simulated hour in 6 passes (a pass every 10 simulated minutes).
        ...["--idle-repos", "2", "--idle-step", "600"],
        ...["--lag-repos", "1", "--lag-samples", "3", "--lag-spacing", "200", "--lag-max", "5"],
        ...["--burst", "4", "--quiet-after", "1"],
        ...["--repos", "6", "--busy", "1", "--replicas", "1,2,3", "--cycles", "2"],
        ...["--stream-seconds", "5", "--backlog-events", "40", "--backlog-window", "5"],
        ...["--takeover-pulls", "1"],
      ],
      { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once("error", reject);
      child.once("close", resolve);
    });
    expect(code, stderr).toBe(0);
    for (const line of [
      /requests per idle repository per hour, doorbell +\d+(\.\d+)? \(/,
      /requests per idle repository per hour, no doorbell +\d+(\.\d+)? \(/,
      /event-to-post lag p99, doorbell, 60 s interval +\d+\.\d+ s \(/,
      /4 notices for one channel, first event to last post +\d+\.\d+ s \(/,
      /quiet channel's lag during the burst +\d+\.\d+ s \(/,
      /requests per cycle, 1 replica +\d+(\.\d+)? \(/,
      /requests per cycle, 2 replicas +\d+(\.\d+)? \(/,
      /requests per cycle, 3 replicas +\d+(\.\d+)? \(/,
      /log reads per minute, 5 webhooks a second +\d+(\.\d+)? \(/,
      /webhook-to-post lag during the stream, max +\d+\.\d+ s \(/,
      /40-event backlog: channel notices in the first 5 s +\d+ \(/,
      /40-event backlog: GitHub pull-request reads in the first 5 s +\d+ for 10 pull requests/,
      /kill -9 mid-burst: to the survivor's last of 4 notices +\d+\.\d+ s \(/,
    ]) {
      expect(stdout).toMatch(line);
    }
    for (const section of ["Setup", "Figures", "Notes"]) expect(stdout).toContain(section);
  });

  it("explains a bad flag", { timeout: 90_000 }, async () => {
    const child = spawn(
      process.execPath,
      [
        "--expose-gc",
        "--import",
        import.meta.resolve("tsx"),
        "tools/bench/run.ts",
        "scale",
        "--parts",
        "all",
      ],
      { cwd: root, stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
    expect(code).toBe(2);
    expect(stderr).toContain("--parts takes idle, lag, slack, replicas, stream, backlog, takeover");
  });
});
