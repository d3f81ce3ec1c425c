import { generateKeyPairSync } from "node:crypto";
import { Probot, ProbotOctokit } from "probot";
import { COMMANDS, type CommandName } from "../../src/commands/catalog.js";
import type { PermissionLevel } from "../../src/commands/permission-level.js";
import type { DeliveryLog } from "../../src/delivery-log.js";
import { GitHubWrites, type WriteRetry } from "../../src/github/github-writes.js";
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

/** A delivery log in memory, for tests of the GitHub surface without a store. */
export function memoryDeliveryLog(): DeliveryLog {
  const seen = new Set<string>();
  return {
    async claim(id) {
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    },
  };
}
