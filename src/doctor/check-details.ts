import pLimit from "p-limit";
import type { SetupLine } from "../core/setup-line.js";
import { CALL_TIMEOUT_MS, listed, MOST_REPOSITORIES, pass, reason, skip, warn } from "../core/setup-line.js";
import type { Repo } from "../repo.js";
import type { GitHubAppSettings } from "../settings/read-settings.js";
import { appJwt } from "./github-app.js";

/**
 * Why a check failed, in a removal's notices (docs/notifications.md, "Why a check failed"), is read from
 * GitHub's check runs as the repository's installation, which needs `checks: read`. GitHub's own merge
 * queue already needs `checks: write` (its installation line fails without it); with Mergify a missing
 * `checks` only loses the details: this says which subscribed repositories' installations lack it.
 */

const CHECK = "check-run details";
/** Repositories asked at once (one call each, with the app's token). */
const AT_ONCE = 4;
const FIX =
  "grant the GitHub App checks: read (app.yml asks for checks: write) in its settings (Permissions & events), then have each installation accept the new permissions";

export interface CheckDetailsOptions {
  app: GitHubAppSettings | null;
  apiUrl: string;
  /** Every subscribed repository, or why they cannot be listed. */
  repositories: readonly Repo[] | Error;
  /**
   * Every repository is on GitHub's queue, which needs checks: write anyway (the backends say:
   * backendNeeds, src/backends/setup-check.ts).
   */
  githubOnly: boolean;
  now?: () => Date;
}

type Access = "granted" | "lacking" | "not installed" | { error: string };

export async function checkCheckDetails(options: CheckDetailsOptions): Promise<SetupLine[]> {
  const { app, repositories } = options;
  if (options.githubOnly) return [];
  if (!app) return [skip(CHECK, "the GitHub App is not configured: a removal shows no check run's details")];
  if (repositories instanceof Error)
    return [skip(CHECK, `the subscribed repositories cannot be listed (${repositories.message})`)];
  const asked = repositories.slice(0, MOST_REPOSITORIES);
  if (asked.length === 0) return [skip(CHECK, "no repository is subscribed yet")];
  const jwt = appJwt(app, options.now?.() ?? new Date());
  const access = await pLimit(AT_ONCE).map(asked, (repo) => accessOf(options.apiUrl, jwt, repo));
  const named = (want: (a: Access) => boolean) =>
    asked.filter((_, i) => want(access[i] as Access)).map((r) => r.fullName);
  const lacking = named((a) => a === "lacking");
  const errors = asked.flatMap((r, i) => {
    const a = access[i];
    return typeof a === "object" ? [`${r.fullName} (${a.error})`] : [];
  });
  const lines: SetupLine[] = [];
  if (lacking.length)
    lines.push(
      warn(
        CHECK,
        `the app's installation on ${listed(lacking)} lacks checks: read: a removal for failed checks there cannot show the check's title, summary and annotations`,
        FIX,
      ),
    );
  if (errors.length) lines.push(skip(CHECK, `could not ask GitHub about ${listed(errors)}`));
  if (!lacking.length && !errors.length) {
    const installed = named((a) => a === "granted").length;
    lines.push(
      pass(
        CHECK,
        installed === asked.length
          ? "every subscribed repository's installation grants checks: read"
          : "every subscribed repository the app is installed on grants checks: read",
      ),
    );
  }
  return lines;
}

/** What the app's installation on the repository grants of `checks` (`GET /repos/{o}/{r}/installation`). */
async function accessOf(apiUrl: string, jwt: string, repo: Repo): Promise<Access> {
  try {
    const response = await fetch(`${apiUrl}/repos/${repo.owner}/${repo.name}/installation`, {
      headers: {
        authorization: `Bearer ${jwt}`,
        accept: "application/vnd.github+json",
        "user-agent": "yardmaster-doctor",
      },
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
    if (response.status === 404) return "not installed";
    if (!response.ok) return { error: String(response.status) };
    const body = (await response.json()) as { permissions?: Record<string, string> };
    const checks = body.permissions?.checks;
    return checks === "read" || checks === "write" ? "granted" : "lacking";
  } catch (error) {
    return { error: reason(error) };
  }
}
