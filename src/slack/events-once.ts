import type { App } from "@slack/bolt";
import type { Logger } from "../logger.js";
import type { OnceClaim, OnceClaimStore } from "../store/index.js";

/**
 * Every Events API event is handled once by its `event_id`, on whichever replica it reaches, and is
 * handled again when its handling did not finish (docs/operations.md, "Slack requests"). Slack sends an
 * event again with the same id: over HTTP, as a retry (`X-Slack-Retry-Num`) when its delivery failed;
 * over Socket Mode, to another replica's connection.
 *
 * The replica that claims an event holds it with a lease, renewed while it works, and marks it done
 * once handled: from then on every delivery of it is passed over. A handling that failed releases it,
 * and over HTTP is answered 500, so that Slack's retry runs it; a replica that died leaves its lease
 * to lapse, and the next retry after that runs it. A retry that arrives while another delivery is
 * still being handled is answered 503 over HTTP (Slack tries again later: 1 minute, then 5), and
 * passed over in Socket Mode.
 */

/** The once-claims' scope of Slack's events (the store's `once_claims`, keyed by `event_id`). */
const SCOPE = "slack-event";

/** An event's claim is remembered this long after it was first seen (Slack retries within minutes). */
export const SLACK_EVENT_RETENTION_MS = 24 * 60 * 60 * 1000;

/** How long a claim of an event holds without renewal; shorter than Slack's minute before its second retry. */
export const SLACK_EVENT_LEASE_MS = 30_000;

/** Over HTTP, a delivery of an event another one is handling: answered 503, Slack retries later. */
export class SlackEventHeld extends Error {
  readonly code = "yardmaster_slack_event_held";
  constructor(readonly eventId: string) {
    super(`Slack event ${eventId} is being handled by another delivery`);
  }
}

/** Over HTTP, an event that could not be handled (its handler failed, or the store did not answer): 500. */
export class SlackEventFailed extends Error {
  readonly code = "yardmaster_slack_event_failed";
  constructor(
    readonly eventId: string,
    override readonly cause: unknown,
  ) {
    super(`Slack event ${eventId} was not handled`);
  }
}

export interface EventsOnceDeps {
  store: Pick<OnceClaimStore, "claimOnce" | "renewOnce" | "finishOnce" | "releaseOnce">;
  /** This replica, as the holder of claims. */
  owner: string;
  logger: Logger;
  /** HTTP: a failure is answered 5xx (thrown to the receiver) so that Slack retries; Socket Mode: logged. */
  over: "http" | "socket";
  /** Leases follow the real time (Slack's retries do); tests pass their own. */
  now?: () => Date;
  /** Default SLACK_EVENT_LEASE_MS. */
  leaseMs?: number;
}

export function handleEventsOnce(app: App, deps: EventsOnceDeps): void {
  const { store, owner, logger } = deps;
  const now = deps.now ?? (() => new Date());
  const leaseMs = deps.leaseMs ?? SLACK_EVENT_LEASE_MS;
  const until = () => new Date(now().getTime() + leaseMs);
  const fail = (error: Error) => {
    if (deps.over === "http") throw error;
  };

  app.use(async ({ body, next, context }) => {
    const { type, event_id: eventId } = body as { type?: unknown; event_id?: unknown };
    if (type !== "event_callback") {
      await next();
      return;
    }
    if (typeof eventId !== "string" || eventId === "" || eventId.length > 100) {
      logger.warn({ kind: "event_callback" }, "Slack event refused: no event_id");
      return;
    }
    const log = logger.child({ eventId, ...(context.retryNum ? { retry: context.retryNum } : {}) });
    let claim: OnceClaim;
    try {
      claim = await store.claimOnce(SCOPE, eventId, {
        owner,
        now: now(),
        until: until(),
        keepMs: SLACK_EVENT_RETENTION_MS,
      });
    } catch (error) {
      log.error({ err: error }, "could not record a Slack event's id: not handled (Slack retries it)");
      fail(new SlackEventFailed(eventId, error));
      return;
    }
    if (claim === "done") {
      log.info("Slack event already handled (a retry, or another replica had it)");
      return;
    }
    if (claim === "held") {
      log.info("Slack event being handled by another delivery: passed over");
      fail(new SlackEventHeld(eventId));
      return;
    }
    await handleClaimed(eventId, next, { ...deps, logger: log, until, now, fail });
  });
}

/** Runs the listeners of an event this replica claimed, renewing the claim; done or released after. */
async function handleClaimed(
  eventId: string,
  next: () => Promise<void>,
  deps: EventsOnceDeps & { until: () => Date; now: () => Date; fail: (error: Error) => void },
): Promise<void> {
  const { store, owner, logger: log } = deps;
  const renewal = setInterval(
    () => {
      store
        .renewOnce(SCOPE, eventId, owner, deps.until())
        .catch((error: unknown) => log.warn({ err: error }, "could not renew the claim of a Slack event"));
    },
    (deps.leaseMs ?? SLACK_EVENT_LEASE_MS) / 3,
  );
  renewal.unref();
  try {
    await next();
  } catch (error) {
    clearInterval(renewal);
    await store.releaseOnce(SCOPE, eventId, owner).catch(() => undefined);
    log.warn(
      { err: error },
      deps.over === "http"
        ? "could not handle a Slack event: answered 500, Slack's retry of it will run it"
        : "could not handle a Slack event",
    );
    deps.fail(new SlackEventFailed(eventId, error));
    return;
  }
  clearInterval(renewal);
  await store
    .finishOnce(SCOPE, eventId, owner, deps.now())
    .catch((error: unknown) => log.warn({ err: error }, "could not record a Slack event as handled"));
}
