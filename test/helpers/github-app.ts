import { generateKeyPairSync } from "node:crypto";
import { Probot, ProbotOctokit } from "probot";
import { COMMANDS, type CommandName } from "../../src/commands/catalog.js";
import type { PermissionLevel } from "../../src/core/permission-level.js";
import { GitHubWrites, type WriteRetry } from "../../src/github/github-writes.js";
import type { JobQueueFactory } from "../../src/github/webhook-jobs.js";
import { createLogger, type Logger } from "../../src/logger.js";

/** Probot's Octokit without retries or throttling: tests stay fast and see every call once. */
export const TestOctokit = ProbotOctokit.defaults((options: Record<string, unknown>) => ({
  ...options,
  retry: { enabled: false },
  throttle: { enabled: false },
}));

let key: string | undefined;
/** One RSA key per test process (generating one takes a while). */
export function testPrivateKey(): string {
  key ??= generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  }).privateKey;
  return key;
}

export function testProbot(log: Logger = createLogger({ level: "silent" })): Probot {
  return new Probot({
    appId: 1,
    privateKey: testPrivateKey(),
    secret: "webhook-secret",
    Octokit: TestOctokit,
    log,
  });
}

/** The app's write queue without pacing or waits: the order of writes is kept, their timing is not. */
export function testWrites(retry: Partial<WriteRetry> = {}): GitHubWrites {
  return new GitHubWrites({
    logger: createLogger({ level: "silent" }),
    limits: { intervalMs: 0, content: [] },
    retry: { retries: 0, backoffMs: () => 0, ...retry },
  });
}

export const DEFAULT_PERMISSIONS = Object.fromEntries(
  Object.values(COMMANDS).map((c) => [c.name, c.permission]),
) as Record<CommandName, PermissionLevel>;

/**
 * Webhook jobs in memory, for tests of the GitHub surface without a store: a delivery's job is accepted
 * once and run before the webhook is answered (the store's jobs, run after: test/github/webhook-jobs.test.ts
 * and the end-to-end tests). `held` answers what `claim.ran()` says: false as if another replica had
 * taken the job over.
 */
export function inlineJobs(options: { held?: boolean } = {}): JobQueueFactory {
  const seen = new Set<string>();
  return (run) => ({
    async accept(job) {
      if (seen.has(job.deliveryId)) return false;
      seen.add(job.deliveryId);
      await run(job, { ran: async () => options.held ?? true });
      return true;
    },
  });
}
