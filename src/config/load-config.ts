import { readFileSync } from "node:fs";
import { COMMANDS, type CommandName, PERMISSION_CONFIGURABLE } from "../commands/catalog.js";
import type { LogLevel } from "../logger.js";
import { envSchema, permissionLevelSchema } from "./config.schema.js";
import { type PermissionLevel, permissionRank } from "./permission-level.js";

export interface GitHubAppConfig {
  appId: string;
  privateKey: string;
  webhookSecret: string;
}

export interface Config {
  /** null: the GitHub surface is off. */
  github: GitHubAppConfig | null;
  /** Where GitHub is: github.com, or a GitHub Enterprise Server (or the stand-in) by GHE_HOST. */
  githubHost: { host: string; protocol: "http" | "https"; apiUrl: string; webUrl: string } | null;
  /** null: identity linking (/mq login) is off. */
  oauth: { clientId: string; clientSecret: string } | null;
  /** null: the Slack surface is off. */
  slack: { botToken: string; signingSecret: string; apiUrl: string } | null;
  mergeQueue: { apiUrl: string; token: string; commandPrefix: string };
  database: { kind: "sqlite"; path: string } | { kind: "postgres"; url: string };
  pollIntervalSeconds: number;
  publicUrl: string;
  port: number;
  host: string;
  logLevel: LogLevel;
  permissions: Record<CommandName, PermissionLevel>;
}

/** Every variable Yardmaster reads (besides PERMISSION_<COMMAND>). */
export const SETTING_NAMES = Object.keys(envSchema.shape) as (keyof typeof envSchema.shape)[];

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

const set = (env: EnvLike, name: string) => (env[name] ?? "") !== "";

/** Names the missing members of a group of settings that must be all set or all unset. */
function partial(
  label: string,
  env: EnvLike,
  groups: string[][],
  problems: string[],
): "off" | "on" | "partial" {
  const present = groups.map((alternatives) => alternatives.some((n) => set(env, n)));
  if (present.every((p) => !p)) return "off";
  if (present.every(Boolean)) return "on";
  const missing = groups.filter((_, i) => !present[i]).map((alternatives) => alternatives.join(" or "));
  problems.push(
    `${label} is partly configured: set ${missing.join(", ")} (or unset the others to turn it off)`,
  );
  return "partial";
}

export function loadConfig(env: EnvLike, readFile: ReadFile = (p) => readFileSync(p, "utf8")): Config {
  const relevant = [...SETTING_NAMES, ...Object.keys(env).filter((k) => k.startsWith("PERMISSION_"))];
  if (!relevant.some((n) => set(env, n))) throw new ConfigError([], true);

  const problems: string[] = [];
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push(`${String(issue.path[0])} ${issue.message}`);
  }

  const githubState = partial(
    "The GitHub App",
    env,
    [["APP_ID"], ["PRIVATE_KEY", "PRIVATE_KEY_PATH"], ["WEBHOOK_SECRET"]],
    problems,
  );
  const slackState = partial("The Slack app", env, [["SLACK_BOT_TOKEN"], ["SLACK_SIGNING_SECRET"]], problems);
  const oauthState = partial(
    "Identity linking",
    env,
    [["GITHUB_CLIENT_ID"], ["GITHUB_CLIENT_SECRET"]],
    problems,
  );
  if (!set(env, "MERGE_QUEUE_API_TOKEN"))
    problems.push("MERGE_QUEUE_API_TOKEN is required (the merge-queue API key)");
  if (set(env, "PRIVATE_KEY") && set(env, "PRIVATE_KEY_PATH")) {
    problems.push("set PRIVATE_KEY or PRIVATE_KEY_PATH, not both");
  }
  if (set(env, "WEBHOOK_SECRET") && env.WEBHOOK_SECRET === "development") {
    problems.push('WEBHOOK_SECRET must be a real secret, not "development"');
  }

  let privateKey = env.PRIVATE_KEY?.replace(/\\n/g, "\n") ?? "";
  if (githubState === "on" && set(env, "PRIVATE_KEY_PATH")) {
    try {
      privateKey = readFile(env.PRIVATE_KEY_PATH as string);
    } catch (error) {
      problems.push(`PRIVATE_KEY_PATH cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`);
    }
  }
  if (githubState === "on" && privateKey && !/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(privateKey)) {
    problems.push("PRIVATE_KEY is not a PEM private key (-----BEGIN ... PRIVATE KEY-----)");
  }

  const permissions = loadPermissions(env, problems);

  if (problems.length > 0 || !parsed.success) throw new ConfigError(problems);
  const e = parsed.data;

  const githubHost = e.GHE_HOST
    ? {
        host: e.GHE_HOST,
        protocol: e.GHE_PROTOCOL,
        apiUrl: `${e.GHE_PROTOCOL}://${e.GHE_HOST}/api/v3`,
        webUrl: `${e.GHE_PROTOCOL}://${e.GHE_HOST}`,
      }
    : null;

  return {
    github:
      githubState === "on"
        ? { appId: e.APP_ID as string, privateKey, webhookSecret: e.WEBHOOK_SECRET as string }
        : null,
    githubHost,
    oauth:
      oauthState === "on"
        ? { clientId: e.GITHUB_CLIENT_ID as string, clientSecret: e.GITHUB_CLIENT_SECRET as string }
        : null,
    slack:
      slackState === "on"
        ? {
            botToken: e.SLACK_BOT_TOKEN as string,
            signingSecret: e.SLACK_SIGNING_SECRET as string,
            apiUrl: `${e.SLACK_API_URL}/`,
          }
        : null,
    mergeQueue: {
      apiUrl: e.MERGE_QUEUE_API_URL,
      token: e.MERGE_QUEUE_API_TOKEN as string,
      commandPrefix: e.MERGE_QUEUE_COMMAND_PREFIX,
    },
    database: e.DATABASE_URL.startsWith("sqlite:")
      ? { kind: "sqlite", path: e.DATABASE_URL.slice("sqlite:".length) }
      : { kind: "postgres", url: e.DATABASE_URL },
    pollIntervalSeconds: e.POLL_INTERVAL_SECONDS,
    publicUrl: e.PUBLIC_URL,
    port: e.PORT,
    host: e.HOST,
    logLevel: e.LOG_LEVEL,
    permissions,
  };
}

/** Defaults from the command catalog, raised by PERMISSION_<COMMAND> (never lowered). */
function loadPermissions(env: EnvLike, problems: string[]): Record<CommandName, PermissionLevel> {
  const permissions = Object.fromEntries(
    Object.values(COMMANDS).map((c) => [c.name, c.permission]),
  ) as Record<CommandName, PermissionLevel>;
  for (const [key, value] of Object.entries(env)) {
    if (!key.startsWith("PERMISSION_") || value === undefined || value === "") continue;
    const name = key.slice("PERMISSION_".length).toLowerCase() as CommandName;
    if (!PERMISSION_CONFIGURABLE.includes(name)) {
      problems.push(`${key} does not name a command (one of: ${PERMISSION_CONFIGURABLE.join(", ")})`);
      continue;
    }
    const level = permissionLevelSchema.safeParse(value.toLowerCase());
    if (!level.success) {
      problems.push(`${key} ${level.error.issues[0]?.message}`);
      continue;
    }
    if (permissionRank(level.data) < permissionRank(COMMANDS[name].permission)) {
      problems.push(`${key} can only raise the level: ${name} needs at least ${COMMANDS[name].permission}`);
      continue;
    }
    permissions[name] = level.data;
  }
  return permissions;
}

/** One line per surface for the start log: what is on, what is off and why. */
export function describeSurfaces(config: Config): string[] {
  return [
    config.github
      ? `GitHub App ${config.github.appId} on${config.githubHost ? ` (${config.githubHost.webUrl})` : ""}`
      : "GitHub surface off (APP_ID, PRIVATE_KEY, WEBHOOK_SECRET unset)",
    config.slack ? "Slack surface on" : "Slack surface off (SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET unset)",
    config.oauth
      ? "identity linking on"
      : "identity linking off (GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET unset): /mq login is unavailable",
    `merge queue at ${config.mergeQueue.apiUrl}`,
    `store: ${config.database.kind}`,
  ];
}

/** What `npm start` prints when nothing is configured. */
export const HOW_TO_CONFIGURE = `Yardmaster is not configured.

  To try it with no accounts at all:   npm run sandbox
  To run it for real: copy .env.example to .env, fill in at least
    MERGE_QUEUE_API_TOKEN, and the GitHub App (APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH, WEBHOOK_SECRET)
    and/or the Slack app (SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET), then run npm start again.
  The README's "Deploy" section walks through each step.`;

/** GitHub's API and web bases: github.com, or the Enterprise Server host of GHE_HOST. */
export function githubUrls(host: Config["githubHost"]): { apiUrl: string; webUrl: string } {
  return host
    ? { apiUrl: host.apiUrl, webUrl: host.webUrl }
    : { apiUrl: "https://api.github.com", webUrl: "https://github.com" };
}
