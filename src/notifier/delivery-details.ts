import { type ChatHolds, DeliveryError, DeliveryErrorCode } from "./chat.js";
import type { DelivererDeps } from "./deliverer-deps.js";
import type { RowPosting } from "./delivery-posting.js";
import { asDetails } from "./failure-details.js";

/** Edits no later try can make: the message, or its channel, is gone. */
const GONE = new Set([DeliveryErrorCode.MessageGone, DeliveryErrorCode.ChannelUnavailable]);

/** What editing a channel's removals with their details uses of the deliverer's pass. */
export interface DetailsPass {
  deps: Pick<DelivererDeps, "poster" | "logger" | "details">;
  rows: RowPosting;
  holds: ChatHolds;
  now(): Date;
  /** A 429: holds what it names. */
  rateLimited(channel: string, e: DeliveryError): Promise<void>;
}

/**
 * Edits in place each removal of the channel that was posted before why its checks failed was read
 * (failure-details.ts), under the channel's lease (never twice at once): its message rendered again, with
 * them. Held (a 429 on edits) or failed, it is edited in a later pass; a message that is gone is
 * left as it is.
 */
export async function editDetails(
  pass: DetailsPass,
  channel: string,
  renew: () => Promise<boolean>,
): Promise<void> {
  const { poster, logger, details } = pass.deps;
  if (!details) return;
  if (await pass.holds.until({ call: "edit" }, pass.now())) return;
  for (const edit of await details.edits(channel)) {
    if (!(await renew())) return;
    const read = asDetails(edit.details);
    try {
      if (read) {
        const message = await pass.rows.renderedWith(edit, read);
        await poster.update({ channel, ts: edit.messageTs, message });
      }
    } catch (error) {
      const e = error instanceof DeliveryError ? error : undefined;
      if (e?.code === DeliveryErrorCode.RateLimited) {
        await pass.rateLimited(channel, e);
        return;
      }
      if (!(e && GONE.has(e.code))) {
        logger.warn({ err: error, channel }, "could not add why the checks failed to a notice: edited later");
        return;
      }
      logger.warn({ err: error, channel }, "a removal's notice cannot be edited: left as it is");
    }
    await details.shown(channel, edit.eventId);
  }
}
