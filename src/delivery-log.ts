/**
 * Remembers which deliveries (GitHub's X-GitHub-Delivery) were handled, so a redelivery runs
 * nothing twice. Bounded: the oldest ids are forgotten first.
 */
export interface DeliveryLog {
  /** True the first time an id is claimed, false after. */
  claim(id: string): Promise<boolean>;
}

export function memoryDeliveryLog(capacity = 10_000): DeliveryLog {
  const seen = new Set<string>();
  return {
    async claim(id) {
      if (seen.has(id)) return false;
      seen.add(id);
      if (seen.size > capacity) {
        const oldest = seen.values().next().value;
        if (oldest !== undefined) seen.delete(oldest);
      }
      return true;
    },
  };
}
