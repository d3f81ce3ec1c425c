import type { Repo } from "../repo.js";
import type { QueuePause, QueuePauses } from "./pause.js";

/**
 * A merge queue's state and commands in the core's own terms: what every backend (src/backends/mergify,
 * src/backends/github) offers the commands, the Home tab and the unfurls (docs/backends.md). What a
 * backend cannot do is absent from its object, never a method that throws.
 */

/**
 * Which merge queue it is: known and compared in src/backends only (which one serves a branch, where
 * stats read). The core, the commands and the features ask a backend what it can do (`can`), never this.
 */
export type QueueKind = "mergify" | "github";

/** What a backend can do beyond reading its queue, as it declares it (src/backends). */
export interface QueueAbilities {
  /** Several named queues a pull request is queued into (`queue <name>`). */
  namedQueues: boolean;
  /** Putting a pull request at the head of its queue (`queue --jump`). */
  jump: boolean;
  /**
   * Batches its state reports (`status` shows them, `pr` its queue and priority rule); without, one
   * queue per branch whose entries `status` lists by position, with the queue's configuration.
   */
  batches: boolean;
}

/** What a command may be refused on a backend, beyond `can`: its pause's abilities (QueuePauses). */
export type QueueRefusal =
  | keyof QueueAbilities
  | "pause"
  | "branchPause"
  | "drain"
  | "exemptions"
  | "letThrough";

/**
 * Why a backend cannot do something, in its own words (the refusal's detail, which names the vendor),
 * where it has them; the commands have a neutral sentence for the rest.
 */
export type QueueRefusals = Partial<Record<QueueRefusal, string>>;

/** Where an entry stands, whatever the backend calls it. */
export type EntryState =
  /** Queued, its checks not started (or waiting for a batch, a slot, a schedule). */
  | "waiting"
  | "checks-running"
  /** Its checks passed: it merges next. */
  | "mergeable"
  /** Its checks failed or it cannot merge: it leaves, or is bisected. */
  | "failing"
  /** Being merged (GitHub locks it). */
  | "merging"
  /** The backend said something the core has no word for: `stateName` has it. */
  | "other";

/** When an entry is expected to merge: an instant, or a duration from when it was read. */
export type QueueEstimate = { at: string } | { inSeconds: number };

/** The instant an estimate names, read at `now` (ISO 8601); null without one. */
export function estimatedAt(estimate: QueueEstimate | null, now: Date): string | null {
  if (!estimate) return null;
  if ("at" in estimate) return estimate.at;
  return new Date(now.getTime() + estimate.inSeconds * 1000).toISOString();
}

/** A pull request as a queue lists it. */
export interface QueuePull {
  number: number;
  title: string;
  url: string;
  /** Its author's login; null for a deleted account or where the backend does not say. */
  author: string | null;
}

/** One check of an entry, as the backend reports it. */
export interface EntryCheck {
  name: string;
  /** Its page; null without one. */
  url: string | null;
  /** "success", "failure", "pending", ... (the backend's word, shown with an icon). */
  state: string;
  description: string | null;
}

/** An entry's checks, where the backend tells them. */
export interface EntryChecks {
  /** All of them together: "success", "failure", "pending", ... */
  state: string;
  /** Where they run: "in_place" (on the pull request), "draft_pr" (in a draft pull request), ... */
  runIn: string;
  /** The draft pull request they run in, for "draft_pr". */
  draftPull: number | null;
  checks: EntryCheck[];
}

/** One pull request in a queue. */
export interface QueueEntry {
  /** 1 at the head of the queue. */
  position: number;
  /** Null where the backend no longer says which (GitHub, for a deleted pull request). */
  pull: QueuePull | null;
  state: EntryState;
  /** The backend's own name for the state, where the core has no word for it (state "other"). */
  stateName: string | null;
  /** When it (last) entered the queue (ISO 8601); null when not said. */
  enteredAt: string | null;
  estimate: QueueEstimate | null;
  /** The named queue it is in (a backend with several queues per branch); null where there is one. */
  queue: string | null;
  /** The priority rule that placed it, where the backend has them. */
  priority: string | null;
  /** Who queued it, where the backend says. */
  by: string | null;
  /** Put at the head of the queue ahead of the others. */
  jumped: boolean;
  /** Its scopes (monorepo parts), where the backend has them. */
  scopes: string[];
  /** The batch or merge group it is in; null when waiting outside any. */
  batch: string | null;
  checks: EntryChecks | null;
  /** When its checks time out, where the backend says. */
  checksTimeoutAt: string | null;
}

/** A batch (or merge group) of entries tested together. */
export interface QueueBatch {
  name: string;
  /** What it is doing, the backend's code ("running", "bisecting", "waiting_for_merge", ...). */
  status: string;
  checks: { passed: number; total: number };
  estimate: QueueEstimate | null;
  entries: QueueEntry[];
  /** Its parts being tested apart (Mergify's sub-batches); empty when none. */
  parts: QueueBatch[];
}

/** How the queue is set up, where the backend says. */
export interface QueueSettings {
  /** MERGE, SQUASH, REBASE. */
  mergeMethod: string | null;
  mergingStrategy: string | null;
  minimumEntriesToMerge: number | null;
  maximumEntriesToMerge: number | null;
  maximumEntriesToBuild: number | null;
  /** Seconds. */
  checkResponseTimeout: number | null;
}

/** A branch's queue (or, where the backend answers for every branch, the repository's). */
export interface QueueState {
  /** The branch whose queue this is; null when it is every branch's. */
  branch: string | null;
  /** The queue's page; null without one. */
  url: string | null;
  /** The entries not in a batch, by position: the first ones where the backend pages; `total` counts all. */
  entries: QueueEntry[];
  total: number;
  /** Batches or merge groups being tested; null where the backend shows none. */
  batches: QueueBatch[] | null;
  /** Named sub-queues (Mergify's scope queues) and how many batches each holds; empty when none. */
  scopeQueues: { name: string; batches: number }[];
  /** The pause in force, as the queue tells it; null when it runs (or cannot pause). */
  pause: QueuePause | null;
  settings: QueueSettings | null;
}

/** What the queue's bot answered to a command relayed as a comment, as far as a person needs it. */
export type CommandAnswerKind = "accepted" | "waiting" | "refused" | "not-understood" | "other";

export interface CommandAnswer {
  kind: CommandAnswerKind;
  /** For `refused`: the sender's permission, or the repository's restrictions on commands. */
  refusal: "permission" | "restrictions" | null;
  /** The command the answer quotes ("queue urgent"), when it quotes one. */
  command: string | null;
  /** The answer's headline in plain words: Markdown links reduced to their text, no leading emoji. */
  headline: string;
  /** For `waiting`: the conditions not met yet, as the merge queue wrote them (`label=ready`). */
  unmet: string[];
  /** For `accepted`: the position it announced (1 for "the 1st in the queue"). */
  position: number | null;
}

/** How a backend takes queue, requeue and dequeue. */
export type QueueCommands =
  /**
   * As comments on the pull request addressed to the queue's bot (MERGE_QUEUE_COMMAND_PREFIX), after
   * Yardmaster's own permission check; the bot's answer is followed (src/relays/follower.ts).
   */
  | {
      via: "comments";
      /** Reads the bot's answer comment (created or edited). */
      readAnswer(body: string): CommandAnswer;
    }
  /** Directly, through the backend's API, as Yardmaster's app (one queue per branch; `jump` taken). */
  | {
      via: "api";
      /** Adds the pull request (at the head the caller read) to its base branch's queue. */
      enqueue(
        repo: Repo,
        pull: { number: number; headSha: string },
        options: { jump: boolean },
      ): Promise<QueueEntry | null>;
      /** Takes it out; false when it was not queued. */
      dequeue(repo: Repo, number: number): Promise<boolean>;
    };

/**
 * One merge queue. Failures throw: the core's CommandError, or the backend's own error, which the
 * command runner turns into one (src/commands/run.ts).
 */
export interface MergeQueueBackend {
  /** For src/backends only (see QueueKind). */
  kind: QueueKind;
  /** What it can do: what the commands ask before acting. How commands reach it is `commands.via`. */
  can: QueueAbilities;
  /** Why it cannot, in its own words. */
  cannot: QueueRefusals;
  /** The branch's queue (`null`: the default branch's, or every branch's); null when it has none. */
  state(repo: Repo, branch: string | null): Promise<QueueState | null>;
  /** The pull request's entry; null when it is not queued. */
  entry(repo: Repo, pull: number): Promise<QueueEntry | null>;
  /**
   * The checks of a queued pull request's current run, where the backend reads them apart from its
   * entry (GitHub: its merge group's); null when it is not queued or none are reported.
   */
  entryChecks?(repo: Repo, pull: number): Promise<EntryChecks | null>;
  /** The branches with an active queue, where the backend can list them. */
  branches?(repo: Repo): Promise<string[]>;
  /** Its pause, where the backend (or Yardmaster for it) can hold the queue. */
  pauses?: QueuePauses;
  commands: QueueCommands;
}

/** Which merge queue serves a repository's branch (src/backends/choose.ts decides). */
export interface MergeQueues {
  /**
   * The backend of a branch; with no branch, of the repository's default branch. A function is called
   * for the branch only when the choice depends on it (MERGE_QUEUE_PROVIDER=auto).
   */
  for(repo: Repo, branch?: string | (() => Promise<string | undefined>)): Promise<MergeQueueBackend>;
  /**
   * The backend that takes commands as comments, whose answers relays follow; null where none is
   * configured.
   */
  relaying: MergeQueueBackend | null;
}
