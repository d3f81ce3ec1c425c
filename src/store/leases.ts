import { readTime, type StoreContext, time } from "./query-helpers.js";

/** Leases: shared work across replicas (the notifier takes one per channel for each delivery pass). */
export interface LeaseStore {
  /** True if the lease was free, expired (`expiresAt <= now`), or already ours (then extended to now + ttl). */
  tryAcquireLease(name: string, owner: string, now: Date, ttlMs: number): Promise<boolean>;
  /** Releases the lease if `owner` holds it; otherwise does nothing. */
  releaseLease(name: string, owner: string): Promise<void>;
  /** When the lease lapses unless renewed (its holder's last renewal plus its TTL); null when none is held. */
  leaseExpiresAt(name: string): Promise<Date | null>;
}

export function kyselyLeases({ db }: StoreContext): LeaseStore {
  return {
    async tryAcquireLease(name, owner, now, ttlMs) {
      const expiresAt = time(new Date(now.getTime() + ttlMs));
      const taken = await db
        .insertInto("leases")
        .values({ name, owner, expires_at: expiresAt })
        .onConflict((oc) =>
          oc
            .column("name")
            .doUpdateSet({ owner, expires_at: expiresAt })
            .where((eb) => eb.or([eb("leases.owner", "=", owner), eb("leases.expires_at", "<=", time(now))])),
        )
        .returning("name")
        .executeTakeFirst();
      return taken !== undefined;
    },

    async releaseLease(name, owner) {
      await db.deleteFrom("leases").where("name", "=", name).where("owner", "=", owner).execute();
    },

    async leaseExpiresAt(name) {
      const row = await db
        .selectFrom("leases")
        .select("expires_at")
        .where("name", "=", name)
        .executeTakeFirst();
      return row ? readTime(row.expires_at) : null;
    },
  };
}
