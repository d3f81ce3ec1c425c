import type { ShieldFigures } from "../commands/ports.js";
import type { Repo } from "../repo.js";
import type { FlakeShieldStore, QueueHistory } from "../store/index.js";

/**
 * What the flake shield did in a stretch, for `stats` and the weekly digest: the pull requests it queued
 * again (its re-queues claimed in the stretch), and how many of those then merged (their next leave of
 * the queue, in the recorded history, was a merge).
 */
export async function shieldFigures(
  store: Pick<FlakeShieldStore, "getFlakeShield" | "listShieldRetries"> &
    Pick<QueueHistory, "readPullQueueEvents">,
  repository: Repo,
  period: { from: Date; to: Date },
  now: Date,
): Promise<ShieldFigures> {
  const on = (await store.getFlakeShield(repository))?.enabled === true;
  const requeues = (await store.listShieldRetries(repository, period)).filter(
    (r) => r.outcome === "requeued",
  );
  let merged = 0;
  for (const requeue of requeues) {
    const after = await store.readPullQueueEvents(
      repository,
      requeue.pull,
      { from: requeue.leftAt, to: new Date(now.getTime() + 1) },
      ["merged", "left"],
    );
    const next = after.find(
      (e) => e.id !== requeue.leftEventId && Date.parse(e.at) > requeue.leftAt.getTime(),
    );
    if (next && (next.kind === "merged" || (next.kind === "left" && next.merged))) merged += 1;
  }
  return { on, requeued: requeues.length, merged };
}
