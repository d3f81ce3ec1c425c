import { createSign } from "node:crypto";
import type { SetupLine } from "../core/setup-line.js";
import { CALL_TIMEOUT_MS, fail, listed, pass, reason, skip, warn } from "../core/setup-line.js";
import { ACTIVITY_EVENTS } from "../github/doorbell.js";
import type { GitHubAppSettings } from "../settings/read-settings.js";
import type { GitHubAppAsks } from "./manifests.js";

/**
 * The GitHub App: it authenticates (`GET /app` with its JWT), it is installed, and the app and each
 * installation were granted the permissions and events app.yml asks for. What only the notifier's
 * doorbell needs (its events, and the permissions GitHub asks for to send them) is a warning when
 * missing: without it every repository is read every POLL_INTERVAL_SECONDS (README, Deploy).
 */

const OPTIONAL_EVENTS: readonly string[] = ACTIVITY_EVENTS;
/** GitHub sends check_run and check_suite only with `checks`, and status only with `statuses`. */
const OPTIONAL_PERMISSIONS: readonly string[] = ["checks", "statuses"];
const LEVELS = ["read", "write", "admin"];

export interface GitHubAppCheckOptions {
  app: GitHubAppSettings | null;
  apiUrl: string;
  /** What app.yml asks for, or why it could not be read. */
  asks: GitHubAppAsks | Error;
  /**
   * Whether some repository's queue may be driven through the app, GitHub's own merge queue (the
   * backends say: backendNeeds, src/backends/setup-check.ts): only then are app.yml's `contents: write`
   * (to enqueue) and `merge_group` event (its notices) needed; otherwise they are not asked of anyone.
   */
  githubQueue?: boolean;
  now?: () => Date;
}

/** What only GitHub's own merge queue needs of the app: to enqueue, and the webhooks its notices come from. */
const GITHUB_QUEUE_PERMISSIONS: readonly string[] = ["contents"];
/**
 * What GitHub's own merge queue cannot do without, though the doorbell alone can: the gate check's
 * `checks: write` (without it a pause holds nothing and an unpause releases nothing).
 */
const GITHUB_QUEUE_NEEDS: readonly string[] = ["checks"];
const GITHUB_QUEUE_EVENTS: readonly string[] = ["merge_group"];

interface Granted {
  permissions?: Record<string, string>;
  events?: string[];
}

interface InstallationJson extends Granted {
  id: number;
  account?: { login?: string };
  suspended_at?: string | null;
  html_url?: string;
}

const CHECK = "GitHub App";

type Get = (path: string) => Promise<Response>;

export async function checkGitHubApp(options: GitHubAppCheckOptions): Promise<SetupLine[]> {
  const { app, apiUrl } = options;
  const asks = asksOf(options);
  if (!app)
    return [skip(CHECK, "not configured (APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH, WEBHOOK_SECRET unset)")];
  let jwt: string;
  try {
    jwt = appJwt(app, options.now?.() ?? new Date());
  } catch (error) {
    return [
      fail(
        CHECK,
        `the private key cannot sign (${(error as Error).message})`,
        "generate a private key in the GitHub App's settings and set PRIVATE_KEY_PATH to its .pem file",
      ),
    ];
  }
  const get: Get = (path) =>
    fetch(`${apiUrl}${path}`, {
      headers: {
        authorization: `Bearer ${jwt}`,
        accept: "application/vnd.github+json",
        "user-agent": "yardmaster-doctor",
      },
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
  const self = await authenticate(get, apiUrl);
  if (Array.isArray(self)) return self;
  const lines: SetupLine[] = [pass(CHECK, `authenticates as ${self.slug ?? "?"} (App ID ${app.appId})`)];
  if (asks instanceof Error) {
    lines.push(
      warn(
        `${CHECK} permissions`,
        `app.yml could not be read (${asks.message})`,
        "run from the directory that holds app.yml",
      ),
    );
    return lines;
  }
  const needed = options.githubQueue ? GITHUB_QUEUE_NEEDS : [];
  lines.push(
    ...compare(`${CHECK} permissions`, self, asks, needed, {
      where: "the app's registration",
      fix: "in the GitHub App's settings (Permissions & events), grant them and tick the events, then have each installation accept the new permissions",
      ok: "the app asks for every permission and event app.yml lists",
    }),
  );
  lines.push(...(await checkInstallations(get, asks, needed)));
  return lines;
}

/** What app.yml asks for, less what only GitHub's own merge queue needs when it is not driven. */
function asksOf(options: GitHubAppCheckOptions): GitHubAppAsks | Error {
  if (options.asks instanceof Error || options.githubQueue) return options.asks;
  return {
    ...options.asks,
    permissions: Object.fromEntries(
      Object.entries(options.asks.permissions).filter(([name]) => !GITHUB_QUEUE_PERMISSIONS.includes(name)),
    ),
    events: options.asks.events.filter((name) => !GITHUB_QUEUE_EVENTS.includes(name)),
  };
}

/** `GET /app` with the app's JWT: what the app was granted, or the line saying why it could not be asked. */
async function authenticate(
  get: Get,
  apiUrl: string,
): Promise<(Granted & { slug?: string; id?: number }) | SetupLine[]> {
  let response: Response;
  try {
    response = await get("/app");
  } catch (error) {
    return [
      fail(
        CHECK,
        `GitHub at ${apiUrl} cannot be reached (${reason(error)})`,
        "check the network, and GHE_HOST and GHE_PROTOCOL for GitHub Enterprise Server",
      ),
    ];
  }
  if (!response.ok) {
    const said = await messageOf(response);
    return [
      fail(
        CHECK,
        `GitHub refused the app's credentials (${response.status}${said ? `: ${said}` : ""})`,
        "check that APP_ID is the app's App ID and that the private key is one generated for this app (its settings → Private keys); a clock more than a minute off also fails",
      ),
    ];
  }
  return (await response.json()) as Granted & { slug?: string; id?: number };
}

/** Each installation: not suspended, and granted what app.yml asks for. */
async function checkInstallations(
  get: Get,
  asks: GitHubAppAsks,
  needed: readonly string[],
): Promise<SetupLine[]> {
  let installations: InstallationJson[];
  try {
    const answer = await get("/app/installations?per_page=100");
    if (!answer.ok) {
      const said = await messageOf(answer);
      throw new Error(`${answer.status}${said ? `: ${said}` : ""}`);
    }
    installations = (await answer.json()) as InstallationJson[];
  } catch (error) {
    return [
      fail(
        "GitHub installations",
        `cannot be listed (${reason(error)})`,
        "run npm run doctor again; if it persists, check GitHub's status",
      ),
    ];
  }
  if (installations.length === 0) {
    return [
      fail(
        "GitHub installations",
        "the app is installed nowhere: no comment command can reach it",
        "install the app (its page → Install App) on the accounts whose repositories' queues you drive",
      ),
    ];
  }
  return installations.flatMap((installation) => {
    const check = `GitHub installation ${installation.account?.login ?? installation.id}`;
    if (installation.suspended_at) {
      return [
        fail(
          check,
          "is suspended",
          "unsuspend the app in the account's settings → Applications → Installed GitHub Apps",
        ),
      ];
    }
    return compare(check, installation, asks, needed, {
      where: "this installation",
      fix: `have the account accept the app's new permissions (${installation.html_url ?? "its settings → Installed GitHub Apps"} → Review request); if none is pending, update the app's permissions and events first`,
      ok: "granted every permission and event app.yml asks for",
    });
  });
}

/**
 * What `granted` lacks of what app.yml asks for, as a line: fail for what commands need (and `needed`:
 * what GitHub's own merge queue needs, where it is served), warn for what only the doorbell needs.
 */
function compare(
  check: string,
  granted: Granted,
  asks: GitHubAppAsks,
  needed: readonly string[],
  words: { where: string; fix: string; ok: string },
): SetupLine[] {
  const permissions = granted.permissions ?? {};
  const missingPermissions = Object.entries(asks.permissions)
    .filter(([name, level]) => LEVELS.indexOf(permissions[name] ?? "") < LEVELS.indexOf(level))
    .map(([name, level]) => ({
      name,
      text: `${name}: ${level}${permissions[name] ? ` (granted ${permissions[name]})` : ""}`,
    }));
  const events = new Set(granted.events ?? []);
  const missingEvents = asks.events.filter((e) => !events.has(e));
  if (missingPermissions.length === 0 && missingEvents.length === 0) return [pass(check, words.ok)];
  const parts = [
    ...(missingPermissions.length ? [`permissions ${listed(missingPermissions.map((p) => p.text))}`] : []),
    ...(missingEvents.length ? [`events ${listed(missingEvents)}`] : []),
  ];
  const optional =
    missingPermissions.every((p) => OPTIONAL_PERMISSIONS.includes(p.name) && !needed.includes(p.name)) &&
    missingEvents.every((e) => OPTIONAL_EVENTS.includes(e));
  const gate = missingPermissions.some((p) => needed.includes(p.name))
    ? ": GitHub's merge queue is held by the gate check, which needs checks: write (without it /mq pause holds nothing and /mq unpause releases nothing)"
    : "";
  const message = `${words.where} lacks ${parts.join(" and ")}${gate}`;
  return optional
    ? [
        warn(
          check,
          `${message}: without them the notifier's doorbell is off and repositories are read every POLL_INTERVAL_SECONDS`,
          words.fix,
        ),
      ]
    : [fail(check, message, words.fix)];
}

async function messageOf(response: Response): Promise<string> {
  try {
    const body = (await response.clone().json()) as { message?: unknown };
    return typeof body.message === "string" ? body.message.slice(0, 200) : "";
  } catch {
    return "";
  }
}

/** The app's JSON web token (RS256), as GitHub asks: issued a minute back, for nine minutes. */
export function appJwt(app: GitHubAppSettings, now: Date): string {
  const seconds = Math.floor(now.getTime() / 1000);
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const unsigned = `${encode({ alg: "RS256", typ: "JWT" })}.${encode({ iat: seconds - 60, exp: seconds + 540, iss: app.appId })}`;
  const signature = createSign("RSA-SHA256").update(unsigned).sign(app.privateKey, "base64url");
  return `${unsigned}.${signature}`;
}
