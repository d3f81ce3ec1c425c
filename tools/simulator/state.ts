// The simulator's state and its programmatic interface (used by the HTTP layer, tests and benchmarks):
// repositories, known pull requests, commands, checks outcomes, pause, and reads of the queues and log.

import { createHash, randomUUID } from "node:crypto";
import type { Clock } from "./clock.js";
import {
  type AnswerConclusion,
  answerComment,
  type CommandAuthorInput,
  type CommandResult,
  parseCommand,
  queuedAnswer,
  restrictionRefusal,
} from "./commands.js";
import { Engine } from "./engine.js";
import * as events from "./event-factory.js";
import { EventLog, type LogEvent, type NewLogEvent, serializeEvent } from "./log.js";
import {
  type KnownPullRequest,
  locateEntry,
  type PauseState,
  type Repository,
  repositoryKey,
} from "./model.js";
import type { EngineOptions } from "./options.js";
import type {
  Actor,
  LogEventResponse,
  MergeQueuePullRequest,
  MergeQueueStatus,
  PullRequestAuthor,
  PullRequestLabel,
  QueueMode,
} from "./types.js";
import { pauseView, pullDetailsView, statusView } from "./views.js";

/** An error of the programmatic interface, with the HTTP status the control endpoints answer. */
export class SimError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "SimError";
  }
}

export interface AddRepositoryOptions {
  /** Branches with a merge queue; the first is the default branch. Default ["main"]. */
  branches?: string[];
  /** `mode` of its queues. Default: the engine's `mode`. */
  mode?: QueueMode;
}

export interface PullRequestInput {
  number: number;
  title?: string;
  url?: string;
  author?: PullRequestAuthor;
  base_ref?: string;
  head_sha?: string;
  labels?: string[];
  github_labels?: PullRequestLabel[] | null;
  scopes?: string[];
  checks?: "success" | "failure";
}

export interface CommandInput {
  /** The comment body; only its first line counts. */
  body: string;
  comment_id?: number;
  /** Who wrote the comment (default: the pull request's author). */
  author?: CommandAuthorInput;
  /** The pull request commented on: its number if the simulator knows it, or its data. */
  pull_request: number | PullRequestInput;
}

export const FULL_NAME_PATTERN = /^[A-Za-z0-9-]{1,40}\/[\w\-.]{1,100}$/;
const MAX_PULL_NUMBER = Number.MAX_SAFE_INTEGER;

function fakeSha(seed: string): string {
  return createHash("sha1").update(seed).digest("hex");
}

export class SimState {
  readonly log = new EventLog();
  readonly engine: Engine;
  private readonly repos = new Map<string, Repository>();
  private commentCounter = 1_000_000;

  constructor(
    readonly clock: Clock,
    readonly options: EngineOptions,
  ) {
    this.engine = new Engine(options, this.log, () => this.repos.values());
    clock.attach(this.engine);
  }

  // ---- repositories --------------------------------------------------------------------------------

  addRepository(fullName: string, options: AddRepositoryOptions = {}): Repository {
    if (!FULL_NAME_PATTERN.test(fullName)) throw new SimError(422, `invalid repository name: ${fullName}`);
    const key = repositoryKey(fullName);
    if (this.repos.has(key)) throw new SimError(409, `repository ${fullName} already exists`);
    const branches = options.branches ?? ["main"];
    if (branches.length === 0) throw new SimError(422, "a repository needs at least one branch");
    for (const branch of branches) {
      if (branch.length === 0 || branch.length > 255)
        throw new SimError(422, `invalid branch name: ${branch}`);
    }
    const repo: Repository = {
      fullName,
      key,
      branches: [...new Set(branches)],
      queues: new Map(),
      pulls: new Map(),
      left: new Map(),
      pause: null,
      batchCounter: 0,
      draftCounter: 90_000,
      refuseBotCommands: null,
      waitingCommands: new Map(),
    };
    for (const branch of repo.branches) {
      repo.queues.set(branch, { branch, mode: options.mode ?? this.options.mode, batches: [], waiting: [] });
    }
    this.repos.set(key, repo);
    return repo;
  }

  getRepository(fullName: string): Repository | undefined {
    return this.repos.get(repositoryKey(fullName));
  }

  requireRepository(fullName: string): Repository {
    const repo = this.getRepository(fullName);
    if (repo === undefined) throw new SimError(404, `Repository ${fullName} not found`);
    return repo;
  }

  listRepositories(): Repository[] {
    return [...this.repos.values()];
  }

  // ---- pull requests -------------------------------------------------------------------------------

  /** Makes a pull request known (or updates the given fields of a known one). */
  knowPullRequest(fullName: string, input: PullRequestInput): KnownPullRequest {
    const repo = this.requireRepository(fullName);
    if (!Number.isSafeInteger(input.number) || input.number < 0 || input.number > MAX_PULL_NUMBER) {
      throw new SimError(422, `invalid pull request number: ${input.number}`);
    }
    const existing = repo.pulls.get(input.number);
    if (existing !== undefined) {
      if (input.title !== undefined) existing.title = input.title;
      if (input.url !== undefined) existing.url = input.url;
      if (input.author !== undefined) existing.author = { id: input.author.id, login: input.author.login };
      if (input.base_ref !== undefined && input.base_ref !== existing.baseRef) {
        if (locateEntry(repo, input.number) !== null) {
          throw new SimError(409, `pull request #${input.number} is queued: its base branch cannot change`);
        }
        existing.baseRef = input.base_ref;
      }
      if (input.head_sha !== undefined) existing.headSha = input.head_sha;
      if (input.labels !== undefined) existing.labels = [...input.labels];
      if (input.github_labels !== undefined) existing.githubLabels = input.github_labels;
      if (input.scopes !== undefined) existing.scopes = [...input.scopes];
      if (input.checks !== undefined) existing.checks = input.checks;
      return existing;
    }
    const pull: KnownPullRequest = {
      number: input.number,
      title: input.title ?? `Pull request #${input.number}`,
      url: input.url ?? `https://github.com/${repo.fullName}/pull/${input.number}`,
      author: input.author ?? { id: 1, login: "octocat" },
      baseRef: input.base_ref ?? repo.branches[0] ?? "main",
      headSha: input.head_sha ?? fakeSha(`${repo.key}#${input.number}`),
      labels: [...(input.labels ?? input.github_labels?.map((label) => label.name) ?? [])],
      githubLabels:
        input.github_labels === undefined
          ? (input.labels ?? []).map((name, index) => ({
              id: 1000 + index,
              name,
              color: "ededed",
              default: false,
            }))
          : input.github_labels,
      scopes: [...(input.scopes ?? [])],
      checks: input.checks ?? "success",
      failingCheck: null,
      unmetConditions: [],
    };
    repo.pulls.set(pull.number, pull);
    return pull;
  }

  getPullRequest(fullName: string, number: number): KnownPullRequest | undefined {
    return this.getRepository(fullName)?.pulls.get(number);
  }

  /**
   * Sets the outcome the pull request's checks will have (at the end of their current or next run). A
   * failure with `times` is a flaky check: it fails until it removed the pull request that many times, then
   * its checks pass.
   */
  setChecks(
    fullName: string,
    number: number,
    outcome: "success" | "failure",
    failingCheck?: string,
    times?: number,
  ): void {
    const pull = this.requireRepository(fullName).pulls.get(number);
    if (pull === undefined) throw new SimError(404, `Pull request #${number} is not known in ${fullName}`);
    pull.checks = outcome;
    pull.failingCheck = outcome === "failure" ? (failingCheck ?? null) : null;
    pull.failuresLeft = outcome === "failure" && times !== undefined ? times : null;
  }

  /**
   * Sets the queue conditions the pull request does not meet yet. A queue command waiting for them
   * queues it once none are left (its answer is then edited: GitHub stand-in).
   */
  setConditions(fullName: string, number: number, unmet: string[]): void {
    const repo = this.requireRepository(fullName);
    const pull = repo.pulls.get(number);
    if (pull === undefined) throw new SimError(404, `Pull request #${number} is not known in ${fullName}`);
    pull.unmetConditions = [...unmet];
    const waiting = repo.waitingCommands.get(number);
    if (unmet.length > 0 || waiting === undefined) return;
    repo.waitingCommands.delete(number);
    this.engine.enqueue(repo, pull, waiting.queueName, this.clock.now(), waiting.trigger, waiting.sessionId);
    this.clock.sync();
  }

  /**
   * The pull request was merged on GitHub without the merge queue (an admin's bypass): one still queued
   * leaves its queue with PR_MANUALLY_MERGED, as the merge queue says when it sees the merge; true when it
   * was queued. The merge queue logs no merge of its own for it.
   */
  mergedOutside(fullName: string, number: number): boolean {
    const repo = this.requireRepository(fullName);
    repo.waitingCommands.delete(number);
    const location = locateEntry(repo, number);
    if (location === null) return false;
    this.engine.dequeue(repo, location, this.clock.now(), "Pull request closed", {
      reason: `Pull request #${number} has been merged manually`,
      dequeueCode: "PR_MANUALLY_MERGED",
    });
    this.clock.sync();
    return true;
  }

  /**
   * The repository's `commands_restrictions` for queue and dequeue: Mergify's default refuses a bot
   * sender (`refuseBots: true`); the setup of Yardmaster's README lets the app's bot run them.
   */
  setCommandsRestrictions(fullName: string, refuseBots: boolean): void {
    this.requireRepository(fullName).refuseBotCommands = refuseBots;
  }

  // ---- commands ------------------------------------------------------------------------------------

  /** Runs a comment command, like the merge queue does on a comment that addresses it. */
  relayCommand(fullName: string, input: CommandInput): CommandResult {
    const repo = this.requireRepository(fullName);
    const parsed = parseCommand(input.body, this.options.commandPrefix);
    if (parsed.kind === "not-addressed") {
      return {
        accepted: false,
        message: `The comment's first line is not addressed to ${this.options.commandPrefix}`,
        follow: "final",
      };
    }
    const pull =
      typeof input.pull_request === "number"
        ? repo.pulls.get(input.pull_request)
        : this.knowPullRequest(fullName, input.pull_request);
    if (pull === undefined) {
      throw new SimError(404, `Pull request #${String(input.pull_request)} is not known in ${fullName}`);
    }
    if (parsed.kind === "unknown") {
      return {
        accepted: false,
        message:
          "Sorry but I didn't understand the command. Please consult [the commands documentation](https://docs.mergify.com/commands.html) \u{1F4DA}.",
        follow: "final",
      };
    }
    const at = this.clock.now();
    this.commentCounter += 1;
    const commentId = input.comment_id ?? this.commentCounter;
    const author = input.author ?? pull.author;
    const commandName = parsed.kind === "invalid" ? parsed.command : parsed.kind;
    const label =
      parsed.kind === "queue" && parsed.queueName !== null ? `queue ${parsed.queueName}` : commandName;
    const trigger = events.commandTrigger(label);
    const base = { repository: repo.fullName, at, trigger };
    const location = locateEntry(repo, pull.number);
    const answer = (conclusion: AnswerConclusion, title: string, details: string[] = []) =>
      answerComment(label, conclusion, title, details);
    const record = (
      accepted: boolean,
      sessionId: string | null,
      message: string,
      follow: CommandResult["follow"] = "final",
    ): CommandResult => {
      this.log.append(
        repo.key,
        events.command(
          base,
          `command.${commandName}`,
          accepted,
          { number: pull.number, baseRef: pull.baseRef, url: pull.url },
          { author: { id: author.id, login: author.login }, commentId, sessionId },
        ),
      );
      return { accepted, message, follow };
    };

    if (parsed.kind === "invalid") {
      return record(
        false,
        null,
        answer(
          "failure",
          `Sorry but I didn't understand the arguments of the command \`${commandName}\`. ${parsed.message}`,
        ),
      );
    }
    // Mergify's default restriction (sender-permission>=write) refuses a GitHub App's bot.
    if ((repo.refuseBotCommands ?? this.options.refuseBotCommands) && author.login.endsWith("[bot]")) {
      return record(false, null, restrictionRefusal(label));
    }
    const queue = repo.queues.get(pull.baseRef);
    // requeue is a deprecated alias of queue.
    if (parsed.kind === "queue" || parsed.kind === "requeue") {
      if (location !== null || repo.waitingCommands.has(pull.number)) {
        return record(
          false,
          location?.entry.sessionId ?? null,
          answer("neutral", "This pull request is already queued"),
        );
      }
      if (queue === undefined) {
        return record(
          false,
          null,
          answer("failure", `There is no merge queue for the base branch \`${pull.baseRef}\``),
        );
      }
      const left = repo.left.get(pull.number);
      if (left?.merged) return record(false, null, answer("neutral", "The pull request is already merged"));
      const queueName =
        parsed.kind === "queue" && parsed.queueName !== null
          ? parsed.queueName
          : left && !left.merged && this.options.queues.includes(left.queueName)
            ? left.queueName
            : this.options.defaultQueue;
      if (!this.options.queues.includes(queueName)) {
        return record(
          false,
          null,
          answer(
            "failure",
            `\`${queueName}\` is not a queue of this repository; the queues are: ${this.options.queues.join(", ")}`,
          ),
        );
      }
      const sessionId = randomUUID();
      if (pull.unmetConditions.length > 0) {
        repo.waitingCommands.set(pull.number, { queueName, sessionId, trigger, command: label });
        const details = [
          "- [ ] any of: [🔀 queue conditions]",
          `  - [ ] all of: [📌 queue conditions of queue \`${queueName}\`]`,
          ...pull.unmetConditions.map((condition) => `    - [ ] \`${condition}\``),
          "- [X] `-draft` [📌 queue requirement]",
        ];
        return record(true, sessionId, answer(null, "Waiting for conditions to match", details), "waiting");
      }
      const result = record(true, sessionId, "", "queued");
      this.engine.enqueue(repo, pull, queueName, at, trigger, sessionId);
      this.clock.sync();
      const position = (this.pullDetails(fullName, pull.number)?.position ?? 0) + 1;
      result.message = queuedAnswer(label, position, queueName);
      return result;
    }
    // dequeue
    const waiting = repo.waitingCommands.get(pull.number);
    if (waiting !== undefined) {
      repo.waitingCommands.delete(pull.number);
      return record(
        true,
        waiting.sessionId,
        answer("success", "The pull request is not waiting to be queued anymore."),
      );
    }
    if (location === null)
      return record(false, null, answer("neutral", `Pull request #${pull.number} is not queued`));
    const result = record(
      true,
      location.entry.sessionId,
      answer("success", `The pull request has been removed from the queue \`${location.entry.queueName}\``),
    );
    this.engine.dequeue(repo, location, at, trigger);
    this.clock.sync();
    return result;
  }

  // ---- pause ---------------------------------------------------------------------------------------

  get applicationActor(): Actor {
    return { type: "application", id: this.options.application.id, name: this.options.application.name };
  }

  /**
   * Pauses the repository's queues (or updates the reason); true when it was not paused. `startedAt` (ms,
   * not after the clock's now) makes a new pause one that began then, as a pause made before anyone
   * watched: its `paused_at` and its log event say that instant.
   */
  pause(
    fullName: string,
    reason: string,
    by: Actor = this.applicationActor,
    options: { startedAt?: number } = {},
  ): { created: boolean; pause: PauseState } {
    const repo = this.requireRepository(fullName);
    const now = this.clock.now();
    const created = repo.pause === null;
    if (options.startedAt !== undefined && options.startedAt > now)
      throw new SimError(422, "A pause cannot begin after the simulator's now");
    const at = created && options.startedAt !== undefined ? options.startedAt : now;
    const base = { repository: repo.fullName, at, trigger: events.TRIGGER_API };
    // An update keeps the original paused_at: the queue has been paused since then.
    repo.pause = { reason, pausedAt: repo.pause?.pausedAt ?? at, by };
    this.log.append(
      repo.key,
      created ? events.pauseCreate(base, reason, by) : events.pauseUpdate(base, reason, by),
    );
    return { created, pause: repo.pause };
  }

  /** Unpauses; false (and no event) when the repository was not paused. */
  unpause(fullName: string, by: Actor = this.applicationActor): boolean {
    const repo = this.requireRepository(fullName);
    if (repo.pause === null) return false;
    repo.pause = null;
    this.log.append(
      repo.key,
      events.pauseDelete(
        { repository: repo.fullName, at: this.clock.now(), trigger: events.TRIGGER_API },
        by,
      ),
    );
    this.clock.sync();
    return true;
  }

  // ---- reads ---------------------------------------------------------------------------------------

  /** The queue status as the API serves it. Without a branch: the repository's default (first) branch. */
  status(fullName: string, branch?: string): MergeQueueStatus {
    const repo = this.requireRepository(fullName);
    const name = branch ?? repo.branches[0] ?? "main";
    return statusView(repo, repo.queues.get(name), this.options, this.clock.now());
  }

  /** The queue details of a pull request as the API serves them, or null when it is not queued. */
  pullDetails(fullName: string, number: number) {
    const details: MergeQueuePullRequest | null = pullDetailsView(
      this.requireRepository(fullName),
      number,
      this.options,
      this.clock.now(),
    );
    return details;
  }

  pauseData(fullName: string) {
    return pauseView(this.requireRepository(fullName));
  }

  /** Every event of the repository, oldest first, as the API serves them. */
  events(fullName: string): LogEventResponse[] {
    return this.log.all(this.requireRepository(fullName).key).map(serializeEvent);
  }

  /** Appends an event to a repository's log (e.g. a non-queue event); received_at defaults to now. */
  appendEvent(
    fullName: string,
    event: Omit<NewLogEvent, "repository" | "receivedAt"> & { receivedAt?: number },
  ): LogEvent {
    const repo = this.requireRepository(fullName);
    return this.log.append(repo.key, {
      ...event,
      repository: repo.fullName,
      receivedAt: event.receivedAt ?? this.clock.now(),
    });
  }
}
