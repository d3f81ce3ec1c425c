import { readFileSync } from "node:fs";
import type { z } from "zod";
import {
  envSchema,
  type LogLevel,
  PERMISSION_SETTING,
  SETTING_NAMES,
  SETTINGS,
  type Setting,
  type SettingName,
} from "./settings.js";
import { SURFACES, surfaceState } from "./surfaces.js";

export interface GitHubAppSettings {
  appId: string;
  privateKey: string;
  webhookSecret: string;
}

/** Where GitHub is: github.com (null), or a GitHub Enterprise Server (or the stand-in) by GHE_HOST. */
export type GitHubHost = { host: string; protocol: "http" | "https"; apiUrl: string; webUrl: string } | null;

export interface Settings {
  /** null: the GitHub surface is off. */
  github: GitHubAppSettings | null;
  githubHost: GitHubHost;
  /** null: identity linking (/mq login) is off. */
  oauth: { clientId: string; clientSecret: string } | null;
  /** null: the Slack surface is off. */
  /** `appToken` set: Socket Mode (the signing secret may then be ""). */
  slack: { botToken: string; signingSecret: string; apiUrl: string; appToken?: string } | null;
  mergeQueue: {
    /** MERGE_QUEUE_PROVIDER: which merge queue the commands drive. */
    provider: "mergify" | "github" | "auto";
    apiUrl: string;
    /** "" when the provider is GitHub's queue and no key is set. */
    token: string;
    commandPrefix: string;
    /** The merge queue's bot, whose comments answer relayed commands. */
    botLogin: string;
    /** How long a relayed command's answer is followed. */
    followSeconds: number;
    /** GATE_CHECK_NAME: the gate check that holds GitHub's merge queue while paused (default yardmaster/gate). */
    gateCheckName?: string;
  };
  database: { kind: "sqlite"; path: string } | { kind: "postgres"; url: string };
  pollIntervalSeconds: number;
  /** Seconds between two reads of an idle repository whose activity GitHub announces (the doorbell). */
  pollIdleSeconds: number;
  /** Least seconds between two doorbell reads of a repository (DOORBELL_MIN_GAP_SECONDS), at most the interval. */
  doorbellMinGapSeconds: number;
  /** Where weekly digests are posted on Monday at 09:00 (DIGEST_TIME_ZONE). */
  digestTimeZone: string;
  /** The queue's health alerts (src/health): HEALTH_STALL_MINUTES (null: from the history), HEALTH_PAUSE_REMINDER_HOURS. */
  health: { stallMinutes: number | null; pauseReminderHours: number };
  publicUrl: string;
  port: number;
  /** METRICS_PORT: where /metrics is served alone (the main port then answers it 404); absent: on `port`. */
  metricsPort?: number;
  host: string;
  logLevel: LogLevel;
  /** Whether the start logs the setup check once listening (SETUP_CHECK_ON_START). */
  setupCheckOnStart: boolean;
  /** How long a replica's claim of a comment command holds unrenewed (COMMAND_CLAIM_SECONDS). */
  commandClaimSeconds: number;
  /** How long a graceful stop waits for in-flight work (SHUTDOWN_TIMEOUT_SECONDS). */
  shutdownTimeoutSeconds: number;
}

/** One PERMISSION_<COMMAND> as set: which variable, the command it names (lower case), the level asked. */
export interface PermissionOverride {
  variable: string;
  command: string;
  level: string;
}

export class ConfigError extends Error {
  constructor(
    readonly problems: string[],
    /** True when nothing at all was configured: the start should explain how to begin. */
    readonly nothingConfigured = false,
  ) {
    super(
      nothingConfigured
        ? "Yardmaster is not configured."
        : `Yardmaster cannot start:\n${problems.map((p) => `  - ${p}`).join("\n")}`,
    );
    this.name = "ConfigError";
  }
}

type EnvLike = Record<string, string | undefined>;
type ReadFile = (path: string) => string;

const spec = (name: SettingName): Setting => SETTINGS[name];

export function permissionOverrides(env: EnvLike): PermissionOverride[] {
  const { prefix } = PERMISSION_SETTING;
  return Object.entries(env).flatMap(([variable, level]) =>
    variable.startsWith(prefix) && level
      ? [{ variable, command: variable.slice(prefix.length).toLowerCase(), level }]
      : [],
  );
}

/**
 * The settings of an environment, or the problems that keep Yardmaster from starting (every one, each
 * naming its variable). Throws ConfigError(nothingConfigured) when no setting at all is set.
 */
export function readSettings(
  env: EnvLike,
  readFile: ReadFile = (p) => readFileSync(p, "utf8"),
): { settings: Settings | null; permissionOverrides: PermissionOverride[]; problems: string[] } {
  const isSet = (name: string) => (env[name] ?? "") !== "";
  const overrides = permissionOverrides(env);
  if (!SETTING_NAMES.some(isSet) && overrides.length === 0) throw new ConfigError([], true);

  const problems: string[] = [];
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push(`${String(issue.path[0])} ${issue.message}`);
  }
  const on = surfacesOn(isSet, problems);
  problems.push(...missingOrDoubled(env, isSet));
  const privateKey = readPrivateKey(env, on, isSet, readFile, problems);
  if (parsed.success) problems.push(...contradictions(parsed.data, on, isSet));

  if (problems.length > 0 || !parsed.success)
    return { settings: null, permissionOverrides: overrides, problems };
  return { settings: toSettings(parsed.data, on, privateKey), permissionOverrides: overrides, problems };
}

type Env = z.infer<typeof envSchema>;

/** The surface groups fully set (a partial one is a problem). */
function surfacesOn(isSet: (name: string) => boolean, problems: string[]): Set<string> {
  const on = new Set<string>();
  for (const surface of SURFACES) {
    const state = surfaceState(surface, isSet);
    if (state.state === "partial") problems.push(state.problem);
    if (state.state === "on") on.add(surface.group);
  }
  return on;
}

/** Required settings unset, and settings set with the one they are an alternative to. */
function missingOrDoubled(env: EnvLike, isSet: (name: string) => boolean): string[] {
  const problems: string[] = [];
  for (const name of SETTING_NAMES) {
    const { required, optionalWhen, meaning } = spec(name);
    const excused = optionalWhen !== undefined && env[optionalWhen.setting]?.trim() === optionalWhen.is;
    if (required && !excused && !isSet(name)) problems.push(`${name} is required (${meaning})`);
  }
  for (const name of SETTING_NAMES) {
    const { or, orBoth } = spec(name);
    if (or && !orBoth && isSet(or) && isSet(name)) problems.push(`set ${or} or ${name}, not both`);
  }
  return problems;
}

/** The GitHub App's private key: PRIVATE_KEY, or the file PRIVATE_KEY_PATH names; it must be a PEM key. */
function readPrivateKey(
  env: EnvLike,
  on: Set<string>,
  isSet: (name: string) => boolean,
  readFile: ReadFile,
  problems: string[],
): string {
  let privateKey = env.PRIVATE_KEY?.replace(/\\n/g, "\n") ?? "";
  if (on.has("github") && isSet("PRIVATE_KEY_PATH")) {
    try {
      privateKey = readFile(env.PRIVATE_KEY_PATH as string);
    } catch (error) {
      problems.push(`PRIVATE_KEY_PATH cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`);
    }
  }
  if (on.has("github") && privateKey && !/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(privateKey)) {
    problems.push("PRIVATE_KEY is not a PEM private key (-----BEGIN ... PRIVATE KEY-----)");
  }
  return privateKey;
}

/** Settings each valid alone that do not go together. */
function contradictions(e: Env, on: Set<string>, isSet: (name: string) => boolean): string[] {
  const problems: string[] = [];
  if (e.MERGE_QUEUE_PROVIDER !== "mergify" && !on.has("github")) {
    problems.push(
      `MERGE_QUEUE_PROVIDER=${e.MERGE_QUEUE_PROVIDER} needs the GitHub App (APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH, WEBHOOK_SECRET): it acts on GitHub's merge queue`,
    );
  }
  if (isSet("POLL_IDLE_SECONDS") && e.POLL_IDLE_SECONDS < e.POLL_INTERVAL_SECONDS) {
    problems.push(
      "POLL_IDLE_SECONDS must be at least POLL_INTERVAL_SECONDS (an idle repository is read less often)",
    );
  }
  if (e.METRICS_PORT !== undefined && e.METRICS_PORT !== 0 && e.METRICS_PORT === e.PORT) {
    problems.push(
      "METRICS_PORT must differ from PORT (it serves /metrics apart from the port GitHub and Slack reach)",
    );
  }
  return problems;
}

/** The settings of a valid environment. */
function toSettings(e: Env, on: Set<string>, privateKey: string): Settings {
  return {
    github: on.has("github")
      ? { appId: e.APP_ID as string, privateKey, webhookSecret: e.WEBHOOK_SECRET as string }
      : null,
    githubHost: e.GHE_HOST
      ? {
          host: e.GHE_HOST,
          protocol: e.GHE_PROTOCOL,
          apiUrl: `${e.GHE_PROTOCOL}://${e.GHE_HOST}/api/v3`,
          webUrl: `${e.GHE_PROTOCOL}://${e.GHE_HOST}`,
        }
      : null,
    oauth: on.has("identity-linking")
      ? { clientId: e.GITHUB_CLIENT_ID as string, clientSecret: e.GITHUB_CLIENT_SECRET as string }
      : null,
    slack: on.has("slack")
      ? {
          botToken: e.SLACK_BOT_TOKEN as string,
          signingSecret: e.SLACK_SIGNING_SECRET ?? "",
          apiUrl: `${e.SLACK_API_URL}/`,
          ...(e.SLACK_APP_TOKEN ? { appToken: e.SLACK_APP_TOKEN } : {}),
        }
      : null,
    mergeQueue: {
      apiUrl: e.MERGE_QUEUE_API_URL,
      provider: e.MERGE_QUEUE_PROVIDER,
      token: e.MERGE_QUEUE_API_TOKEN ?? "",
      commandPrefix: e.MERGE_QUEUE_COMMAND_PREFIX,
      botLogin: e.MERGE_QUEUE_BOT_LOGIN,
      followSeconds: e.RELAY_FOLLOW_SECONDS,
      gateCheckName: e.GATE_CHECK_NAME,
    },
    database: e.DATABASE_URL.startsWith("sqlite:")
      ? { kind: "sqlite", path: e.DATABASE_URL.slice("sqlite:".length) }
      : { kind: "postgres", url: e.DATABASE_URL },
    pollIntervalSeconds: e.POLL_INTERVAL_SECONDS,
    // Only the default can be below the interval (checked above): it then follows the interval.
    pollIdleSeconds: Math.max(e.POLL_IDLE_SECONDS, e.POLL_INTERVAL_SECONDS),
    // The interval is its ceiling: a repository GitHub rings for is never read less often than a quiet one.
    doorbellMinGapSeconds: Math.min(e.DOORBELL_MIN_GAP_SECONDS, e.POLL_INTERVAL_SECONDS),
    digestTimeZone: e.DIGEST_TIME_ZONE,
    health: {
      stallMinutes: e.HEALTH_STALL_MINUTES ?? null,
      pauseReminderHours: e.HEALTH_PAUSE_REMINDER_HOURS,
    },
    publicUrl: e.PUBLIC_URL,
    port: e.PORT,
    ...(e.METRICS_PORT !== undefined ? { metricsPort: e.METRICS_PORT } : {}),
    host: e.HOST,
    logLevel: e.LOG_LEVEL,
    setupCheckOnStart: e.SETUP_CHECK_ON_START,
    commandClaimSeconds: e.COMMAND_CLAIM_SECONDS,
    shutdownTimeoutSeconds: e.SHUTDOWN_TIMEOUT_SECONDS,
  };
}

/** GitHub's API and web bases: github.com, or the Enterprise Server host of GHE_HOST. */
export function githubUrls(host: GitHubHost): { apiUrl: string; webUrl: string } {
  return host
    ? { apiUrl: host.apiUrl, webUrl: host.webUrl }
    : { apiUrl: "https://api.github.com", webUrl: "https://github.com" };
}
