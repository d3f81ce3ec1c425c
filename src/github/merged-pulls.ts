import type { Probot } from "probot";
import { z } from "zod";
import type { MergedPull } from "../core/merged-pulls.js";
import { Repo } from "../repo.js";

/**
 * GitHub's `pull_request` `closed` webhook of a pull request that was merged, whatever merged it (a merge
 * queue, a person, an admin's bypass): src/outside-merges judges whether it went through its branch's
 * queue. Only the fields read here are checked; a payload without them is refused (logged) and changes
 * nothing. A pull request closed without merging says nothing.
 */
const closedSchema = z.object({
  action: z.literal("closed"),
  number: z.int().positive(),
  sender: z.object({ login: z.string() }).optional(),
  pull_request: z.object({
    merged: z.boolean().nullable().optional(),
    merged_at: z.string().nullable().optional(),
    merge_commit_sha: z.string().nullable().optional(),
    merged_by: z.object({ login: z.string() }).nullable().optional(),
    title: z.string().nullable().optional(),
    base: z.object({ ref: z.string() }),
  }),
  repository: z.object({ name: z.string(), owner: z.object({ login: z.string() }) }),
});

/** The merge a `closed` webhook says, or null when it closed without merging; throws on a payload without its fields. */
export function readMergedPull(payload: unknown, receivedAt: Date): MergedPull | null {
  const p = closedSchema.parse(payload);
  const pull = p.pull_request;
  if (!pull.merged) return null;
  const mergedAt = pull.merged_at ? new Date(pull.merged_at) : receivedAt;
  return {
    repository: Repo.of(p.repository.owner.login, p.repository.name),
    number: p.number,
    branch: pull.base.ref,
    mergedAt: Number.isNaN(mergedAt.getTime()) ? receivedAt : mergedAt,
    by: pull.merged_by?.login ?? p.sender?.login ?? null,
    sha: pull.merge_commit_sha ?? null,
    title: pull.title ?? null,
  };
}

/**
 * Hands each merged pull request on with its delivery id (the same on a redelivery). The signature was
 * checked by Probot before this runs; a failure to hand it on answers 500, so a redelivery tries again.
 */
export function registerMergedPulls(
  app: Probot,
  onMerged: (merge: MergedPull, deliveryId: string) => Promise<unknown>,
  now: () => Date,
): void {
  app.on("pull_request.closed", async (context) => {
    let merge: MergedPull | null;
    try {
      merge = readMergedPull(context.payload, now());
    } catch (error) {
      context.log.warn(
        { delivery: context.id, err: error },
        "a pull request's closed webhook without the fields it needs: ignored",
      );
      return;
    }
    if (merge) await onMerged(merge, context.id);
  });
}
