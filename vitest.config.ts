import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";
import { LongestFirst } from "./test/sequencer.js";

/** Tests that start servers or need PostgreSQL: end to end, stores, the contract, the tools. */
const INTEGRATION = [
  "test/e2e/**/*.e2e.test.ts",
  "test/store/**/*.test.ts",
  "test/contract/**/*.test.ts",
  "test/tools/{simulator,stand-ins,bench}/**/*.test.ts",
];
/** The sandbox page in headless Chromium. */
const BROWSER = ["test/e2e/**/*.browser.test.ts"];

export default defineConfig({
  test: {
    setupFiles: ["test/setup.ts"],
    environment: "node",
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // End-to-end tests start real servers on ephemeral loopback ports; files run in parallel, at least three
    // at once (vitest's default is one on two cores): they spend much of their time waiting on servers and
    // timers, so on two cores two workers left the processors half idle (224 s with three, 247 s with two).
    pool: "forks",
    maxWorkers: Math.max(3, availableParallelism()),
    // The longest files start first (test/sequencer.ts), a fresh clone included.
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          isolate: false,
          // Under TEST_NOW, the system clock says TEST_NOW (test/setup-clock.ts).
          setupFiles: ["test/setup-clock.ts"],
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...INTEGRATION, ...BROWSER],
        },
      },
      {
        extends: true,
        // TEST_DATABASE_URL for the PostgreSQL tests: given, on 127.0.0.1:5432, or embedded.
        test: {
          name: "integration",
          isolate: false,
          // An end-to-end test does in seconds what a person would: on a shared two-core machine at a load
          // of 30 it takes two or three times as long (rolling-upgrade's took 20.4 s, over the default).
          testTimeout: 60_000,
          hookTimeout: 60_000,
          include: INTEGRATION,
          globalSetup: ["test/global-setup/postgres.ts"],
        },
      },
      { extends: true, test: { name: "browser", include: BROWSER } },
    ],
  },
});
