import nock from "nock";
import { afterAll, afterEach, beforeAll, vi } from "vitest";

// No test may reach the real network. Loopback stays open: end-to-end tests run real servers
// (Yardmaster, the merge-queue simulator, the GitHub and Slack stand-ins) on ephemeral ports.
beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect(/^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/);
});

afterEach(() => {
  nock.cleanAll();
});

// Files share their worker's modules and globals (vitest.config.ts, isolate: false): nothing a file
// changed in them outlives it.
afterAll(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});
