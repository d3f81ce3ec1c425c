import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const children: ChildProcess[] = [];

/**
 * The CLI in a process of its own, TypeScript loaded by tsx's hooks (`--import tsx`): the signals the test
 * sends reach it directly. (tsx's own CLI runs it in a second process and relays a signal to it; when
 * that process does not say it got the signal within 30 ms, a loaded machine's delay, tsx kills it and
 * exits 143.)
 */
function run(args: string[]): ChildProcess {
  const child = spawn(process.execPath, ["--import", "tsx", "tools/simulator/cli.ts", ...args], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, LOG_LEVEL: "silent" },
  });
  children.push(child);
  return child;
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      const index = buffer.indexOf("\n");
      if (index !== -1) resolve(buffer.slice(0, index));
    });
    child.once("exit", (code) => reject(new Error(`exited with ${code} before printing a line`)));
  });
}

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

describe("cli", () => {
  it("starts, prints its API URL, serves the seed and stops on SIGTERM", async () => {
    const child = run(["--port", "0", "--token", "cli-token", "--seed", "demo", "--clock", "manual"]);
    const line = await firstLine(child);
    const match =
      /^merge-queue simulator: (http:\/\/127\.0\.0\.1:\d+\/v1) \(seed demo, clock manual, token .+\)$/.exec(
        line,
      );
    expect(match, line).not.toBeNull();
    const apiUrl = match?.[1] ?? "";
    const response = await fetch(`${apiUrl}/repos/acme/widgets/merge-queue/branches`, {
      headers: { authorization: "Bearer cli-token" },
    });
    expect(await response.json()).toEqual({ branches: ["main", "release/1.x"] });
    expect(line).not.toContain("cli-token");
    child.kill("SIGTERM");
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
  });

  it("explains a bad argument", async () => {
    const child = run(["--token", "t", "--seed", "full"]);
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const [code] = await once(child, "exit");
    expect(code).toBe(2);
    expect(stderr).toContain('--seed must be "demo" or "empty"');
    expect(stderr).toContain("usage:");
  });

  it("requires a token", async () => {
    const child = run(["--port", "0"]);
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const [code] = await once(child, "exit");
    expect(code).toBe(2);
    expect(stderr).toContain("--token is required");
  });
});
