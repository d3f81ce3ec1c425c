import type { Metrics } from "../metrics.js";
import { VERSION } from "../version.js";
import { type Handler, pathOf, sendJson, sendText } from "./http-server.js";

export interface HealthSources {
  /** Resolves true when the store answers a trivial query. */
  storeReachable?: () => Promise<boolean>;
  /** The poller's last successful tick, or null before the first (undefined: no poller). */
  pollerLastTick?: () => Date | null;
}

/** GET /healthz: JSON with this release's version, the store's reachability and the poller's last successful tick. */
export function healthHandler(sources: HealthSources): Handler {
  return async (req, res) => {
    if (req.method !== "GET" || pathOf(req) !== "/healthz") return false;
    const store = sources.storeReachable ? await sources.storeReachable().catch(() => false) : null;
    const lastTick = sources.pollerLastTick?.();
    const ok = store !== false;
    return sendJson(res, ok ? 200 : 503, {
      ok,
      version: VERSION,
      store: store === null ? "none" : store ? "reachable" : "unreachable",
      poller:
        lastTick === undefined
          ? { enabled: false }
          : { enabled: true, lastSuccessfulTick: lastTick?.toISOString() ?? null },
    });
  };
}

/** GET /metrics: Prometheus text. */
export function metricsHandler(metrics: Metrics): Handler {
  return async (req, res) => {
    if (req.method !== "GET" || pathOf(req) !== "/metrics") return false;
    return sendText(res, 200, await metrics.registry.metrics(), metrics.registry.contentType);
  };
}
