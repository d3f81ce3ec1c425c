import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["test/setup.ts"],
    environment: "node",
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // End-to-end tests start real servers on ephemeral loopback ports; files run in parallel.
    pool: "forks",
  },
});
