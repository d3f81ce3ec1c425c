import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The files that take longest, longest first: they start first, so that no long file starts last and
 * leaves the other workers idle while it runs (the suite's length is at least its longest file's, and
 * at most that plus the file that started last). Vitest's own order is by the last run's durations, kept
 * in node_modules/.vite; a fresh clone has none, and it then runs the files in the order found, putting the
 * bench smoke tests (test/tools) near the end. Measured on a loaded two-core machine (issue 32); a file
 * not listed runs after these, in vitest's order. The two GitHub bench smoke tests were not listed and so
 * could start last on a fresh clone, each about a minute of a child process (64 s and 54 s in a run of 660 s at a load of 20).
 * The store contract's files left the list when they stopped migrating a schema per test (8 s at most).
 */
export const LONGEST_FILES = [
  "test/tools/bench/scale.test.ts",
  "test/e2e/command-steps-takeover.e2e.test.ts",
  "test/tools/bench/github-replicas.test.ts",
  "test/e2e/notifier-replicas.e2e.test.ts",
  "test/e2e/sandbox-flake-shield.e2e.test.ts",
  "test/tools/bench/run.test.ts",
  "test/tools/bench/github.test.ts",
  "test/e2e/replica-takeover.e2e.test.ts",
  "test/e2e/sandbox.browser.test.ts",
  "test/e2e/notifier-backlog.e2e.test.ts",
  "test/e2e/sandbox-github-queue.e2e.test.ts",
  "test/e2e/process.e2e.test.ts",
  "test/e2e/github-load.e2e.test.ts",
  "test/e2e/command-steps.e2e.test.ts",
  "test/e2e/shutdown.e2e.test.ts",
  "test/e2e/personal-notices-replicas.e2e.test.ts",
];

/** Vitest's order, with LONGEST_FILES moved to the front in their order, whatever their project. */
export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification): number => {
      const index = LONGEST_FILES.indexOf(
        relative(this.ctx.config.root, spec.moduleId).replaceAll("\\", "/"),
      );
      return index === -1 ? LONGEST_FILES.length : index;
    };
    return sorted
      .map((spec, order) => ({ spec, order, rank: rank(spec) }))
      .sort((a, b) => a.rank - b.rank || a.order - b.order)
      .map(({ spec }) => spec);
  }
}
