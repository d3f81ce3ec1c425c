/** Runs `work` over `items` with at most `limit` at once; resolves when all are done (never rejects). */
export async function mapLimit<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const runner = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item).catch(() => {});
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, runner));
}
