import type { Logger } from "pino";
import { z } from "zod";
import type { Comment, Issue } from "./state.js";

export interface MergeQueueOptions {
  /** The merge-queue simulator's base URL (without /v1). */
  url: string;
  token: string;
  /** How commands to the merge queue are addressed; default "@mergifyio". */
  prefix?: string;
}

export interface ForwardRecord {
  commentId: number;
  repository: string;
  number: number;
  body: string;
  /** The hook's HTTP status; null when it could not be reached. */
  status: number | null;
  accepted: boolean | null;
  message: string | null;
  /** What the merge queue will do with its answer: edit it as the pull request moves ("queued", "waiting"), or not. */
  follow: "queued" | "waiting" | "final" | null;
  error: string | null;
  at: string;
}

const hookAnswer = z.object({
  accepted: z.boolean(),
  message: z.string(),
  follow: z.enum(["queued", "waiting", "final"]).optional(),
});

/**
 * Plays the merge queue's side of comment commands: a comment on a pull request whose first line starts
 * with the prefix is handed to the simulator's command hook, which answers what the merge queue would.
 */
export class MergeQueueForwarder {
  readonly prefix: string;
  readonly records: ForwardRecord[] = [];

  constructor(
    private readonly options: MergeQueueOptions,
    private readonly logger: Logger,
  ) {
    this.prefix = options.prefix ?? "@mergifyio";
  }

  /** Whether the comment's first line addresses the merge queue (case-insensitive, then space or end). */
  addresses(body: string): boolean {
    const firstLine = body.split(/\r?\n/, 1)[0] ?? "";
    const prefix = this.prefix.toLowerCase();
    if (!firstLine.toLowerCase().startsWith(prefix)) return false;
    const next = firstLine.charAt(prefix.length);
    return next === "" || /\s/.test(next);
  }

  /** POSTs the command to the hook. Never throws: failures are recorded and logged. */
  async forward(comment: Comment, pull: Issue, pullHtmlUrl: string): Promise<ForwardRecord> {
    const repository = pull.repository.fullName;
    const record: ForwardRecord = {
      commentId: comment.id,
      repository,
      number: pull.number,
      body: comment.body,
      status: null,
      accepted: null,
      message: null,
      follow: null,
      error: null,
      at: new Date().toISOString(),
    };
    this.records.push(record);
    const url = `${this.options.url.replace(/\/+$/, "")}/__sim/repos/${repository}/commands`;
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { authorization: `Bearer ${this.options.token}`, "content-type": "application/json" },
        body: JSON.stringify({
          body: comment.body,
          comment_id: comment.id,
          author: { id: comment.user.id, login: comment.user.login },
          pull_request: {
            number: pull.number,
            title: pull.title,
            url: pullHtmlUrl,
            author: { id: pull.user.id, login: pull.user.login },
            base_ref: pull.pull?.baseRef,
            head_sha: pull.pull?.headSha,
          },
        }),
        signal: AbortSignal.timeout(5_000),
      });
      record.status = response.status;
      const text = await response.text();
      if (!response.ok) throw new Error(`command hook answered ${response.status}: ${text.slice(0, 200)}`);
      const answer = hookAnswer.parse(JSON.parse(text));
      record.accepted = answer.accepted;
      record.message = answer.message;
      record.follow = answer.follow ?? "final";
      this.logger.debug({ repository, number: pull.number, accepted: answer.accepted }, "command forwarded");
    } catch (error) {
      record.error = error instanceof Error ? error.message : String(error);
      this.logger.warn({ repository, number: pull.number, err: record.error }, "command forwarding failed");
    }
    return record;
  }
}
