import type { Logger } from "../logger.js";
import type { Repo } from "../repo.js";
import type { PollScheduleStore } from "../store/index.js";
import type { WorkRunner } from "../work/runner.js";

/** The kind of durable work of the doorbell's watch: one item (`all`), due every interval. */
export const DOORBELL_WATCH_KIND = "doorbell-watch";
const KEY = "all";

/**
 * Whether the doorbell still serves the repositories waiting the idle period (docs/notifications.md,
 * "When a repository is read"): an idle repository is read every POLL_IDLE_SECONDS only while its
 * installation receives the events that announce its queue's activity. Once those events are gone (an
 * installation changed, seen when it is read again: at start, or once its cached copy is too old), its
 * idle repositories are read at once, then at the interval, rather than after the idle period. The
 * watch is one item of durable work (a singleton): each look is made by one replica, every interval,
 * and at each replica's start (bringing a read forward is one idempotent update).
 */
export interface DoorbellWatchDeps {
  store: Pick<PollScheduleStore, "listIdlePolls" | "hastenIdlePolls">;
  /** This replica's runner of durable work, which runs the looks. */
  work: WorkRunner;
  /** Whether GitHub announces the repository's activity to the app (its installation, cached a while). */
  doorbellServes: (repository: Repo) => Promise<boolean>;
  /** POLL_INTERVAL_SECONDS: how often the idle repositories are looked at. */
  intervalMs: number;
  logger: Logger;
  now: () => Date;
}

export class DoorbellWatch {
  constructor(private readonly deps: DoorbellWatchDeps) {
    deps.work.register({
      kind: DOORBELL_WATCH_KIND,
      leaseMs: Math.max(10_000, deps.intervalMs),
      run: async () => {
        await this.check();
        return { dueAt: new Date(this.deps.now().getTime() + this.deps.intervalMs) };
      },
    });
  }

  /** Looks at once (a restart sees a doorbell gone meanwhile), then every interval. */
  async start(): Promise<void> {
    const { work, now } = this.deps;
    await work.schedule({ kind: DOORBELL_WATCH_KIND, key: KEY, dueAt: now(), when: "earlier" });
    work.resume(DOORBELL_WATCH_KIND);
  }

  async stop(): Promise<void> {
    await this.deps.work.pause(DOORBELL_WATCH_KIND);
  }

  /**
   * One look: the idle repositories by owner (an app's installation, and so the events it receives, is
   * the account's), one asked per owner; those of an owner whose installation no longer announces its
   * activity (or cannot be read) are read now. Returns how many were brought forward.
   */
  async check(): Promise<number> {
    const { store, doorbellServes, logger } = this.deps;
    const byOwner = new Map<string, Repo[]>();
    for (const repo of await store.listIdlePolls()) {
      const key = repo.owner.toLowerCase();
      byOwner.set(key, [...(byOwner.get(key) ?? []), repo]);
    }
    let hastened = 0;
    for (const repos of byOwner.values()) {
      const [first] = repos;
      if (!first || (await doorbellServes(first).catch(() => false))) continue;
      const count = await store.hastenIdlePolls(repos, this.deps.now());
      if (count > 0)
        logger.info(
          { owner: first.owner, repositories: count },
          "GitHub no longer announces this installation's activity: its idle repositories are read at the interval",
        );
      hastened += count;
    }
    if (hastened > 0) this.deps.work.wakeAt(this.deps.now());
    return hastened;
  }
}
