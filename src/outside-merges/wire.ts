import type { Infrastructure } from "../app/infrastructure.js";
import type { Service, Wired } from "../app/service.js";
import type { MergeWitness } from "../core/merged-pulls.js";
import type { QueueEvent } from "../core/queue.js";
import type { Repo } from "../repo.js";
import { OutsideMerges } from "./watch.js";

export interface OutsideMergesWireDeps {
  infra: Pick<Infrastructure, "options" | "logger" | "metrics" | "store" | "now" | "merges" | "work">;
  /** Whether a merged pull request went through its branch's queue (src/backends/wire.ts). */
  witness: MergeWitness;
  /** The notifier's `tell`: the event to the history and the channels. */
  tell: (repository: Repo, event: QueueEvent) => Promise<unknown>;
}

/**
 * Merges outside the queue (src/outside-merges): the merges GitHub's webhooks tell (the root's `merges`
 * hub) recorded, and judged by the runner of durable work (kind `merged-pull`) of one replica, started
 * by the service `outside-merges`. Only with Slack (nowhere to say them otherwise).
 */
export function wireOutsideMerges({ infra, witness, tell }: OutsideMergesWireDeps): Wired & {
  watch: OutsideMerges;
} {
  const logger = infra.logger.child({ name: "outside-merges" });
  const watch = new OutsideMerges({
    store: infra.store,
    work: infra.work,
    witness,
    tell,
    metrics: infra.metrics,
    logger,
    now: infra.now,
  });
  infra.merges.listen((merge, deliveryId) => watch.heard(merge, deliveryId));
  // Started with the poller: with `autoPoll` off (tests), it judges when a test runs it (runDue).
  const service: Service = {
    name: "outside-merges",
    start: () => {
      if (infra.options.autoPoll !== false) watch.start();
    },
    stop: () => watch.stop(),
  };
  return { watch, services: [service] };
}
