import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Slack's request signatures (https://api.slack.com/authentication/verifying-requests-from-slack):
 * `X-Slack-Signature: v0=<hex HMAC-SHA256 of "v0:{timestamp}:{raw body}">` with the app's signing secret,
 * and `X-Slack-Request-Timestamp: <unix seconds>`.
 */
export function signSlackRequest(signingSecret: string, timestamp: number | string, rawBody: string): string {
  const hmac = createHmac("sha256", signingSecret).update(`v0:${timestamp}:${rawBody}`, "utf8");
  return `v0=${hmac.digest("hex")}`;
}

/** True when `signature` is the one Slack would send; the timestamp's age is not checked here. */
export function isValidSlackSignature(
  signingSecret: string,
  timestamp: number | string,
  rawBody: string,
  signature: string,
): boolean {
  const expected = Buffer.from(signSlackRequest(signingSecret, timestamp, rawBody), "utf8");
  const actual = Buffer.from(signature, "utf8");
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

export function unixSeconds(now = Date.now()): number {
  return Math.floor(now / 1000);
}
