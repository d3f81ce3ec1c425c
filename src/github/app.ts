import { setTimeout as sleep } from "node:timers/promises";
import type { ApplicationFunction, Context, Probot } from "probot";
import type { QueueHappening } from "../backends/github/queue-events.js";
import { registerQueueWebhooks } from "../backends/github/queue-webhooks.js";
import type { Actor, CommentPlace } from "../commands/command.js";
import { parseGitHubComment } from "../commands/grammar/parse.js";
import { type CommandOutcome, type RunDeps, refuse, runCommand } from "../commands/run.js";
import type { Logger } from "../logger.js";
import { Repo } from "../repo.js";
import type { CommandStepStore, WebhookJob } from "../store/index.js";
import { markdownFormat } from "../wording/markdown.js";
import { storedSteps } from "./command-steps.js";
import { registerDoorbell } from "./doorbell.js";
import { errorStatus, type GitHubWrites, isServerError, type WritePriority } from "./github-writes.js";
import { type Octokit, octokitGateway } from "./octokit-gateway.js";
import { type GitHubPresentation, type RelayAnswersDeps, registerRelayAnswers } from "./relay-answers.js";
import { renderSummary } from "./render-markdown.js";
import { KeyedLock, SUMMARY_MARKER, type SummaryClaims, upsertSummaryComment } from "./summary-comment.js";
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
   * Each command's outside effects recorded as done (the store, command-steps.ts): a command taken over
   * from a replica that died does not make them again. Absent: every run makes them.
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
  /** Following the merge queue's answers to relayed commands (relay-answers.ts); absent: not followed. */
  relays?: RelayAnswersDeps;
}

type CommentContext = Context<"issue_comment.created">;
type Reaction = "eyes" | "+1" | "confused";

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
  const summaries = new KeyedLock();
  return (app) => {
    const jobs = deps.jobs((job, claim) => runCommentJob(app, job, claim, deps, summaries));
    app.on("issue_comment.created", async (context) => {
      const job = commentJob(context, deps.appSlug, new Date());
      if (!job) return;
      if (!(await jobs.accept(job)))
        context.log.info({ delivery: context.id }, "delivery already handled; ignored");
    });
    if (deps.onRepositoryActivity) registerDoorbell(app, deps.onRepositoryActivity);
    if (deps.onQueueHappening) registerQueueWebhooks(app, deps.onQueueHappening);
    if (deps.relays) {
      registerRelayAnswers(app, deps.relays, {
        appSlug: deps.appSlug,
        writes: deps.writes,
        summaries,
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
  summaries: KeyedLock,
): Promise<void> {
  const payload = job.payload as CommentPayload;
  const log = app.log.child({
    delivery: job.deliveryId,
    repository: `${payload.repository.owner}/${payload.repository.name}`,
    issue: payload.issue.number,
  });
  const octokit = (await app.auth(job.installationId)) as unknown as Octokit;
  await handleComment({ ...job, payload }, { octokit, log, claim }, deps, summaries);
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
  summaries = new KeyedLock(),
): Promise<void> {
  const { comment } = job.payload;
  const place = placeOf(job.payload);
  const parsed = parseGitHubComment(comment.body, deps.appSlug, place);
  if (parsed.kind === "ignored") return;
  const { octokit, log } = env;
  const reactions = reactionsOn(octokit, deps.writes, place.repo, comment.id, log);

  // 👀 only if the answer is not written within about a second; queued behind every answer, and
  // dropped if the answer gets written before it goes.
  const answered = new AbortController();
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
  // The command's outside effects, once across the replicas that run it (the relayed comment, the summary).
  const steps = deps.commandSteps ? { steps: storedSteps(deps.commandSteps, job.deliveryId, log) } : {};
  const once = <T>(step: string, make: () => Promise<T>) =>
    steps.steps ? steps.steps.once(step, make) : make();
  const deliver = () =>
    attemptDelivery(() =>
      once("summary", async () => {
        await summaries.run(`${place.repo.key}#${place.number}`, () =>
          upsertSummaryComment(
            octokit,
            deps.writes,
            place.repo,
            place.number,
            `${deps.appSlug}[bot]`,
            body,
            deps.summaryClaims,
          ),
        );
        return true;
      }),
    );
  try {
    const actor: Actor = { surface: "github", githubLogin: comment.author, display: comment.author };
    const github = octokitGateway(async () => octokit, deps.writes);
    outcome =
      parsed.kind === "refused"
        ? refuse(parsed.error, actor, { ...deps, logger: log })
        : await runCommand(parsed.command, actor, { ...deps, ...steps, github, logger: log });
    // The command ran: no replica runs it again. Another one holds the job now (this replica's claim
    // lapsed): it answers, this one writes nothing.
    if (!(await env.claim.done())) {
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

  // Where the answer is, for the merge queue's answer to a relay to be shown there too.
  const presented = () =>
    showRelayHere(deps, log, outcome, {
      installationId: job.installationId,
      repository: place.repo.fullName,
      number: place.number,
      typed: parsed.typed,
      author: comment.author,
      commentId: comment.id,
      commentUrl: comment.html_url,
      at: summaryAt.toISOString(),
    });

  if (delivery.ok) {
    await reactions.add(outcome.ok ? "+1" : "confused");
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
  reactions: ReturnType<typeof reactionsOn>;
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
  const confused = await reactions.add("confused");
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
  if (confused !== null) await reactions.remove(confused);
  await a.presented();
}

/**
 * The summary was written: the relay follower is told, and a relayed command's answer from the merge
 * queue will be shown there too. A failure is logged, never thrown.
 */
async function showRelayHere(
  deps: GitHubSurfaceDeps,
  log: Logger,
  outcome: CommandOutcome,
  presentation: GitHubPresentation,
): Promise<void> {
  const relays = deps.relays;
  if (!relays) return;
  try {
    await relays.follower.summaryWritten(Repo.from(presentation.repository), presentation.number);
    const relayId = outcome.ok && "relayId" in outcome.result ? outcome.result.relayId : null;
    if (!relayId) return;
    await relays.follower.presented(relayId, presentation);
  } catch (error) {
    log.warn({ err: error }, "could not follow the merge queue's answer to the relayed command");
  }
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

/** Reactions on the command comment, through the write queue; a failure is logged, never thrown. */
function reactionsOn(octokit: Octokit, writes: GitHubWrites, repo: Repo, commentId: number, log: Logger) {
  const what = (content: string) => `${content} reaction on comment ${commentId} in ${repo.fullName}`;
  return {
    /** The reaction's id, or null when it could not be added (or was cancelled). */
    async add(content: Reaction, priority: WritePriority = "outcome", signal?: AbortSignal) {
      try {
        return await writes.run({
          kind: "reaction",
          priority,
          what: what(content),
          ...(signal ? { signal } : {}),
          send: async (request) => {
            const { data } = await octokit.rest.reactions.createForIssueComment({
              owner: repo.owner,
              repo: repo.name,
              comment_id: commentId,
              content,
              request,
            });
            return data.id;
          },
        });
      } catch (error) {
        if (!signal?.aborted) log.warn({ err: error, content }, "could not add a reaction");
        return null;
      }
    },
    async remove(reactionId: number) {
      try {
        await writes.run({
          kind: "delete",
          priority: "outcome",
          what: `removal of reaction ${reactionId} on comment ${commentId} in ${repo.fullName}`,
          send: (request) =>
            octokit.rest.reactions.deleteForIssueComment({
              owner: repo.owner,
              repo: repo.name,
              comment_id: commentId,
              reaction_id: reactionId,
              request,
            }),
        });
      } catch (error) {
        log.warn({ err: error, reactionId }, "could not remove a reaction");
      }
    },
  };
}
