// Engine options and their defaults.

import type { QueueMode } from "./types.js";

export interface EngineOptions {
  /** Pull requests per batch. */
  batchSize: number;
  /** How long a batch that is not full waits for more pull requests before it starts (the fill wait). */
  batchMaxWaitMs: number;
  /** How long a batch's checks run (simulated time). */
  checksDurationMs: number;
  /** Checks timeout, shown as `checks_timeout_at` (informative: checks always end before it). */
  checksTimeoutMs: number;
  /** How many batches may be in the train at once (speculative checks). */
  speculativeChecks: number;
  /** Queue names, highest priority first. */
  queues: string[];
  /** Queue used by `queue` without a name. */
  defaultQueue: string;
  /** Names of the checks every batch runs; the last one fails for a failing pull request. */
  checkNames: string[];
  /** Prefix the command hook answers to (case-insensitive). */
  commandPrefix: string;
  /** `mode` of a new repository's queues. */
  mode: QueueMode;
  /** The application the token belongs to: `created_by` of pause events made through the API. */
  application: { id: number; name: string };
  /** Base URL of the fake CI the checks link to. */
  ciUrl: string;
  /**
   * Mergify's default `commands_restrictions` (`sender-permission>=write`) on every repository: a GitHub
   * App's bot, which is no collaborator, is refused. Default false: as configured in Yardmaster's README.
   */
  refuseBotCommands: boolean;
}

export const DEFAULT_ENGINE_OPTIONS: EngineOptions = {
  batchSize: 2,
  batchMaxWaitMs: 10_000,
  checksDurationMs: 60_000,
  checksTimeoutMs: 60 * 60_000,
  speculativeChecks: 2,
  queues: ["urgent", "default"],
  defaultQueue: "default",
  checkNames: ["ci/build", "ci/test"],
  commandPrefix: "@mergifyio",
  mode: "serial",
  application: { id: 4242, name: "yardmaster" },
  ciUrl: "https://ci.example.com",
  refuseBotCommands: false,
};

export function resolveEngineOptions(partial: Partial<EngineOptions> = {}): EngineOptions {
  const options: EngineOptions = { ...DEFAULT_ENGINE_OPTIONS, ...partial };
  const positive = (name: keyof EngineOptions, value: number, min: number) => {
    if (!Number.isFinite(value) || value < min)
      throw new RangeError(`engine option ${name} must be >= ${min}`);
  };
  positive("batchSize", options.batchSize, 1);
  positive("batchMaxWaitMs", options.batchMaxWaitMs, 0);
  positive("checksDurationMs", options.checksDurationMs, 1);
  positive("checksTimeoutMs", options.checksTimeoutMs, 0);
  positive("speculativeChecks", options.speculativeChecks, 1);
  if (options.checkNames.length === 0) throw new RangeError("engine option checkNames must not be empty");
  if (!options.queues.includes(options.defaultQueue)) {
    options.queues = [...options.queues, options.defaultQueue];
  }
  return options;
}
