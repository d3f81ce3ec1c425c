import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// A smoke test of `npm run bench -- github`, on GitHub's rules 50 times faster: it runs, prints its
// figures and exits 0. No figure is asserted. Run under --expose-gc directly (as run.ts would rerun
// itself), to start one process rather than two.
const root = fileURLToPath(new URL("../../..", import.meta.url));

describe("npm run bench -- github", () => {
  it("runs a tiny GitHub-load benchmark and prints its figures", { timeout: 240_000 }, async () => {
    const child = spawn(
      process.execPath,
      [
        "--expose-gc",
        "--import",
        import.meta.resolve("tsx"),
        "tools/bench/run.ts",
        "github",
        "--comments",
        "4",
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
    for (const section of [
      "Setup",
      "4 simultaneous comments",
      "median answer",
      "last answer",
      "secondary limits hit",
      "Notes",
    ]) {
      expect(stdout).toContain(section);
    }
  });
});
