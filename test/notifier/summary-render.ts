import type { NotificationRenderer, ThreadState } from "../../src/notifier/types.js";

/**
 * A notice renderer whose messages are only their summaries (`event <origin> #<id>`, `parent #<pull>:
 * <latest>`), for the delivery tests, which are about what is posted when and where, not its words.
 */
export const summaryRender: NotificationRenderer = {
  event: (e) => ({ summary: `event ${e.origin} #${e.id}` }),
  parent: (s) => ({ summary: `parent #${s.pull.number}: ${s.latest}` }),
  stateAfter: (_prev, e, pull): ThreadState => ({
    pull,
    latestType: e.kind,
    latest: e.origin,
    queueName: null,
    canRequeue: false,
    updatedAt: e.at,
  }),
};
