import type { Probot } from "probot";
import { z } from "zod";
import { Repo } from "../../../repo.js";
import type { GitHubGate } from "./gate.js";

/**
 * The webhooks the gate answers: `merge_group` `checks_requested` (a merge group's gate),
 * `pull_request` opened, reopened and synchronize (a pull request's gate, always open) and `dequeued`
 * (a held entry removed for GitHub's check timeout). The signature was checked by Probot before this
 * runs; an error answers 500, so GitHub's delivery log shows it and a redelivery tries again.
 */
const GATE_WEBHOOKS = [
  "merge_group.checks_requested",
  "pull_request.opened",
  "pull_request.reopened",
  "pull_request.synchronize",
  "pull_request.dequeued",
] as const;

const repositorySchema = z.object({ name: z.string(), owner: z.object({ login: z.string() }) });

const mergeGroupSchema = z.object({
  merge_group: z.object({ head_sha: z.string(), head_ref: z.string(), base_ref: z.string() }),
  repository: repositorySchema,
});

const pullRequestSchema = z.object({
  action: z.string(),
  number: z.int().positive(),
  reason: z.string().optional(),
  pull_request: z.object({ head: z.object({ sha: z.string() }), base: z.object({ ref: z.string() }) }),
  repository: repositorySchema,
});

/** A merge group's branch: `refs/heads/gh-readonly-queue/<base>/pr-<number>-<head sha>`. */
const GROUP_REF = /^refs\/heads\/gh-readonly-queue\/(.+)\/pr-(\d+)-([0-9a-f]{40})$/;

/** Hands the gate's webhooks to the gate. */
export function registerGateWebhooks(app: Probot, gate: GitHubGate): void {
  app.on([...GATE_WEBHOOKS], async (context) => {
    try {
      await handleGateWebhook(gate, context.name, context.payload);
    } catch (error) {
      context.log.error({ delivery: context.id, event: context.name, err: error }, "the gate check failed");
      throw error;
    }
  });
}

/** One webhook to the gate (exported for tests). */
export async function handleGateWebhook(gate: GitHubGate, name: string, payload: unknown): Promise<void> {
  if (name === "merge_group") {
    const p = mergeGroupSchema.parse(payload);
    const ref = GROUP_REF.exec(p.merge_group.head_ref);
    if (!ref) throw new Error(`not a merge group's branch: ${p.merge_group.head_ref}`);
    await gate.onMergeGroup({
      repository: Repo.of(p.repository.owner.login, p.repository.name),
      baseRef: p.merge_group.base_ref.replace(/^refs\/heads\//, ""),
      headSha: p.merge_group.head_sha,
      pullNumber: Number(ref[2]),
      pullHeadSha: ref[3] ?? "",
    });
    return;
  }
  if (name !== "pull_request") return;
  const p = pullRequestSchema.parse(payload);
  const repository = Repo.of(p.repository.owner.login, p.repository.name);
  if (p.action === "dequeued") {
    await gate.onDequeued({
      repository,
      baseRef: p.pull_request.base.ref,
      pullNumber: p.number,
      headSha: p.pull_request.head.sha,
      reason: p.reason ?? "",
    });
    return;
  }
  await gate.onPullHead({
    repository,
    baseRef: p.pull_request.base.ref,
    headSha: p.pull_request.head.sha,
    pullNumber: p.number,
  });
}
