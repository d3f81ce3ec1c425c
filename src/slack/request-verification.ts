import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { parse } from "node:querystring";
import type { Logger } from "../logger.js";
import { readBody } from "../server/http-server.js";
import type { OnceClaimStore } from "../store/index.js";

/**
 * Slack's request signatures, checked before Bolt sees a request (docs/operations.md, "Slack requests").
 * Bolt's own check refuses a request dated more than 5 minutes in the past, but not one dated in the
 * future, and it accepts the same signed request any number of times. In front of it:
 *
 * 1. the timestamp must be within 5 minutes of the clock, either way;
 * 2. the signature must be the HMAC-SHA256 of `v0:<timestamp>:<body>` with the signing secret;
 * 3. the signature is claimed in the store, shared by every replica (a once-claim, scope
 *    `slack-signature`): a signature already claimed within the window is a replay and is refused.
 *
 * One of Slack's retries (`X-Slack-Retry-Num`, only ever of an Events API delivery: slash commands and
 * clicks are never retried) is signed anew, so it passes like any request; its event runs unless an
 * earlier delivery of it was handled (the event's id, events-once.ts). The header is not signed and
 * decides nothing: it is only logged.
 *
 * Refusals are answered 401 with no body, as Bolt answers them, and nothing runs. Bolt then gets the
 * body already read and checks the signature again, as it always did.
 */

/** How far a request's timestamp may be from the clock, either way. */
export const SLACK_REQUEST_WINDOW_SECONDS = 5 * 60;
/**
 * Slack request signatures are remembered this long. A request is accepted while its timestamp is
 * within 5 minutes of the clock either way, so its signature can come back at most 10 minutes after it
 * was first seen; 5 more minutes cover replicas whose clocks disagree.
 */
export const SLACK_SIGNATURE_RETENTION_MS = 15 * 60 * 1000;
/** The once-claims' scope of Slack's request signatures (the store's `once_claims`, keyed by signature). */
const SIGNATURE_SCOPE = "slack-signature";

/**
 * The guard's `claim`, on the store's once-claims: true the first time a signature is claimed across
 * replicas, or once it was claimed SLACK_SIGNATURE_RETENTION_MS before. Nothing runs under the claim
 * (the request runs after it): it is held for as long as it is remembered, one statement per request.
 */
export function claimSignaturesOnce(
  store: Pick<OnceClaimStore, "claimOnce">,
  owner: string,
): SlackRequestGuardOptions["claim"] {
  return async (signature, now) => {
    const until = new Date(now.getTime() + SLACK_SIGNATURE_RETENTION_MS);
    const keepMs = SLACK_SIGNATURE_RETENTION_MS;
    return (await store.claimOnce(SIGNATURE_SCOPE, signature, { owner, now, until, keepMs })) === "claimed";
  };
}

/** Bolt's default body limit, kept: a larger body is answered 413. */
export const SLACK_BODY_LIMIT_BYTES = 4 * 1024 * 1024;

export type SignatureCheck =
  | { ok: true; signature: string }
  | {
      ok: false;
      reason: "no signature" | "malformed timestamp" | "timestamp outside the window" | "bad signature";
    };

const TIMESTAMP = /^[1-9]\d{0,14}$/;
const SIGNATURE = /^v0=[0-9a-f]{64}$/;

/** Checks the timestamp's window and the signature of one request; reads nothing but its arguments. */
export function checkSlackSignature(request: {
  timestamp: string | undefined;
  signature: string | undefined;
  body: Buffer;
  signingSecret: string;
  now: Date;
}): SignatureCheck {
  const { timestamp, signature } = request;
  if (timestamp === undefined || signature === undefined) return { ok: false, reason: "no signature" };
  if (!TIMESTAMP.test(timestamp)) return { ok: false, reason: "malformed timestamp" };
  const skew = Math.floor(request.now.getTime() / 1000) - Number(timestamp);
  if (Math.abs(skew) > SLACK_REQUEST_WINDOW_SECONDS) {
    return { ok: false, reason: "timestamp outside the window" };
  }
  if (!SIGNATURE.test(signature)) return { ok: false, reason: "bad signature" };
  const expected = createHmac("sha256", request.signingSecret)
    .update(`v0:${timestamp}:`, "utf8")
    .update(request.body)
    .digest();
  const given = Buffer.from(signature.slice("v0=".length), "hex");
  return timingSafeEqual(expected, given) ? { ok: true, signature } : { ok: false, reason: "bad signature" };
}

export interface SlackRequestGuardOptions {
  signingSecret: string;
  /** True the first time a signature is claimed, across replicas (claimSignaturesOnce). */
  claim(signature: string, now: Date): Promise<boolean>;
  logger: Logger;
  /** The clock the window is read against; default the system's. */
  now?: () => Date;
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Puts the checks above in front of `next` (Bolt's HTTPReceiver.requestListener): `next` is called
 * only for a request that passed them, with its body already read (Bolt reads `rawBody` instead of the
 * stream). Never throws: a store that cannot be reached is answered 503, and nothing runs.
 */
export function guardSlackRequests(
  options: SlackRequestGuardOptions,
  next: Listener,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const log = options.logger.child({ name: "slack-requests" });
  const now = options.now ?? (() => new Date());
  const answer = (res: ServerResponse, status: number, reason: string, extra: object = {}) => {
    log.warn({ status, reason, ...extra }, "Slack request refused");
    res.writeHead(status);
    res.end();
  };

  return async (req, res) => {
    // Bolt answers anything but a POST itself (404), running nothing.
    if (req.method !== "POST") {
      next(req, res);
      return;
    }
    let body: Buffer | null;
    try {
      body = await readBody(req, SLACK_BODY_LIMIT_BYTES);
    } catch (error) {
      log.warn({ err: error }, "Slack request could not be read");
      if (!res.headersSent) res.destroy();
      return;
    }
    if (body === null) {
      answer(res, 413, "body too large", { limit: SLACK_BODY_LIMIT_BYTES });
      return;
    }
    const buffered = Object.assign(req, { rawBody: body });
    if (isSslCheck(req, body)) {
      // Slack's certificate check is not signed; Bolt answers it 200 and drops anything else in the body.
      next(buffered, res);
      return;
    }
    const at = now();
    const check = checkSlackSignature({
      timestamp: header(req, "x-slack-request-timestamp"),
      signature: header(req, "x-slack-signature"),
      body,
      signingSecret: options.signingSecret,
      now: at,
    });
    if (!check.ok) {
      answer(res, 401, check.reason, { timestamp: header(req, "x-slack-request-timestamp")?.slice(0, 20) });
      return;
    }
    const retry = header(req, "x-slack-retry-num");
    if (retry !== undefined) {
      log.info(
        { retry: retry.slice(0, 10), reason: header(req, "x-slack-retry-reason")?.slice(0, 50) },
        "Slack retried a delivery: its event runs unless an earlier delivery of it was handled",
      );
    }
    let first: boolean;
    try {
      first = await options.claim(check.signature, at);
    } catch (error) {
      log.error({ err: error }, "could not record a Slack request's signature: refused");
      res.writeHead(503);
      res.end();
      return;
    }
    if (!first) {
      answer(res, 401, "signature already seen (a replay)");
      return;
    }
    next(buffered, res);
  };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === "string" ? value : undefined;
}

function isSslCheck(req: IncomingMessage, body: Buffer): boolean {
  if (req.headers["content-type"] !== "application/x-www-form-urlencoded") return false;
  return parse(body.toString("utf8")).ssl_check === "1";
}
