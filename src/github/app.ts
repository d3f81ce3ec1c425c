import { setTimeout as sleep } from "node:timers/promises";
import type { ApplicationFunction, Context, Probot } from "probot";
import type { QueueHappening } from "../backends/github/queue-events.js";
import { registerQueueWebhooks } from "../backends/github/queue-webhooks.js";
import type { Actor, CommentPlace } from "../commands/command.js";
import { parseGitHubComment } from "../commands/grammar/parse.js";
import { type CommandOutcome, type RunDeps, refuse, runCommand } from "../commands/run.js";
import { storedSteps, unrecordedSteps } from "../commands/steps.js";
import type { MergedPull } from "../core/merged-pulls.js";
import type { Logger } from "../logger.js";
import { Repo } from "../repo.js";
import type { CommandStepStore, WebhookJob } from "../store/index.js";
import { markdownFormat } from "../wording/markdown.js";
import { type CommentReactions, commentReactions } from "./comment-reactions.js";
import { registerDoorbell } from "./doorbell.js";
import { errorStatus, type GitHubWrites, isServerError } from "./github-writes.js";
import { registerMergedPulls } from "./merged-pulls.js";
import { type Octokit, octokitGateway } from "./octokit-gateway.js";
import { type GitHubPresentation, type RelayAnswersDeps, registerRelayAnswers } from "./relay-answers.js";
import { renderSummary } from "./render-markdown.js";
import { SUMMARY_MARKER, type SummaryClaims, upsertSummaryComment } from "./summary-comment.js";
import type { JobClaim, JobQueueFactory } from "./webhook-jobs.js";

/** 👀 is sent only for a command whose answer is not written within this long. */
export const SEEN_AFTER_MS = 1_000;
/** An answer GitHub refused with a 5xx (after the write queue's own retries) is tried once more, this much later. */
export const ANSWER_RETRY_DELAY_MS = 60_000;

export interface GitHubSurfaceDeps extends Omit<RunDeps, "github"> {
  /** The app's slug, read from GitHub at start (GET /app). */
  appSlug: string;
  /**
   * Where a comment command's webhook is recorded, to be answered at once and run after
   * (src/github/webhook-jobs.ts): given the runner, the queue.
   */
  jobs: JobQueueFactory;
  /** The app's one write queue (src/github/github-writes.ts). */
  writes: GitHubWrites;
  /** One summary comment per issue across replicas (the store); absent: this process's lock alone. */
  summaryClaims?: SummaryClaims;
  /**
   * Each command's outside effects recorded as done (the store's command steps, src/commands/steps.ts):
   * a command taken over from a replica that died does not make them again. Absent: every run makes them.
   */
  commandSteps?: CommandStepStore;
  /** GitHub's web address, for links in answers; github.com when not given. */
  githubWebUrl?: string;
  /** Default SEEN_AFTER_MS. */
  seenAfterMs?: number;
  /** Default ANSWER_RETRY_DELAY_MS. */
  answerRetryDelayMs?: number;
  /** GitHub announced activity on a repository (src/github/doorbell.ts): the notifier reads its log early. */
  onRepositoryActivity?: (repository: Repo) => Promise<void>;
  /** GitHub's own merge queue said something happened (queue-webhooks.ts): its backend pushes it as an event. */
  onQueueHappening?: (happening: QueueHappening, deliveryId: string) => Promise<unknown>;
  /** A pull request was merged (merged-pulls.ts): src/outside-merges judges whether it skipped its queue. */
  onPullMerged?: (merge: MergedPull, deliveryId: string) => Promise<unknown>;
  /** The merge queue's time (YardmasterOptions.now), for a merge whose webhook gives no time. */
  now?: () => Date;
  /** Following the merge queue's answers to relayed commands (relay-answers.ts); absent: not followed. */
  relays?: RelayAnswersDeps;
}

type CommentContext = Context<"issue_comment.created">;

/** What running a comment's command needs of its webhook: the payload of its job. */
export interface CommentPayload {
  comment: { id: number; body: string; html_url: string; author: string };
  issue: { number: number; isPullRequest: boolean };
  repository: { owner: string; name: string };
}

/**
 * The GitHub surface (docs/commands.md): a comment in, a command out, Markdown back. A comment that
 * addresses the app is recorded as a job and its webhook answered at once; the command runs after. One
 * summary comment per thread carries the answer; reactions say it was seen while it runs (👀, only when
 * the answer takes longer than a second) and how it ended (👍 / 😕).
 */
export function githubApp(deps: GitHubSurfaceDeps): ApplicationFunction {
  return (app) => {
    const jobs = deps.jobs((job, claim) => runCommentJob(app, job, claim, deps));
    app.on("issue_comment.created", async (context) => {
      const job = commentJob(context, deps.appSlug, new Date());
      if (!job) return;
      if (!(await jobs.accept(job)))
        context.log.info({ delivery: context.id }, "delivery already handled; ignored");
    });
    if (deps.onRepositoryActivity) registerDoorbell(app, deps.onRepositoryActivity);
    if (deps.onQueueHappening) registerQueueWebhooks(app, deps.onQueueHappening);
    if (deps.onPullMerged) registerMergedPulls(app, deps.onPullMerged, deps.now ?? (() => new Date()));
    if (deps.relays) {
      registerRelayAnswers(app, deps.relays, {
        appSlug: deps.appSlug,
        writes: deps.writes,
        ...(deps.summaryClaims ? { summaryClaims: deps.summaryClaims } : {}),
        ...(deps.githubWebUrl ? { githubWebUrl: deps.githubWebUrl } : {}),
      });
    }
  };
}

/** The job of a comment that addresses the app (a command, or one refused), or null for any other. */
function commentJob(context: CommentContext, appSlug: string, receivedAt: Date): WebhookJob | null {
  const { comment, issue, repository, installation } = context.payload;
  const author = comment.user;
  if (!author || author.type === "Bot" || author.login.endsWith("[bot]")) return null;
  const payload: CommentPayload = {
    comment: { id: comment.id, body: comment.body, html_url: comment.html_url, author: author.login },
    issue: { number: issue.number, isPullRequest: Boolean(issue.pull_request) },
    repository: { owner: repository.owner.login, name: repository.name },
  };
  if (parseGitHubComment(comment.body, appSlug, placeOf(payload)).kind === "ignored") return null;
  return {
    deliveryId: context.id,
    kind: "comment",
    installationId: installation?.id ?? 0,
    payload,
    receivedAt,
  };
}

function placeOf(payload: CommentPayload): CommentPlace {
  return {
    repo: Repo.of(payload.repository.owner, payload.repository.name),
    number: payload.issue.number,
    isPullRequest: payload.issue.isPullRequest,
  };
}

/** Runs a recorded comment job as the installation its webhook came for. */
async function runCommentJob(
  app: Probot,
  job: WebhookJob,
  claim: JobClaim,
  deps: GitHubSurfaceDeps,
): Promise<void> {
  const payload = job.payload as CommentPayload;
  const log = app.log.child({
    delivery: job.deliveryId,
    repository: `${payload.repository.owner}/${payload.repository.name}`,
    issue: payload.issue.number,
  });
  const octokit = (await app.auth(job.installationId)) as unknown as Octokit;
  await handleComment({ ...job, payload }, { octokit, log, claim }, deps);
}

/** Where a comment's command runs: as its installation, logging with its delivery, holding its job. */
export interface CommentEnv {
  octokit: Octokit;
  log: Logger;
  claim: JobClaim;
}

export async function handleComment(
  job: Omit<WebhookJob, "payload"> & { payload: CommentPayload },
  env: CommentEnv,
  deps: GitHubSurfaceDeps,
): Promise<void> {
  const { comment } = job.payload;
  const place = placeOf(job.payload);
  const parsed = parseGitHubComment(comment.body, deps.appSlug, place);
  if (parsed.kind === "ignored") return;
  const { octokit, log } = env;
  // The command's outside effects, once across the replicas that run it (docs/architecture.md, "A
  // command's path"): the merge queue's calls, the relayed comment, the summary, the reactions.
  const stepStore = deps.commandSteps;
  const steps = stepStore ? storedSteps(stepStore, job.deliveryId, log) : unrecordedSteps();
  const recorded = async (step: string) =>
    (await stepStore?.commandStep(job.deliveryId, step))?.result ?? null;
  const target = { octokit, writes: deps.writes, repo: place.repo, commentId: comment.id, log };
  const reactions = commentReactions(target, steps, recorded);

  // 👀 only if the answer is not written within about a second; queued behind every answer, and
  // dropped if the answer gets written before it goes: the moment GitHub took it, before the write queue
  // starts its next write (what the answer records after it, in the store, takes a while).
  const answered = new AbortController();
  const answerWrites = droppingSeenOnWrite(deps.writes, answered);
  let seen: Promise<unknown> | undefined;
  const seenTimer = setTimeout(() => {
    seen = reactions.add("eyes", "seen", answered.signal);
  }, deps.seenAfterMs ?? SEEN_AFTER_MS);

  let outcome: CommandOutcome;
  let body: string;
  // The answer's times ("resumes at 18:00 UTC (in 2 h)") on the clock the commands ran on.
  const now = () => deps.now?.() ?? new Date();
  let summaryAt = now();
  let delivery: Delivery;
  // The one summary comment per pull request, edited again if a replica died before recording it.
  const deliver = () =>
    attemptDelivery(() =>
      steps.once("summary", async () => {
        await upsertSummaryComment(
          octokit,
          answerWrites,
          place.repo,
          place.number,
          `${deps.appSlug}[bot]`,
          body,
          deps.summaryClaims,
        );
        return true;
      }),
    );
  try {
    const actor: Actor = { surface: "github", githubLogin: comment.author, display: comment.author };
    const github = octokitGateway(async () => octokit, deps.writes);
    const ports = { ...deps, ...(stepStore ? { steps } : {}), github, logger: log };
    outcome =
      parsed.kind === "refused"
        ? refuse(parsed.error, actor, { ...deps, logger: log })
        : await runCommand(parsed.command, actor, ports);
    // The command ran. Another replica holds the job now (this replica's claim lapsed): it answers,
    // this one writes nothing.
    if (!(await env.claim.ran())) {
      log.warn({ command: parsed.typed }, "another replica took this command over: its answer is left to it");
      return;
    }
    summaryAt = now();
    body = renderSummary(
      {
        marker: SUMMARY_MARKER,
        typed: parsed.typed,
        author: actor.display,
        commentUrl: comment.html_url,
        outcome,
        at: summaryAt,
        ...(deps.githubWebUrl ? { githubWebUrl: deps.githubWebUrl } : {}),
      },
      markdownFormat(deps.appSlug),
    );
    delivery = await deliver();
  } finally {
    clearTimeout(seenTimer);
    answered.abort();
  }
  await seen;

  // Where the answer is, for the merge queue's answer to a relay to be shown there too: once (a run
  // taking over must not mark a later command's relays on the thread superseded).
  const presented = async () => {
    const relays = deps.relays;
    if (!relays) return;
    await steps
      .once("relay.presented", async () => {
        await showRelayHere(relays, outcome, {
          installationId: job.installationId,
          repository: place.repo.fullName,
          number: place.number,
          typed: parsed.typed,
          author: comment.author,
          commentId: comment.id,
          commentUrl: comment.html_url,
          at: summaryAt.toISOString(),
        });
        return true;
      })
      .catch((error: unknown) =>
        log.warn({ err: error }, "could not follow the merge queue's answer to the relayed command"),
      );
  };

  if (delivery.ok) {
    await reactions.add(outcome.ok ? "+1" : "confused");
    // A 😕 an earlier run added when it could not answer (then died) is taken back.
    if (outcome.ok) await reactions.takeBackConfused();
    await presented();
    return;
  }
  await answerLater({
    deps,
    log,
    typed: parsed.typed,
    error: delivery.error,
    outcome,
    reactions,
    deliver,
    presented,
  });
}

/**
 * The command ran (or was refused) but its answer could not be written: 😕, the reason in the log, and
 * after a 5xx one more try a while later (then 👍 instead of 😕 for a command that succeeded).
 */
async function answerLater(a: {
  deps: GitHubSurfaceDeps;
  log: Logger;
  typed: string;
  error: unknown;
  outcome: CommandOutcome;
  reactions: CommentReactions;
  deliver: () => Promise<Delivery>;
  presented: () => Promise<void>;
}): Promise<void> {
  const { deps, log, typed, outcome, reactions } = a;
  const retry = isServerError(a.error);
  log.error(
    { err: a.error, status: errorStatus(a.error), command: typed },
    `could not write the answer (the summary comment): ${reason(a.error)}${
      retry ? "; trying once more later" : ""
    }`,
  );
  await reactions.add("confused");
  if (!retry) return;

  await sleep(deps.answerRetryDelayMs ?? ANSWER_RETRY_DELAY_MS);
  const later = await a.deliver();
  if (!later.ok) {
    log.error(
      { err: later.error, status: errorStatus(later.error), command: typed },
      `could not write the answer on the later try either: ${reason(later.error)}`,
    );
    return;
  }
  log.info({ command: typed }, "the answer was written on the later try");
  if (!outcome.ok) return;
  await reactions.add("+1");
  await reactions.takeBackConfused();
  await a.presented();
}

/**
 * The summary was written: the relay follower is told, and a relayed command's answer from the merge
 * queue will be shown there too.
 */
async function showRelayHere(
  relays: RelayAnswersDeps,
  outcome: CommandOutcome,
  presentation: GitHubPresentation,
): Promise<void> {
  await relays.follower.summaryWritten(Repo.from(presentation.repository), presentation.number);
  const relayId = outcome.ok && "relayId" in outcome.result ? outcome.result.relayId : null;
  if (!relayId) return;
  await relays.follower.presented(relayId, presentation);
}

type Delivery = { ok: true } | { ok: false; error: unknown };

async function attemptDelivery(write: () => Promise<unknown>): Promise<Delivery> {
  try {
    await write();
    return { ok: true };
  } catch (error) {
    return { ok: false, error };
  }
}

function reason(error: unknown): string {
  const status = errorStatus(error);
  const message = error instanceof Error ? error.message : String(error);
  return status === undefined ? message : `GitHub answered ${status} (${message})`;
}

/** `writes`, aborting `answered` as soon as one of them has been written, before the queue goes on. */
function droppingSeenOnWrite(writes: GitHubWrites, answered: AbortController): Pick<GitHubWrites, "run"> {
  return {
    run: (write) =>
      writes.run({
        ...write,
        send: async (request, attempt) => {
          const result = await write.send(request, attempt);
          answered.abort();
          return result;
        },
      }),
  };
}
