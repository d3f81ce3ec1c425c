import type { Probot } from "probot";
import { z } from "zod";
import { Repo } from "../../repo.js";
import type { QueueHappening } from "./queue-events.js";

/**
 * The webhooks GitHub's own merge queue sends (app.yml subscribes the app to them): `pull_request`
 * `enqueued`, `dequeued` (with its reason) and `closed`, and `merge_group` `checks_requested` and
 * `destroyed`. Only the fields read here are checked; a payload without them is refused (logged) and
 * changes nothing.
 */
const QUEUE_WEBHOOKS = [
  "pull_request.enqueued",
  "pull_request.dequeued",
  "pull_request.closed",
  "merge_group.checks_requested",
  "merge_group.destroyed",
] as const;

const repositorySchema = z.object({ name: z.string(), owner: z.object({ login: z.string() }) });

const pullRequestSchema = z.object({
  action: z.string(),
  number: z.int().positive(),
  reason: z.string().optional(),
  sender: z.object({ login: z.string() }).optional(),
  pull_request: z.object({
    merged: z.boolean().nullable().optional(),
    merge_commit_sha: z.string().nullable().optional(),
    base: z.object({ ref: z.string() }),
  }),
  repository: repositorySchema,
});

const mergeGroupSchema = z.object({
  action: z.string(),
  reason: z.enum(["merged", "invalidated", "dequeued"]).optional(),
  merge_group: z.object({ head_sha: z.string(), head_ref: z.string(), base_ref: z.string() }),
  repository: repositorySchema,
});

/** A merge group's branch: `refs/heads/gh-readonly-queue/<base>/pr-<number>-<head sha>`. */
const GROUP_REF = /^refs\/heads\/gh-readonly-queue\/(.+)\/pr-(\d+)-[0-9a-f]{40}$/;

/**
 * What a merge-queue webhook says happened, or null when it says nothing about the queue (a pull
 * request closed without merging, ...). Throws on a payload without the fields it needs.
 */
export function readQueueWebhook(name: string, payload: unknown): QueueHappening | null {
  if (name === "pull_request") {
    const p = pullRequestSchema.parse(payload);
    const repository = Repo.of(p.repository.owner.login, p.repository.name);
    const where = { repository, number: p.number, baseRef: p.pull_request.base.ref };
    switch (p.action) {
      case "enqueued":
        // The sender is who put it in the queue (the enqueuer).
        return { kind: "entered", ...where, by: p.sender?.login ?? null };
      case "dequeued":
        return {
          kind: "removed",
          ...where,
          reason: p.reason ?? "UNKNOWN_REMOVAL_REASON",
          by: p.sender?.login ?? "someone",
        };
      case "closed":
        return p.pull_request.merged
          ? { kind: "merged", ...where, mergeCommitSha: p.pull_request.merge_commit_sha ?? null }
          : null;
      default:
        return null;
    }
  }
  if (name === "merge_group") {
    const p = mergeGroupSchema.parse(payload);
    const ref = GROUP_REF.exec(p.merge_group.head_ref);
    if (!ref) throw new Error(`not a merge group's branch: ${p.merge_group.head_ref}`);
    const where = {
      repository: Repo.of(p.repository.owner.login, p.repository.name),
      number: Number(ref[2]),
      baseRef: p.merge_group.base_ref.replace(/^refs\/heads\//, ""),
      sha: p.merge_group.head_sha,
    };
    if (p.action === "checks_requested") return { kind: "group-built", ...where };
    if (p.action === "destroyed") return { kind: "group-gone", ...where, reason: p.reason ?? null };
  }
  return null;
}

/**
 * Hands each merge-queue webhook on with its delivery id (the same on a redelivery): the backend turns it
 * into a queue event for the notifier (pushed-events.ts). The signature was checked by Probot before this
 * runs.
 */
export function registerQueueWebhooks(
  app: Probot,
  onHappening: (happening: QueueHappening, deliveryId: string) => Promise<unknown>,
): void {
  app.on([...QUEUE_WEBHOOKS], async (context) => {
    let happening: QueueHappening | null;
    try {
      happening = readQueueWebhook(context.name, context.payload);
    } catch (error) {
      context.log.warn(
        { delivery: context.id, event: context.name, err: error },
        "a merge-queue webhook without the fields it needs: ignored",
      );
      return;
    }
    if (!happening) return;
    try {
      await onHappening(happening, context.id);
    } catch (error) {
      // Answered 500: GitHub's delivery log shows it failed, and a redelivery tries again.
      context.log.error(
        { delivery: context.id, event: context.name, err: error },
        "could not turn a merge-queue webhook into a notice",
      );
      throw error;
    }
  });
}
