import type { Wired } from "../app/service.js";
import type { MergeQueues } from "../core/merge-queue.js";
import type { Logger } from "../logger.js";
import { RelayFollower, type RelayFollowerDeps } from "./follower.js";

export interface RelaysDeps {
  /** The merge queue answers relayed commands in the thread: GitHub's webhooks say when (the GitHub App). */
  hasGitHubApp: boolean;
  store: RelayFollowerDeps["store"];
  /** Relays go to the queue that takes commands as comments (none with MERGE_QUEUE_PROVIDER=github). */
  queues: Pick<MergeQueues, "relaying">;
  /** This replica's runner of durable work (src/work). */
  work: RelayFollowerDeps["work"];
  logger: Logger;
  now: () => Date;
}

/** Relayed commands followed until the merge queue answers (src/relays/follower.ts). */
export function wireRelays(deps: RelaysDeps): Wired & { follower: RelayFollower | null } {
  const relaying = deps.queues.relaying;
  if (!deps.hasGitHubApp || relaying?.commands.via !== "comments") return { follower: null };
  const follower = new RelayFollower({
    store: deps.store,
    queue: { entry: relaying.entry, readAnswer: relaying.commands.readAnswer },
    work: deps.work,
    logger: deps.logger.child({ name: "relays" }),
    now: deps.now,
  });
  // An answer a stopped replica did not finish showing is shown by another's runner once its claim lapses.
  return {
    follower,
    services: [{ name: "relays", start: () => follower.start(), stop: () => follower.stop() }],
  };
}
