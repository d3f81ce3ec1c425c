import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// A smoke test of `npm run bench -- github-replicas`, tiny and on GitHub's rules 50 times faster: it runs
// on the test PostgreSQL, prints its table and exits 0. No figure is asserted.
const root = fileURLToPath(new URL("../../..", import.meta.url));

describe("npm run bench -- github-replicas", () => {
  it("runs a tiny replicas benchmark and prints its figures", { timeout: 240_000 }, async () => {
    const child = spawn(
      process.execPath,
      [
        "--expose-gc",
        "--import",
        import.meta.resolve("tsx"),
        "tools/bench/run.ts",
        "github-replicas",
        "--comments",
        "4",
        "--replicas",
        "1,2",
        "--pace",
        "0.02",
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
    for (const section of ["Setup", "busiest 10 s", "busiest minute", "403/429", "Notes"]) {
      expect(stdout).toContain(section);
    }
    // One row per run.
    expect(stdout).toMatch(/^\s+1\s+\d+\s+\d+\s+\d+\s/m);
    expect(stdout).toMatch(/^\s+2\s+\d+\s+\d+\s+\d+\s/m);
  });
});
