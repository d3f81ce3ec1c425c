import pLimit from "p-limit";
import {
  CALL_TIMEOUT_MS,
  fail,
  MOST_REPOSITORIES,
  pass,
  type SetupLine,
  skip,
  warn,
} from "../core/setup-line.js";
import type { Repo } from "../repo.js";
import type { GitHubAppSettings, Settings } from "../settings/read-settings.js";
import { backendPlan, type QueueProvider } from "./choose.js";
import { GitHubQueueClient, type GraphQL } from "./github/client.js";
import { type BranchRule, DEFAULT_GATE_CHECK_NAME } from "./github/gate/index.js";
import {
  type DefaultBranchQueue,
  type GateReading,
  QUEUE_CHECK,
  readDefaultBranchQueue,
} from "./github/setup-check.js";
import { MergeQueueClient } from "./mergify/client.js";
import { checkMergeQueueToken } from "./mergify/setup-check.js";

/**
 * The setup check's merge-queue lines (src/doctor asks for them, and what the backends need of the
 * GitHub App, without knowing which vendor serves): which merge queue serves each subscribed
 * repository, Mergify for all with MERGE_QUEUE_PROVIDER=mergify; otherwise the GitHub App asks GitHub
 * whether the default branch has a merge queue (github/setup-check.ts). With `github` a repository
 * without one is a warning (its commands are refused); with `auto` it is served by Mergify, and only
 * those repositories are given to the merge-queue token check (mergify/setup-check.ts).
 */

/** GitHub's answers, as the setup check reads them through the GitHub App (src/doctor reaches it). */
export type { BranchRule, GraphQL };

/** Repositories asked at once (one GraphQL call each, and a token per installation). */
const AT_ONCE = 4;

/** What the backends that may serve some repository need of the GitHub App (the doctor's app checks). */
export interface BackendNeeds {
  /**
   * Some repository's queue may be driven through the GitHub App (GitHub's own merge queue): app.yml's
   * `contents: write` (to enqueue) and `merge_group` event are needed, and `checks: write` (its gate).
   */
  queueThroughApp: boolean;
  /** Every repository's queue is: the app's `checks: write` already reads any check run. */
  everyQueueThroughApp: boolean;
}

export function backendNeeds(provider: QueueProvider): BackendNeeds {
  const plan = backendPlan(provider);
  return { queueThroughApp: plan.github, everyQueueThroughApp: !plan.mergify };
}

/** How the setup check reaches GitHub as the app; absent where it cannot (the GitHub App is not configured). */
export interface AppReach {
  graphqlFor?: (repo: Repo) => Promise<GraphQL>;
  /** A branch's rules (the gate check's place in them). */
  rulesFor?: (repo: Repo, branch: string) => Promise<BranchRule[]>;
}

/** The setup check's "merge queue" group: each repository's backend, then the merge-queue token. */
export async function backendSetupLines(
  settings: Pick<Settings, "mergeQueue" | "github">,
  repositories: readonly Repo[] | Error,
  reach: AppReach,
): Promise<SetupLine[]> {
  const { mergeQueue } = settings;
  const mergify = () =>
    new MergeQueueClient({
      baseUrl: mergeQueue.apiUrl,
      token: mergeQueue.token,
      timeoutMs: CALL_TIMEOUT_MS,
      retry: { retries: 0 },
    });
  return [
    ...(await checkMergeQueueBackends({
      provider: mergeQueue.provider,
      app: settings.github,
      repositories,
      checkToken: (of) => checkMergeQueueToken(mergify(), of),
      ...(reach.graphqlFor ? { graphqlFor: reach.graphqlFor } : {}),
      gate: {
        name: mergeQueue.gateCheckName ?? DEFAULT_GATE_CHECK_NAME,
        ...(reach.rulesFor ? { rulesFor: reach.rulesFor } : {}),
      },
    })),
    ...(!backendPlan(mergeQueue.provider).mergify
      ? [
          skip(
            "merge-queue token",
            "not needed: MERGE_QUEUE_PROVIDER=github drives GitHub's own merge queue through the GitHub App",
          ),
        ]
      : []),
  ];
}

export interface MergeQueueBackendsOptions {
  provider: QueueProvider;
  /** The GitHub App (null when not configured). */
  app: GitHubAppSettings | null;
  /** Every subscribed repository, or why they cannot be listed. */
  repositories: readonly Repo[] | Error;
  /** The merge-queue token check, given the repositories Mergify serves. */
  checkToken(repositories: readonly Repo[] | Error): Promise<SetupLine[]>;
  /** How the GitHub App reaches a repository's GraphQL; absent: it cannot (it is not configured). */
  graphqlFor?: (repo: Repo) => Promise<GraphQL>;
  /**
   * The gate check (GATE_CHECK_NAME) whose place in each GitHub queue's branch rules is checked, and how
   * the rules are read. Absent, or without rulesFor: not checked.
   */
  gate?: { name: string; rulesFor?: (repo: Repo, branch: string) => Promise<BranchRule[]> };
}

type Served = { repo: Repo; line: SetupLine; mergify: boolean; gate?: SetupLine };

/** Which merge queue serves each subscribed repository, and the token where Mergify serves some. */
export async function checkMergeQueueBackends(options: MergeQueueBackendsOptions): Promise<SetupLine[]> {
  const { provider, repositories, checkToken } = options;
  if (provider === "mergify") {
    const named = repositories instanceof Error ? [] : repositories.slice(0, MOST_REPOSITORIES);
    return [
      ...named.map((r) => pass(QUEUE_CHECK, `${r.fullName}: Mergify`)),
      ...(await checkToken(repositories)),
    ];
  }
  // With `auto` the token is checked on what Mergify serves; with `github` it is not asked for.
  const token = async (of: readonly Repo[] | Error) => (provider === "auto" ? checkToken(of) : []);
  if (repositories instanceof Error)
    return [
      skip(QUEUE_CHECK, `the subscribed repositories cannot be listed (${repositories.message})`),
      ...(await token(repositories)),
    ];
  if (repositories.length === 0)
    return provider === "auto"
      ? checkToken(repositories)
      : [
          pass(
            QUEUE_CHECK,
            "no repository is subscribed yet: nothing to read (/mq subscribe owner/repo in a channel)",
          ),
        ];
  const { app, graphqlFor } = options;
  if (!graphqlFor)
    return [
      fail(
        QUEUE_CHECK,
        `MERGE_QUEUE_PROVIDER=${provider} asks GitHub which branches have a merge queue, through the GitHub App, which is not configured`,
        "set APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH and WEBHOOK_SECRET, or use MERGE_QUEUE_PROVIDER=mergify",
      ),
      ...(await token(repositories)),
    ];
  const client = new GitHubQueueClient(graphqlFor);
  const rulesFor = options.gate?.rulesFor;
  const gate: GateReading | undefined =
    options.gate && rulesFor && app
      ? { name: options.gate.name, appId: Number(app.appId), rulesFor }
      : undefined;
  const limit = pLimit(AT_ONCE);
  const served = await Promise.all(
    repositories
      .slice(0, MOST_REPOSITORIES)
      .map((repo) =>
        limit(async () => servedBy(await readDefaultBranchQueue(client, repo, gate), provider === "auto")),
      ),
  );
  const rest = repositories.length - MOST_REPOSITORIES;
  const lines = [
    ...served.flatMap((s) => (s.gate ? [s.line, s.gate] : [s.line])),
    ...(rest > 0 ? [skip(QUEUE_CHECK, `${rest} more subscribed repositories not checked`)] : []),
  ];
  if (provider === "github") return lines;
  const mergify = served.filter((s) => s.mergify).map((s) => s.repo);
  return [
    ...lines,
    ...(mergify.length > 0
      ? await checkToken(mergify)
      : [skip("merge-queue token", "not needed: no subscribed repository checked uses Mergify")]),
  ];
}

/** Which backend serves a repository, from what GitHub says of its default branch. */
function servedBy(read: DefaultBranchQueue, auto: boolean): Served {
  const { repo } = read;
  if (read.found === "queue")
    return { repo, mergify: false, line: read.line, ...(read.gate ? { gate: read.gate } : {}) };
  if (read.found === "unreadable") return { repo, mergify: false, line: read.line };
  const name = repo.fullName;
  if (auto)
    return {
      repo,
      mergify: true,
      line: pass(QUEUE_CHECK, `${name}: Mergify (no GitHub merge queue on ${read.where})`),
    };
  return {
    repo,
    mergify: false,
    line: warn(
      QUEUE_CHECK,
      `${name}: ${read.where} has no merge queue on GitHub`,
      "turn one on in a branch ruleset, or use MERGE_QUEUE_PROVIDER=auto",
    ),
  };
}
