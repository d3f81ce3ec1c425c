/**
 * Polls `predicate` until it returns a value (anything but undefined, null or false) and resolves with
 * it. A predicate that throws counts as "not yet"; its last error is quoted if time runs out.
 */
export async function waitFor<T>(
  predicate: () => T | undefined | null | false,
  timeoutMs = 15_000,
  intervalMs = 10,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = predicate();
      if (value !== undefined && value !== null && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const reason = lastError instanceof Error ? `: ${lastError.message}` : "";
      throw new Error(`Slack stand-in: waitFor timed out after ${timeoutMs} ms${reason}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
