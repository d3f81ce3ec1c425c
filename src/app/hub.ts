/**
 * Tells whoever listens: how a feature notifies one wired after it without knowing it. The composition
 * root makes the hub first; the feature that speaks is given `tell`, the one that hears calls `listen`
 * once it is built (GitHub's webhooks ring the notifier, which is wired later). Told with nobody
 * listening, it does nothing.
 */
export class Hub<A extends unknown[]> {
  readonly #listeners: ((...args: A) => unknown)[] = [];

  listen(listener: (...args: A) => unknown): void {
    this.#listeners.push(listener);
  }

  /** Resolves once every listener's answer settled; rejects as the first one that fails. */
  async tell(...args: A): Promise<void> {
    await Promise.all(this.#listeners.map((listener) => listener(...args)));
  }
}
