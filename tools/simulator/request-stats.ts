// Counts of the `/v1` API requests received, per repository and route (read by benchmarks).

export interface RequestCounts {
  total: number;
  repositories: Record<string, { total: number; routes: Record<string, number> }>;
}

export class RequestStats {
  private counts: RequestCounts = { total: 0, repositories: {} };

  record(repository: string, route: string): void {
    this.counts.total += 1;
    const key = repository.toLowerCase();
    const entry = this.counts.repositories[key] ?? { total: 0, routes: {} };
    entry.total += 1;
    entry.routes[route] = (entry.routes[route] ?? 0) + 1;
    this.counts.repositories[key] = entry;
  }

  snapshot(): RequestCounts {
    return structuredClone(this.counts);
  }

  reset(): void {
    this.counts = { total: 0, repositories: {} };
  }
}
