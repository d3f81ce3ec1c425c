/**
 * A background pass run every `everyMs` (counted from the end of the one before) until stopped: one pass
 * at a time; a pass that fails is reported and the next comes all the same; a stop waits for a pass under
 * way. The timer does not keep the process alive.
 */
export class Periodic {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(
    private readonly pass: () => Promise<unknown>,
    private readonly everyMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule();
  }

  /** Stops the passes; resolves once a pass under way has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.pass()
        .then(() => undefined, this.onError)
        .finally(() => {
          this.running = undefined;
          this.schedule();
        });
    }, this.everyMs);
    this.timer.unref();
  }
}
