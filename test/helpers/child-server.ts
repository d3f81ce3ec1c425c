import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Servers, type Settings, startServers } from "../../tools/world.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface ChildServer {
  /** The simulator and the stand-ins, pointed at this child. */
  servers: Servers;
  url: string;
  pid: number;
  /** What it wrote on standard output, one JSON log line each. */
  lines: string[];
  /** The lines parsed (the ones that are JSON). */
  logs(): Record<string, unknown>[];
  /** Resolves with its exit code (null when killed by a signal) once it exits. */
  exited: Promise<number | null>;
  /** Whether it exited yet. */
  hasExited(): boolean;
  /** Its resident memory now, from /proc (Linux). */
  rssBytes(): number;
  /** Waits until a log line matches. */
  waitForLog(
    test: (line: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  signal(signal: NodeJS.Signals): void;
  /** Stops it (SIGKILL if it still runs), the stand-ins and the simulator, and removes its data. */
  close(): Promise<void>;
}

/**
 * Yardmaster as `npm start` runs it, in a process of its own (`node --import tsx src/index.ts`), with the
 * environment an operator would give it: the settings of tools/world.ts's stand-ins, an SQLite file in a
 * temporary folder, and `settings` on top. With `attach`, it is a replica of a world already running:
 * it uses that world's simulator and stand-ins (left pointed at the world, and open at close).
 */
export async function startChildServer(
  settings: Settings = {},
  attach?: { servers: Servers },
): Promise<ChildServer> {
  const servers = attach?.servers ?? (await startServers({ seed: "demo" }));
  const closeServers = attach ? async () => {} : () => servers.close();
  const dataDir = mkdtempSync(join(tmpdir(), "yardmaster-child-"));
  let child: ChildProcess | undefined;
  try {
    child = spawn(process.execPath, ["--import", "tsx", "src/index.ts"], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        ...servers.settings,
        HOST: "127.0.0.1",
        PORT: "0",
        DATABASE_URL: `sqlite:${join(dataDir, "yardmaster.db")}`,
        LOG_LEVEL: "info",
        ...settings,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const running = child;
    const lines: string[] = [];
    let stderr = "";
    let pending = "";
    running.stdout?.setEncoding("utf8");
    running.stdout?.on("data", (chunk: string) => {
      pending += chunk;
      const parts = pending.split("\n");
      pending = parts.pop() ?? "";
      lines.push(...parts.filter((line) => line !== ""));
    });
    running.stderr?.setEncoding("utf8");
    running.stderr?.on("data", (chunk: string) => {
      stderr += chunk;
    });
    let exitCode: number | null | undefined;
    const exited = new Promise<number | null>((resolve) => {
      running.once("exit", (code) => {
        exitCode = code;
        resolve(code);
      });
    });
    const parsed = () =>
      lines.flatMap((line) => {
        try {
          return [JSON.parse(line) as Record<string, unknown>];
        } catch {
          return [];
        }
      });
    const waitForLog = async (test: (line: Record<string, unknown>) => boolean, timeoutMs = 15_000) => {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const found = parsed().find(test);
        if (found) return found;
        if (exitCode !== undefined) {
          throw new Error(`Yardmaster exited (${exitCode}) first:\n${lines.join("\n")}\n${stderr}`);
        }
        if (Date.now() > until) throw new Error(`no such log line in ${timeoutMs} ms:\n${lines.join("\n")}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };
    const listening = await waitForLog((line) => typeof line.url === "string", 90_000);
    const url = listening.url as string;
    if (!attach) {
      servers.slack.setEventsUrl(`${url}/slack/events`);
      servers.github?.setWebhookUrl(`${url}/api/github/webhooks`);
    }
    const pid = running.pid as number;
    return {
      servers,
      url,
      pid,
      lines,
      logs: parsed,
      exited,
      hasExited: () => exitCode !== undefined,
      rssBytes: () => {
        const status = readFileSync(`/proc/${pid}/status`, "utf8");
        const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
        if (kb === undefined) throw new Error("no VmRSS in /proc");
        return Number(kb) * 1024;
      },
      waitForLog,
      signal: (signal) => {
        running.kill(signal);
      },
      close: async () => {
        if (exitCode === undefined) {
          running.kill("SIGKILL");
          await exited;
        }
        if (!attach) await servers.github?.settle();
        await closeServers();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    child?.kill("SIGKILL");
    await closeServers();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/** A raw HTTP request: the status, or the error's code when the connection failed (ECONNREFUSED, ...). */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string | number>; body?: string | Buffer } = {},
): Promise<{ status: number; body: string; headers: Record<string, unknown> } | { error: string }> {
  return new Promise((resolve) => {
    // A connection of its own each time (no keep-alive): refused, or answered.
    const req = request(
      url,
      { method: options.method ?? "GET", headers: options.headers ?? {}, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString("utf8"),
            headers: res.headers,
          }),
        );
        res.on("error", (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    req.end(options.body);
  });
}
