// Yardmaster's benchmarks: `npm run bench` runs the default ones, `npm run bench -- <name> [flags]` one,
// `npm run bench -- --help` lists them with their flags. A new benchmark is added to BENCHMARKS.
//
// Figures are printed, compared with their targets, never asserted: the exit status says whether the
// benchmark ran, not whether a target was met.
//
// Memory figures are read after a full garbage collection, which needs --expose-gc: when this process
// lacks it (`npm run bench` runs plain `tsx`), it runs itself again under `node --expose-gc --import tsx`.
//
// A benchmark's module is loaded only when it is run or listed: loading them all (Yardmaster, the stand-ins,
// the simulator) takes seconds of processor time, which a rerun under --expose-gc, a bad flag or another
// benchmark does not need.

import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { type Benchmark, UsageError } from "./lib/benchmark.js";

/** Each benchmark by the name `npm run bench -- <name>` selects (its Benchmark.name), loaded on demand. */
const BENCHMARKS: readonly { name: string; load: () => Promise<Benchmark> }[] = [
  { name: "notifier", load: async () => (await import("./notifier/benchmark.js")).notifierBenchmark },
  { name: "github", load: async () => (await import("./github/benchmark.js")).githubBenchmark },
  {
    name: "github-replicas",
    load: async () => (await import("./github/replicas.js")).githubReplicasBenchmark,
  },
  { name: "scale", load: async () => (await import("./scale/benchmark.js")).scaleBenchmark },
];

const loadAll = (): Promise<Benchmark[]> => Promise.all(BENCHMARKS.map((b) => b.load()));

const GC_ENV = "YARDMASTER_BENCH_EXPOSE_GC";

function out(text: string): void {
  process.stdout.write(`${text}\n`);
}

function help(benchmarks: readonly Benchmark[]): string {
  const lines = [
    "Usage: npm run bench -- [name] [flags]",
    "",
    "Benchmarks (* runs without a name):",
    ...benchmarks.map((b) => `  ${b.runsByDefault ? "*" : " "} ${b.name.padEnd(12)} ${b.description}`),
  ];
  for (const b of benchmarks) lines.push("", `${b.name} flags:`, b.usage);
  return lines.join("\n");
}

/** Runs this script again under `node --expose-gc --import tsx`; resolves to its exit code. */
function rerunWithGc(): Promise<number> {
  const child = spawn(
    process.execPath,
    [
      "--expose-gc",
      "--import",
      import.meta.resolve("tsx"),
      fileURLToPath(import.meta.url),
      ...process.argv.slice(2),
    ],
    { stdio: "inherit", env: { ...process.env, [GC_ENV]: "1" } },
  );
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
  const onInt = forward("SIGINT");
  const onTerm = forward("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

async function main(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== "function" && process.env[GC_ENV] !== "1") return rerunWithGc();

  const args = process.argv.slice(2);
  if (args[0] === "--help" || args[0] === "-h" || args[0] === "--list") {
    out(help(await loadAll()));
    return 0;
  }
  const name = args[0] !== undefined && !args[0].startsWith("-") ? args.shift() : undefined;
  const selected =
    name === undefined
      ? (await loadAll()).filter((b) => b.runsByDefault)
      : await Promise.all(BENCHMARKS.filter((b) => b.name === name).map((b) => b.load()));
  if (selected.length === 0) {
    process.stderr.write(`unknown benchmark "${name}"\n\n${help(await loadAll())}\n`);
    return 2;
  }
  const gcNote =
    typeof gc === "function"
      ? "read after a full gc (global.gc; the benchmark runs under node --expose-gc --import tsx)"
      : "read WITHOUT a forced gc: global.gc is unavailable, so heap figures include garbage";

  out(`Yardmaster benchmarks (node ${process.version}, ${process.platform}/${process.arch})`);
  out("");
  for (const benchmark of selected) {
    try {
      await benchmark.run(args, { out, gc: typeof gc === "function" ? gc : undefined, gcNote });
    } catch (error) {
      if (error instanceof UsageError) {
        // Its own flags: listing every benchmark would load them all.
        process.stderr.write(
          `${benchmark.name}: ${error.message}\n\n${benchmark.name} flags:\n${benchmark.usage}\n` +
            "(npm run bench -- --help lists every benchmark)\n",
        );
        return 2;
      }
      throw error;
    }
    out("");
  }
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
