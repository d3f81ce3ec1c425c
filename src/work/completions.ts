import type { WorkDone, WorkStore } from "../store/index.js";

interface Waiting {
  done: WorkDone;
  resolve(mine: boolean): void;
  reject(error: unknown): void;
}

/**
 * The completions of one replica's runs, written together: every run that ends within one turn of the
 * event loop (the answers that came in one I/O phase: a claim's reads whose requests went out together)
 * is completed in one store call, in one statement for those due again, not one write each. A run's
 * completion waits at most for that turn's end (setImmediate).
 */
export class Completions {
  private queued: Waiting[] = [];
  private scheduled = false;

  constructor(
    private readonly store: Pick<WorkStore, "completeWork">,
    private readonly owner: string,
  ) {}

  /** Completes a run with the others that end in this turn; false if its claim is not this replica's any more. */
  complete(done: WorkDone): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.queued.push({ done, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.queued;
    this.queued = [];
    try {
      const mine = await this.store.completeWork(
        this.owner,
        batch.map((w) => w.done),
      );
      for (const [i, w] of batch.entries()) w.resolve(mine[i] ?? false);
    } catch (error) {
      for (const w of batch) w.reject(error);
    }
  }
}
