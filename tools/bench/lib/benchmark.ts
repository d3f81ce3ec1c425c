/** A benchmark that tools/bench/run.ts can list and run. */
export interface Benchmark {
  /** What `npm run bench -- <name>` selects. */
  name: string;
  /** One line for the list. */
  description: string;
  /** Run by `npm run bench` without a name. */
  runsByDefault: boolean;
  /** Its flags, one per line, for --help. */
  usage: string;
  /** Runs it with its own flags; prints with `out`. Rejects on a bad flag (an Error whose message says why). */
  run(args: string[], context: BenchmarkContext): Promise<void>;
}

export interface BenchmarkContext {
  out: (text: string) => void;
  /** global.gc when the process runs with --expose-gc. */
  gc: (() => void) | undefined;
  /** How gc was made available, for the report. */
  gcNote: string;
}

export class UsageError extends Error {
  override name = "UsageError";
}
