import type { Infrastructure } from "../app/infrastructure.js";
import type { Service, Wired } from "../app/service.js";
import type { MergeWitness } from "../core/merged-pulls.js";
import type { QueueEvent } from "../core/queue.js";
import { Periodic } from "../periodic.js";
import type { Repo } from "../repo.js";
import { OutsideMerges, PASS_MS } from "./watch.js";

export interface OutsideMergesWireDeps {
  infra: Pick<Infrastructure, "options" | "logger" | "metrics" | "store" | "owner" | "now" | "merges">;
  /** Whether a merged pull request went through its branch's queue (src/backends/wire.ts). */
  witness: MergeWitness;
  /** The notifier's `tell`: the event to the history and the channels. */
  tell: (repository: Repo, event: QueueEvent) => Promise<unknown>;
}

/**
 * Merges outside the queue (src/outside-merges): the merges GitHub's webhooks tell (the root's `merges`
 * hub) recorded, and judged by the service `outside-merges` on every replica. Only with Slack (nowhere to
 * say them otherwise).
 */
export function wireOutsideMerges({ infra, witness, tell }: OutsideMergesWireDeps): Wired & {
  watch: OutsideMerges;
} {
  const logger = infra.logger.child({ name: "outside-merges" });
  const watch = new OutsideMerges({
    store: infra.store,
    witness,
    tell,
    owner: infra.owner,
    metrics: infra.metrics,
    logger,
    now: infra.now,
  });
  infra.merges.listen((merge, deliveryId) => watch.heard(merge, deliveryId));
  const passes = new Periodic(
    () => watch.runDue(),
    PASS_MS,
    (error) => logger.error({ err: error }, "judging merged pull requests failed"),
  );
  // Started with the poller: with `autoPoll` off (tests), it judges when a test runs it.
  const service: Service = {
    name: "outside-merges",
    start: () => {
      if (infra.options.autoPoll !== false) passes.start();
    },
    stop: () => passes.stop(),
  };
  return { watch, services: [service] };
}
