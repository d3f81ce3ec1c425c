import type { WorkDone, WorkStore } from "../store/index.js";

interface Waiting {
  done: WorkDone;
  resolve(mine: boolean): void;
  reject(error: unknown): void;
}

/** One run's part in its kind's completions: it ends with `complete`, or `abandon` when it failed. */
export interface CompletionTurn {
  complete(done: WorkDone): Promise<boolean>;
  abandon(): void;
}

/**
 * The completions of one kind's runs on this replica, written together (a kind's `completeTogether`): a
 * claim's quiet reads end one by one, as their answers come, and are completed in one store call, one
 * statement for those due again, rather than one write each. They are written once no run of the kind
 * is under way any more, or once `most` wait (runs that keep coming), at the end of that turn of the
 * event loop (setImmediate). A run's completion waits for its siblings at most until then; its claim is
 * renewed meanwhile.
 */
export class Completions {
  private queued: Waiting[] = [];
  private underWay = 0;
  private scheduled = false;

  constructor(
    private readonly store: Pick<WorkStore, "completeWork">,
    private readonly owner: string,
    private readonly most: number,
  ) {}

  /** A run begins: its completion waits for the others under way (or for `most` to wait). */
  begin(): CompletionTurn {
    this.underWay += 1;
    let open = true;
    const end = () => {
      if (!open) return false;
      open = false;
      this.underWay -= 1;
      return true;
    };
    return {
      complete: (done) =>
        new Promise<boolean>((resolve, reject) => {
          if (!end()) return reject(new Error("this run's completion was already given"));
          this.queued.push({ done, resolve, reject });
          this.flushWhenDue();
        }),
      abandon: () => {
        if (end()) this.flushWhenDue();
      },
    };
  }

  private flushWhenDue(): void {
    if (this.scheduled || this.queued.length === 0) return;
    if (this.underWay > 0 && this.queued.length < this.most) return;
    this.scheduled = true;
    setImmediate(() => void this.flush());
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
    // Runs that queued meanwhile, while the others still run: written when due.
    this.flushWhenDue();
  }
}
