import type { PauseState, PullRequestQueueDetails, QueueStatus } from "../merge-queue/index.js";
import type { Repo } from "../repo.js";
import type { Surface } from "./catalog.js";
import type { CommandError } from "./errors.js";
import type { PullRequestInfo } from "./ports.js";

/** What the merge queue says of a pull request right after a relayed command. */
export type QueueState =
  | { state: "queued"; details: PullRequestQueueDetails }
  | { state: "not_queued" }
  | { state: "unknown"; error: CommandError };

/** The successful outcome of each command; surfaces render these. */
export type CommandResult =
  | {
      name: "queue" | "dequeue" | "requeue";
      repo: Repo;
      pull: PullRequestInfo;
      /** The exact command the merge queue was sent, e.g. "queue urgent". */
      relayed: string;
      relayCommentUrl: string;
      queue: QueueState;
    }
  | { name: "pause"; repo: Repo; pause: PauseState }
  | { name: "unpause"; repo: Repo }
  | { name: "status"; repo: Repo; branch?: string; status: QueueStatus }
  | { name: "pr"; repo: Repo; pull: number; queue: QueueState }
  | { name: "branches"; repo: Repo; branches: string[] }
  | { name: "help"; surface: Surface }
  | { name: "subscribe"; repo: Repo; branchGlob: string | null; groups: string[]; created: boolean }
  | { name: "unsubscribe"; repo: Repo }
  | {
      name: "subscriptions";
      subscriptions: { repository: string; branchGlob: string | null; groups: string[] }[];
    }
  | { name: "login"; url: string; expiresInMinutes: number }
  | { name: "logout"; login: string }
  | { name: "whoami"; login: string | null };

/** A command run to its end: done, or an error (refused before any call, or failed). */
export type CommandOutcome = { ok: true; result: CommandResult } | { ok: false; error: CommandError };
