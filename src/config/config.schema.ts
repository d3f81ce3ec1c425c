import { z } from "zod";
import { LOG_LEVELS } from "../logger.js";
import { PERMISSION_LEVELS } from "./permission-level.js";

/**
 * One schema per setting of PRODUCT.md section 6. Values arrive as strings from the environment; an
 * empty string counts as unset. Grouping into surfaces (and the on / off / partly-set rules) is
 * `load-config.ts`'s job; this file only says what a valid value of each variable is.
 */
const optionalString = z.preprocess((v) => (v === "" ? undefined : v), z.string().optional());

const httpUrl = z
  .url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" })
  .transform((u) => u.replace(/\/+$/, ""));

const port = z.coerce
  .number({ error: "must be a number" })
  .int({ error: "must be a whole number" })
  .min(0, { error: "must be from 0 to 65535" })
  .max(65535, { error: "must be from 0 to 65535" });

const withDefault = <T extends z.ZodType>(schema: T, fallback: string) =>
  z.preprocess((v) => (v === undefined || v === "" ? fallback : v), schema);

export const envSchema = z.object({
  APP_ID: optionalString.pipe(z.string().regex(/^\d+$/, { error: "must be the numeric App ID" }).optional()),
  PRIVATE_KEY: optionalString,
  PRIVATE_KEY_PATH: optionalString,
  WEBHOOK_SECRET: optionalString,
  GHE_HOST: optionalString.pipe(
    z
      .string()
      .regex(/^[A-Za-z0-9.-]+(:\d+)?$/, { error: "must be a host name (and port), without a scheme or path" })
      .optional(),
  ),
  GHE_PROTOCOL: withDefault(z.enum(["http", "https"], { error: "must be http or https" }), "https"),
  GITHUB_CLIENT_ID: optionalString,
  GITHUB_CLIENT_SECRET: optionalString,
  SLACK_BOT_TOKEN: optionalString,
  SLACK_SIGNING_SECRET: optionalString,
  SLACK_API_URL: withDefault(httpUrl, "https://slack.com/api/"),
  MERGE_QUEUE_API_URL: withDefault(httpUrl, "https://api.mergify.com/v1"),
  MERGE_QUEUE_API_TOKEN: optionalString,
  MERGE_QUEUE_COMMAND_PREFIX: withDefault(
    z.string().regex(/^@[A-Za-z0-9][A-Za-z0-9_-]*(\[bot\])?$/, { error: "must look like @name" }),
    "@mergifyio",
  ),
  DATABASE_URL: withDefault(
    z.string().regex(/^(sqlite:.+|postgres(ql)?:\/\/.+)$/, {
      error: "must be sqlite:<path> or postgres://user@host/db",
    }),
    "sqlite:./data/yardmaster.db",
  ),
  POLL_INTERVAL_SECONDS: withDefault(
    z.coerce
      .number({ error: "must be a number" })
      .positive({ error: "must be a positive number of seconds" })
      .max(3600, { error: "must be at most 3600" }),
    "15",
  ),
  PUBLIC_URL: withDefault(httpUrl, "http://localhost:3000"),
  PORT: withDefault(port, "3000"),
  HOST: withDefault(z.string().min(1), "0.0.0.0"),
  LOG_LEVEL: withDefault(z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(", ")}` }), "info"),
});

export type Env = z.infer<typeof envSchema>;

export const permissionLevelSchema = z.enum(PERMISSION_LEVELS, {
  error: `must be one of ${PERMISSION_LEVELS.join(", ")}`,
});
