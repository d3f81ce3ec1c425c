/**
 * Work a graceful stop waits for: requests being answered, and what a surface goes on doing after it
 * answered (a Slack command runs after its acknowledgement). Each piece counts from `begin` until its
 * `end`, or from `track` until its promise settles.
 */
export class InFlight {
  #count = 0;
  #idle: (() => void)[] = [];

  get size(): number {
    return this.#count;
  }

  /** Counts one piece of work; the function returned ends it (calling it again does nothing). */
  begin(): () => void {
    this.#count += 1;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#count -= 1;
      if (this.#count === 0) for (const resolve of this.#idle.splice(0)) resolve();
    };
  }

  /** Counts `work` until it settles; returns it as it is. */
  track<T>(work: Promise<T>): Promise<T> {
    const end = this.begin();
    work.then(end, end);
    return work;
  }

  /** Resolves true once nothing is in flight, or false when `signal` aborts first. */
  idle(signal?: AbortSignal): Promise<boolean> {
    if (this.#count === 0) return Promise.resolve(true);
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = () => {
        signal?.removeEventListener("abort", abort);
        resolve(true);
      };
      const abort = () => {
        this.#idle = this.#idle.filter((r) => r !== done);
        resolve(false);
      };
      this.#idle.push(done);
      signal?.addEventListener("abort", abort, { once: true });
    });
  }
}
