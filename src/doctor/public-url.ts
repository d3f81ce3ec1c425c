import type { SetupLine } from "../core/setup-line.js";
import { pass, warn } from "../core/setup-line.js";

const CHECK = "PUBLIC_URL";

/** PUBLIC_URL is https: GitHub's sign-in sends people back to it (a warning only: tests run on http). */
export function checkPublicUrl(publicUrl: string): SetupLine[] {
  if (publicUrl.startsWith("https://")) return [pass(CHECK, `${publicUrl} is https`)];
  return [
    warn(
      CHECK,
      `${publicUrl} is not https: the /mq login callback and the links Yardmaster hands out would travel unencrypted`,
      "set PUBLIC_URL to the https address GitHub and Slack reach Yardmaster at (e.g. https://yardmaster.example.com)",
    ),
  ];
}

/** Hosts that are this machine: a PUBLIC_URL on one of them is not reached from outside. */
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Where /metrics is served: on METRICS_PORT, or (unset) on the port PUBLIC_URL leads to, where anyone
 * reaching GitHub's and Slack's endpoints reads the repositories' names, the channels and the version
 * (a warning: docs/security.md, "The metrics port").
 */
export function checkMetricsPort(publicUrl: string, metricsPort: number | undefined): SetupLine[] {
  const check = "metrics port";
  if (metricsPort !== undefined)
    return [pass(check, `/metrics is served on METRICS_PORT ${metricsPort} only, not on the public port`)];
  if (LOOPBACK.has(new URL(publicUrl).hostname))
    return [
      pass(check, `/metrics is on the main port, which PUBLIC_URL (${publicUrl}) keeps on this machine`),
    ];
  return [
    warn(
      check,
      `/metrics is served on the port ${publicUrl} leads to: anyone who reaches it reads the subscribed repositories' names, the Slack channels' ids and the version, and each request queries the store`,
      "set METRICS_PORT (e.g. 9090), scrape that port, and keep it off the ingress (docs/security.md, “The metrics port”)",
    ),
  ];
}
