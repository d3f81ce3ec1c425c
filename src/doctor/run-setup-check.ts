import { type BranchRule, backendNeeds, backendSetupLines, type GraphQL } from "../backends/setup-check.js";
import { type SetupCheck, type SetupReport, setupCounts } from "../commands/setup-report.js";
import { fail, type SetupLine, type SetupStatus } from "../core/setup-line.js";
import type { Repo } from "../repo.js";
import { githubUrls, type Settings } from "../settings/read-settings.js";
import { checkCheckDetails } from "./check-details.js";
import { checkDatabase, type DatabaseState } from "./database.js";
import { checkGitHubApp } from "./github-app.js";
import { installationAccess } from "./installation-access.js";
import { type GitHubAppAsks, readGitHubAppAsks, readSlackAppAsks, type SlackAppAsks } from "./manifests.js";
import { checkMetricsPort, checkPublicUrl } from "./public-url.js";
import { checkSlackSigningSecret, checkWebhookSecret } from "./secrets.js";
import { checkSlackToken } from "./slack-token.js";

/** What the setup check reads: the settings, the store, and what the manifests ask for. */
export interface SetupCheckDeps {
  settings: Settings;
  /** Where the store is and which migrations it has (throws when it cannot be opened). */
  database(): Promise<DatabaseState>;
  /** The migration versions this build knows. */
  knownMigrations: readonly number[];
  /** Every subscribed repository (throws when the store cannot say). */
  subscribedRepositories(): Promise<Repo[]>;
  /**
   * How the GitHub App reaches a repository's GraphQL; the running server passes its own installations
   * (their tokens cached), `npm run doctor` none (it authenticates as the app itself).
   */
  graphqlFor?: (repo: Repo) => Promise<GraphQL>;
  /** How the GitHub App reads a branch's rules (the gate check's place in them); the same defaults. */
  gateRulesFor?: (repo: Repo, branch: string) => Promise<BranchRule[]>;
  /** Default: app.yml and slack-manifest.yml beside src/ (tests pass their own). */
  manifests?: { github(): GitHubAppAsks; slack(): SlackAppAsks };
  now?: () => Date;
}

/** Runs every check at once; the lines come in a fixed order (GitHub, Slack, merge queue, store, URL). */
export async function runSetupCheck(deps: SetupCheckDeps): Promise<SetupReport> {
  const { settings } = deps;
  const manifests = deps.manifests ?? { github: readGitHubAppAsks, slack: readSlackAppAsks };
  const apiUrl = githubUrls(settings.githubHost).apiUrl;
  const needs = backendNeeds(settings.mergeQueue.provider);
  // How the merge queue's lines reach GitHub as the app: the server's installations, else the app's own.
  const access = settings.github
    ? installationAccess(settings.github, apiUrl, deps.now ?? (() => new Date()))
    : null;
  // Read once, for the two groups that name them (the merge queue's and the check-run details').
  let subscribed: Promise<readonly Repo[] | Error> | undefined;
  const repositories = () => {
    subscribed ??= deps.subscribedRepositories().catch((e: unknown) => asError(e));
    return subscribed;
  };
  const graphqlFor = deps.graphqlFor ?? access?.graphqlFor;
  const rulesFor = deps.gateRulesFor ?? access?.rulesFor;
  const groups: [string, () => Promise<SetupLine[]> | SetupLine[]][] = [
    [
      "GitHub App",
      () =>
        checkGitHubApp({
          app: settings.github,
          apiUrl,
          asks: attempt(manifests.github),
          githubQueue: needs.queueThroughApp,
          ...(deps.now ? { now: deps.now } : {}),
        }),
    ],
    ["webhook secret", () => checkWebhookSecret(settings.github)],
    ["Slack token", () => checkSlackToken(settings.slack, attempt(manifests.slack))],
    ["Slack signing secret", () => checkSlackSigningSecret(settings.slack)],
    [
      "merge queue",
      async () =>
        backendSetupLines(settings, await repositories(), {
          ...(graphqlFor ? { graphqlFor } : {}),
          ...(rulesFor ? { rulesFor } : {}),
        }),
    ],
    [
      "check-run details",
      async () =>
        checkCheckDetails({
          app: settings.github,
          apiUrl,
          repositories: await repositories(),
          githubOnly: needs.everyQueueThroughApp,
          ...(deps.now ? { now: deps.now } : {}),
        }),
    ],
    ["database", () => checkDatabase(deps.database, deps.knownMigrations)],
    [
      "PUBLIC_URL",
      () => [
        ...checkPublicUrl(settings.publicUrl),
        ...checkMetricsPort(settings.publicUrl, settings.metricsPort),
      ],
    ],
  ];
  const results = await Promise.all(
    groups.map(async ([name, run]) => {
      try {
        return await run();
      } catch (error) {
        return [
          fail(
            name,
            `the check itself failed (${asError(error).message})`,
            "run npm run doctor again; report it if it persists",
          ),
        ];
      }
    }),
  );
  const lines = results.flat();
  return { lines, failed: lines.some((l) => l.status === "fail") };
}

/** The setup check as the core's port (`/mq doctor`). */
export function setupCheck(deps: SetupCheckDeps): SetupCheck {
  return { run: () => runSetupCheck(deps) };
}

const MARKS: Record<SetupStatus, string> = { pass: "ok  ", warn: "warn", fail: "FAIL", skip: "skip" };

/** One line per check, for the terminal and the log: "FAIL Slack token: … Fix: …". */
export function formatSetupLine(line: SetupLine): string {
  return `${MARKS[line.status]} ${line.check}: ${line.message}${line.fix ? `. Fix: ${line.fix}.` : ""}`;
}

/** The report's last line. */
export function setupVerdict(report: SetupReport): string {
  const { fails, warns } = setupCounts(report);
  if (fails > 0)
    return `${fails} required check${fails > 1 ? "s" : ""} failed${warns ? `, ${warns} warning${warns > 1 ? "s" : ""}` : ""}: fix them and run npm run doctor again.`;
  return warns > 0 ? `Ready, with ${warns} warning${warns > 1 ? "s" : ""}.` : "Ready: every check passed.";
}

function attempt<T>(read: () => T): T | Error {
  try {
    return read();
  } catch (error) {
    return asError(error);
  }
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));
