import type { Infrastructure } from "../app/infrastructure.js";
import type { GitHubGateway } from "../commands/ports.js";
import type { MergeQueues } from "../core/merge-queue.js";
import { type PermissionLevel, satisfies } from "../core/permission-level.js";
import type { Repo } from "../repo.js";
import { FlakeShield } from "./shield.js";

export interface ShieldWireDeps {
  infra: Pick<Infrastructure, "config" | "logger" | "store" | "owner" | "now">;
  queues: MergeQueues;
  /** The commands' GitHub, as the repository's installation. */
  gateway: GitHubGateway;
}

/** Whether a login may still turn the shield on: `retry`'s permission (PERMISSION_RETRY), asked now. */
function mayRetry(gateway: GitHubGateway, level: PermissionLevel) {
  return async (repository: Repo, login: string) =>
    satisfies(await gateway.permission(repository, login), level);
}

/**
 * The flake shield (src/shield/shield.ts), handed to the notifier: it acts on the removals the notifier
 * hears, before their notices are queued. Wired only with Slack and the GitHub App.
 */
export function wireShield({ infra, queues, gateway }: ShieldWireDeps): FlakeShield {
  return new FlakeShield({
    store: infra.store,
    queues,
    github: gateway,
    mayRetry: mayRetry(gateway, infra.config.permissions.retry),
    commandPrefix: infra.config.mergeQueue.commandPrefix,
    owner: infra.owner,
    now: infra.now,
    logger: infra.logger.child({ name: "shield" }),
  });
}
