/**
 * Remembers which deliveries (GitHub's X-GitHub-Delivery) were handled, so a redelivery runs
 * nothing twice. In production the store keeps them (shared by replicas, pruned after 7 days).
 */
export interface DeliveryLog {
  /** True the first time an id is claimed, false after. */
  claim(id: string): Promise<boolean>;
}
