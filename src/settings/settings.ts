import { z } from "zod";
import { defaulted, flag, httpUrl, optional, port, positiveAtMost, seconds, timeZone } from "./values.js";

/**
 * Every environment variable Yardmaster reads, in one table. The environment's schema, the surfaces
 * (on, off or partly set), the start log, the logger's redaction list and .env.example all derive from
 * it; the README's settings table names every setting (a test checks both files).
 */

/**
 * A group of settings, as .env.example shows them. A surface is on when all of its settings without a
 * default are set, and off when none is.
 */
export interface Group {
  /** The heading of its part of .env.example. */
  title: string;
  note?: string;
  surface?: {
    /** As the problems and the help name it ("the GitHub App"). */
    name: string;
    /** As the start log names it ("GitHub surface off"). */
    log: string;
    /** What being off means to a user, said in the start log. */
    whenOff?: string;
  };
}

export const GROUPS = {
  github: {
    title: "GitHub App (comment commands)",
    note: "From the app's settings page after registering it from app.yml.",
    surface: { name: "the GitHub App", log: "GitHub surface" },
  },
  "github-enterprise": { title: "GitHub Enterprise Server", note: "Unset for github.com." },
  slack: {
    title: "Slack app (the /mq command, buttons, notifications)",
    note: "From the Slack app's settings.",
    surface: { name: "the Slack app", log: "Slack surface" },
  },
  "identity-linking": {
    title: "Identity linking (/mq login)",
    note: "The GitHub App's OAuth client, from its settings page.",
    surface: { name: "identity linking", log: "identity linking", whenOff: "/mq login is unavailable" },
  },
  "merge-queue": { title: "The merge queue (Mergify, or GitHub's own)" },
  store: { title: "Storage" },
  notifier: { title: "Notifier" },
  server: { title: "HTTP server and logs" },
  permissions: { title: "Permissions" },
} as const satisfies Record<string, Group>;

export type GroupName = keyof typeof GROUPS;
/** The groups that are surfaces: "github" | "slack" | "identity-linking". */
export type SurfaceName = {
  [G in GroupName]: (typeof GROUPS)[G] extends { surface: object } ? G : never;
}[GroupName];

export interface Setting {
  /** What a set value must be, and what an unset one becomes (see values.ts). */
  schema: z.ZodType;
  /** Taken when unset; .env.example shows it as the value. */
  default?: string;
  group: GroupName;
  /** Another setting of the same surface that this one can stand in for: set one of the two. */
  or?: string;
  /** With `or`: both may be set (this one is then used, the other kept for a switch back). */
  orBoth?: boolean;
  /** The start refuses to run without it. */
  required?: boolean;
  /** Not required after all while another setting has this value. */
  optionalWhen?: { setting: string; is: string; why: string };
  /** Never logged: the logger redacts it by name. */
  secret: boolean;
  /** One line: what it is. */
  meaning: string;
  /** A typical value, shown in .env.example's comment (never a real secret); it must pass the schema. */
  example?: string;
}

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const setting = <S extends Setting>(s: S) => s;

export const SETTINGS = {
  APP_ID: setting({
    ...optional(z.string().regex(/^\d+$/, { error: "must be the numeric App ID" })),
    group: "github",
    secret: false,
    meaning: "the numeric App ID",
    example: "123456",
  }),
  PRIVATE_KEY: setting({
    ...optional(z.string()),
    group: "github",
    secret: true,
    meaning: "the app's private key (PEM), inline, with \\n for line breaks; or PRIVATE_KEY_PATH",
  }),
  PRIVATE_KEY_PATH: setting({
    ...optional(z.string()),
    group: "github",
    or: "PRIVATE_KEY",
    secret: false,
    meaning: "the path of the app's private key file, instead of PRIVATE_KEY (set one of the two)",
    example: "/run/secrets/yardmaster.pem",
  }),
  WEBHOOK_SECRET: setting({
    ...optional(z.string().refine((v) => v !== "development", 'must be a real secret, not "development"')),
    group: "github",
    secret: true,
    meaning: 'the webhook secret you chose when registering the app (never "development")',
  }),
  GHE_HOST: setting({
    ...optional(
      z.string().regex(/^[A-Za-z0-9.-]+(:\d+)?$/, {
        error: "must be a host name (and port), without a scheme or path",
      }),
    ),
    group: "github-enterprise",
    secret: false,
    meaning: "the GitHub Enterprise Server host (and port)",
    example: "github.example.com",
  }),
  GHE_PROTOCOL: setting({
    ...defaulted("https", z.enum(["http", "https"], { error: "must be http or https" })),
    group: "github-enterprise",
    secret: false,
    meaning: "whether GHE_HOST answers on http or https",
  }),
  SLACK_BOT_TOKEN: setting({
    ...optional(z.string()),
    group: "slack",
    secret: true,
    meaning: "the Bot User OAuth Token",
    example: "xoxb-0000000000-0000000000000-abcdefghijklmnopqrstuvwx",
  }),
  SLACK_SIGNING_SECRET: setting({
    ...optional(z.string()),
    group: "slack",
    secret: true,
    meaning: "the Signing Secret, from Basic Information",
  }),
  SLACK_APP_TOKEN: setting({
    ...optional(z.string().regex(/^xapp-/, { error: "must be an app-level token (xapp-…)" })),
    group: "slack",
    secret: true,
    or: "SLACK_SIGNING_SECRET",
    orBoth: true,
    meaning:
      "an app-level token with connections:write (Basic Information → App-Level Tokens): Slack then sends everything over Socket Mode, no request URL is needed, and SLACK_SIGNING_SECRET is optional",
    example: "xapp-1-A0000000000-0000000000000-abcdef",
  }),
  SLACK_API_URL: setting({
    ...defaulted("https://slack.com/api/", httpUrl),
    group: "slack",
    secret: false,
    meaning: "the Slack Web API base; only changed for tests and the sandbox",
  }),
  GITHUB_CLIENT_ID: setting({
    ...optional(z.string()),
    group: "identity-linking",
    secret: false,
    meaning: "the GitHub App's client ID",
    example: "Iv1.0123456789abcdef",
  }),
  GITHUB_CLIENT_SECRET: setting({
    ...optional(z.string()),
    group: "identity-linking",
    secret: true,
    meaning: "a client secret generated for it",
  }),
  MERGE_QUEUE_PROVIDER: setting({
    ...defaulted(
      "mergify",
      z.enum(["mergify", "github", "auto"], { error: "must be mergify, github or auto" }),
    ),
    group: "merge-queue",
    secret: false,
    meaning:
      "which merge queue the commands drive: mergify, github (GitHub's own merge queue, through the GitHub App), or auto (GitHub's where the branch has one, otherwise Mergify)",
  }),
  GATE_CHECK_NAME: setting({
    ...defaulted(
      "yardmaster/gate",
      z.string().regex(/^[^\s].{0,98}[^\s]$|^[^\s]$/, {
        error: "must be 1 to 100 characters, not blank at either end",
      }),
    ),
    group: "merge-queue",
    secret: false,
    meaning:
      "the check run Yardmaster's GitHub App reports on GitHub's merge groups and pull requests: held while a branch's queue is paused (make it a required check, README)",
  }),
  MERGE_QUEUE_API_URL: setting({
    ...defaulted("https://api.mergify.com/v1", httpUrl),
    group: "merge-queue",
    secret: false,
    meaning: "the merge-queue API's base URL",
  }),
  MERGE_QUEUE_API_TOKEN: setting({
    ...optional(z.string()),
    group: "merge-queue",
    required: true,
    optionalWhen: {
      setting: "MERGE_QUEUE_PROVIDER",
      is: "github",
      why: "GitHub's own merge queue needs no key: the GitHub App acts",
    },
    secret: true,
    meaning: "the merge-queue API key",
  }),
  MERGE_QUEUE_COMMAND_PREFIX: setting({
    ...defaulted(
      "@mergifyio",
      z.string().regex(/^@[A-Za-z0-9][A-Za-z0-9_-]*(\[bot\])?$/, { error: "must look like @name" }),
    ),
    group: "merge-queue",
    secret: false,
    meaning: "how relayed queue, dequeue and requeue comments address the merge queue",
  }),
  MERGE_QUEUE_BOT_LOGIN: setting({
    ...defaulted(
      "mergify[bot]",
      z.string().regex(/^[A-Za-z0-9][A-Za-z0-9-]*(\[bot\])?$/, {
        error: "must be a GitHub login, e.g. mergify[bot]",
      }),
    ),
    group: "merge-queue",
    secret: false,
    meaning:
      "the GitHub login of the merge queue's bot, whose comments answer relayed commands (read, never run as commands)",
  }),
  RELAY_FOLLOW_SECONDS: setting({
    ...defaulted("600", seconds(86_400)),
    group: "merge-queue",
    secret: false,
    meaning:
      "how long after relaying a command Yardmaster follows the merge queue's answer to it in the thread (a Slack answer can be followed up for 30 minutes at most)",
  }),
  DATABASE_URL: setting({
    ...defaulted(
      "sqlite:./data/yardmaster.db",
      z.string().regex(/^(sqlite:.+|postgres(ql)?:\/\/.+)$/, {
        error: "must be sqlite:<path> or postgres://user@host/db",
      }),
    ),
    group: "store",
    // A PostgreSQL URL carries its password.
    secret: true,
    meaning:
      "where the data is kept: sqlite:<path>, or postgres://user:password@host:5432/database (for several replicas)",
    example: "postgres://yardmaster:password@db:5432/yardmaster",
  }),
  POLL_INTERVAL_SECONDS: setting({
    ...defaulted("15", seconds(3_600)),
    group: "notifier",
    secret: false,
    meaning:
      "seconds between two reads of each subscribed repository's event log (while it is active, when GitHub announces its activity)",
  }),
  POLL_IDLE_SECONDS: setting({
    ...defaulted("300", seconds(3_600)),
    group: "notifier",
    secret: false,
    meaning:
      "seconds between two reads of a repository with no activity in 10 minutes, where GitHub announces its activity to the app (check_run and pull_request events; elsewhere every POLL_INTERVAL_SECONDS); at least POLL_INTERVAL_SECONDS",
  }),
  DOORBELL_MIN_GAP_SECONDS: setting({
    ...defaulted("2", seconds(3_600)),
    group: "notifier",
    secret: false,
    meaning:
      "least time between two reads of a repository's event log asked for by GitHub's events (the doorbell), however many arrive; at most POLL_INTERVAL_SECONDS",
  }),
  DIGEST_TIME_ZONE: setting({
    ...defaulted("UTC", timeZone),
    group: "notifier",
    secret: false,
    meaning:
      "the workspace's time zone (IANA): weekly digests (/mq subscribe <repo> digest=weekly) are posted on Monday at 09:00 there",
    example: "Europe/Paris",
  }),
  HEALTH_STALL_MINUTES: setting({
    ...optional(positiveAtMost(7 * 24 * 60, "minutes")),
    group: "notifier",
    secret: false,
    meaning:
      "minutes without a merge while pull requests wait after which a channel following the health group hears the queue is stalled; unset: three times the p90 time between merges of the last 7 days, at least 30",
    example: "45",
  }),
  HEALTH_PAUSE_REMINDER_HOURS: setting({
    ...defaulted("4", positiveAtMost(7 * 24, "hours")),
    group: "notifier",
    secret: false,
    meaning:
      "hours a pause (not a timed one, not a freeze window) lasts before a channel following the health group is reminded of it, with the Unpause button; again every 24 h at most",
  }),
  PUBLIC_URL: setting({
    ...defaulted("http://localhost:3000", httpUrl),
    group: "server",
    secret: false,
    meaning:
      "the base of the links Yardmaster hands out; the OAuth callback is PUBLIC_URL/github/oauth/callback",
    example: "https://yardmaster.example.com",
  }),
  PORT: setting({
    ...defaulted("3000", port),
    group: "server",
    secret: false,
    meaning: "the port the HTTP server listens on",
  }),
  METRICS_PORT: setting({
    ...optional(port),
    group: "server",
    secret: false,
    meaning:
      "a second port, on HOST, that alone serves /metrics (PORT then answers it 404): keep it off the ingress that GitHub and Slack reach; unset: /metrics on PORT",
    example: "9090",
  }),
  HOST: setting({
    ...defaulted("0.0.0.0", z.string().min(1)),
    group: "server",
    secret: false,
    meaning: "the address the HTTP server listens on",
  }),
  LOG_LEVEL: setting({
    ...defaulted("info", z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(", ")}` })),
    group: "server",
    secret: false,
    meaning: `how much is logged: ${LOG_LEVELS.join(", ")}`,
  }),
  SETUP_CHECK_ON_START: setting({
    ...defaulted("true", flag),
    group: "server",
    secret: false,
    meaning:
      "whether npm start logs the setup check (npm run doctor) once it listens; false skips its calls to GitHub, Slack and the merge queue",
  }),
  COMMAND_CLAIM_SECONDS: setting({
    ...defaulted("30", seconds(600)),
    group: "server",
    secret: false,
    meaning:
      "with several replicas, how long a replica's claim of a comment command holds unrenewed (it renews it every third of that while it runs): a replica that dies mid-command is taken over by another this long after",
  }),
  SHUTDOWN_TIMEOUT_SECONDS: setting({
    ...defaulted("10", seconds(600)),
    group: "server",
    secret: false,
    meaning:
      "on SIGTERM or SIGINT, how long in-flight requests and commands may take to finish before they are abandoned (the exit status is then 1)",
  }),
};

export type SettingName = keyof typeof SETTINGS;
export const SETTING_NAMES = Object.keys(SETTINGS) as SettingName[];

/** The names whose values are never logged. */
export const SECRET_SETTING_NAMES = SETTING_NAMES.filter((name) => SETTINGS[name].secret);

/**
 * PERMISSION_<COMMAND>: one variable per command, read generically here (settings do not know the
 * commands); the command side checks them.
 */
export const PERMISSION_SETTING = {
  prefix: "PERMISSION_",
  group: "permissions",
  meaning: "raise the GitHub permission a command needs (levels can be raised, not lowered)",
  examples: ["PERMISSION_PAUSE=maintain", "PERMISSION_QUEUE=write"],
} as const;

type Shape = { [K in SettingName]: (typeof SETTINGS)[K]["schema"] };

/** The environment, parsed: one key per setting. */
export const envSchema = z.object(
  Object.fromEntries(SETTING_NAMES.map((name) => [name, SETTINGS[name].schema])) as Shape,
);

export type Env = z.infer<typeof envSchema>;
