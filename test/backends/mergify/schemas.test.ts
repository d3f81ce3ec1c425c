import nock from "nock";
import { describe, expect, it } from "vitest";
import {
  compareLogEvents,
  eventsResponseSchema,
  KNOWN_EVENT_TYPES,
  type LogEvent,
  PAUSE_EVENT_TYPES,
  parseEventMetadata,
  pullRequestQueueDetailsSchema,
  QUEUE_EVENT_TYPES,
  queueStatusSchema,
  strictSchemas,
  TYPED_EVENT_TYPES,
} from "../../../src/backends/mergify/index.js";
import {
  checksChangeEvent,
  checksEndEvent,
  commandQueueEvent,
  eventsBody,
  makeClient,
  ORIGIN,
  pauseCreateEvent,
  pauseState,
  pullRequestDetails,
  queueEnterEvent,
  queueLeaveEvent,
  queueMergedEvent,
  queueStatus,
  REPO,
  REPO_PATH,
  unknownTypeEvent,
} from "./fixtures.js";

const allEvents = () => [
  queueEnterEvent(),
  queueLeaveEvent(),
  queueMergedEvent(),
  checksEndEvent(),
  checksChangeEvent(),
  pauseCreateEvent(),
  commandQueueEvent(),
  unknownTypeEvent(),
];

describe("lenient schemas (what the client uses)", () => {
  it("keep unknown fields", () => {
    const status = queueStatusSchema.parse({ ...queueStatus(), new_field: { x: 1 } });
    expect(status.new_field).toEqual({ x: 1 });
    expect(status.batches[0]?.intermediate_results_skipped).toBe(false);
    expect(status.batches[0]?.pull_requests[0]?.is_frozen).toBe(false);
  });

  it("need only what the spec requires: a status without mode, estimates or CI finish times", () => {
    const body = queueStatus() as Record<string, unknown>;
    delete body.mode;
    delete body.scope_queues;
    delete body.pause;
    const batches = body.batches as Record<string, unknown>[];
    delete batches[0]?.estimated_ci_finish_at;
    delete batches[0]?.ci_finished_at;
    expect(queueStatusSchema.safeParse(body).success).toBe(true);
  });

  it("keep enumeration values they do not know", () => {
    const body = queueStatus();
    body.batches[0]!.status.code = "waiting_for_godot";
    expect(queueStatusSchema.parse(body).batches[0]?.status.code).toBe("waiting_for_godot");
    const details = pullRequestDetails();
    details.mergeability_check.check_type = "teleport";
    expect(pullRequestQueueDetailsSchema.safeParse(details).success).toBe(true);
  });

  it("still refuse a missing required field or a wrong type", () => {
    const details = pullRequestDetails() as Record<string, unknown>;
    delete details.position;
    const result = pullRequestQueueDetailsSchema.safeParse(details);
    expect(result.error?.issues[0]?.path).toEqual(["position"]);
  });

  it("take a pause event with null pull_request and base_ref, and type its metadata", () => {
    const [event] = eventsResponseSchema.parse(eventsBody([pauseCreateEvent()])).events;
    expect(event?.pull_request).toBeNull();
    expect(event?.base_ref).toBeNull();
    const typed = parseEventMetadata(event as LogEvent);
    expect(typed?.type).toBe("queue.pause.create");
    if (typed?.type === "queue.pause.create") {
      expect(typed.metadata.created_by?.name).toBe("octocat");
      expect(typed.metadata.reason).toBe("release freeze");
    }
  });

  it("keep an event of an unknown type with its raw metadata", () => {
    const [event] = eventsResponseSchema.parse(eventsBody([unknownTypeEvent()])).events;
    expect(event?.type).toBe("product.enabled");
    expect(event?.metadata).toEqual({ product: "merge_queue", enabled_by: { id: 1 } });
    expect(parseEventMetadata(event as LogEvent)).toBeNull();
  });

  it("keep an event of a known type whose metadata does not fit, with metadata untyped", () => {
    const odd = { ...queueLeaveEvent(), metadata: { merged: "nope", unsuccessful_checks: "none" } };
    const notAnObject = { ...queueEnterEvent(7), metadata: "entered" };
    const page = eventsResponseSchema.parse(eventsBody([odd, notAnObject, queueMergedEvent()]));
    expect(page.events).toHaveLength(3);
    expect(page.events[0]?.metadata).toEqual({ merged: "nope", unsuccessful_checks: "none" });
    expect(parseEventMetadata(page.events[0] as LogEvent)).toBeNull();
    expect(parseEventMetadata(page.events[1] as LogEvent)).toBeNull();
    expect(parseEventMetadata(page.events[2] as LogEvent)?.type).toBe("action.queue.merged");
  });

  it("serve a whole page through the client despite odd events", async () => {
    nock(ORIGIN)
      .get(`${REPO_PATH}/logs`)
      .reply(200, eventsBody([...allEvents(), { ...queueLeaveEvent(9), metadata: null }]));
    const page = await makeClient().getEventsPage(REPO, {});
    expect(page.events).toHaveLength(9);
  });

  it("type the metadata the notifier needs", () => {
    const leave = parseEventMetadata(queueLeaveEvent() as LogEvent);
    if (leave?.type !== "action.queue.leave") throw new Error("expected a typed leave event");
    expect(leave.metadata.dequeue_code).toBe("CHECKS_FAILED");
    expect(leave.metadata.unsuccessful_checks?.[0]).toMatchObject({
      name: "ci/test",
      url: "https://github.com/acme/widgets/actions/runs/7",
      details_url: "https://ci.example.com/runs/7",
      state: "failure",
    });
    const end = parseEventMetadata(checksEndEvent() as LogEvent);
    if (end?.type !== "action.queue.checks_end") throw new Error("expected a typed checks_end event");
    expect(end.metadata.speculative_check_pull_request?.checks_conclusion).toBe("failure");
    const merged = parseEventMetadata(queueMergedEvent() as LogEvent);
    if (merged?.type !== "action.queue.merged") throw new Error("expected a typed merged event");
    expect(merged.metadata.merge_commit_sha).toBeNull();
    const command = parseEventMetadata(commandQueueEvent() as LogEvent);
    if (command?.type !== "command.queue") throw new Error("expected a typed command event");
    expect(command.metadata.author?.login).toBe("octocat");
    expect(parseEventMetadata(checksChangeEvent() as LogEvent)?.type).toBe("action.queue.checks.change");
  });

  it("accept partial metadata when lenient (the spec shows none)", () => {
    const event = { ...queueLeaveEvent(), metadata: { reason: "Manually dequeued", merged: false } };
    const typed = parseEventMetadata(event as LogEvent);
    expect(typed?.type).toBe("action.queue.leave");
  });
});

describe("event type lists", () => {
  it("hold the spec's closed list plus the reference's extra types, with the dotted checks.change", () => {
    expect(KNOWN_EVENT_TYPES).toHaveLength(56);
    expect(new Set(KNOWN_EVENT_TYPES).size).toBe(56);
    expect(KNOWN_EVENT_TYPES).toContain("action.queue.conflict_deferred");
    expect(KNOWN_EVENT_TYPES).toContain("product.enabled");
    expect(QUEUE_EVENT_TYPES).toContain("action.queue.checks.change");
    expect(KNOWN_EVENT_TYPES).not.toContain("action.queue.checks_change");
    expect(PAUSE_EVENT_TYPES).toEqual(["queue.pause.create", "queue.pause.update", "queue.pause.delete"]);
    expect(TYPED_EVENT_TYPES).toHaveLength(17);
  });
});

describe("strict schemas (for the simulator's tests)", () => {
  it("accept complete answers", () => {
    expect(strictSchemas.status.safeParse(queueStatus()).error).toBeUndefined();
    expect(strictSchemas.pullRequest.safeParse(pullRequestDetails()).error).toBeUndefined();
    expect(strictSchemas.pause.safeParse(pauseState()).error).toBeUndefined();
    expect(strictSchemas.branches.safeParse({ branches: ["main"] }).error).toBeUndefined();
    const known = allEvents().filter((event) => event.type !== "product.enabled");
    expect(strictSchemas.eventsResponse.safeParse(eventsBody(known)).error).toBeUndefined();
  });

  it("refuse a status without mode", () => {
    const { mode: _, ...body } = queueStatus();
    expect(queueStatusSchema.safeParse(body).success).toBe(true);
    expect(strictSchemas.status.safeParse(body).error?.issues[0]?.path).toEqual(["mode"]);
  });

  it("refuse a batch without the CI times the service always sends, also in sub-batches", () => {
    const body = queueStatus() as { batches: { sub_batches?: Record<string, unknown>[] }[] };
    delete body.batches[1]?.sub_batches?.[0]?.ci_finished_at;
    expect(strictSchemas.status.safeParse(body).error?.issues[0]?.path).toEqual([
      "batches",
      1,
      "sub_batches",
      0,
      "ci_finished_at",
    ]);
  });

  it("refuse unknown enumeration values", () => {
    const body = queueStatus();
    body.batches[0]!.status.code = "waiting_for_godot";
    expect(strictSchemas.status.safeParse(body).error?.issues[0]?.path).toEqual([
      "batches",
      0,
      "status",
      "code",
    ]);
  });

  it("refuse a condition without documentation_url, at any depth", () => {
    const details = pullRequestDetails();
    delete (
      details.mergeability_check.conditions_evaluation.subconditions[0] as { documentation_url?: unknown }
    ).documentation_url;
    expect(pullRequestQueueDetailsSchema.safeParse(details).success).toBe(true);
    expect(strictSchemas.pullRequest.safeParse(details).error?.issues[0]?.path).toEqual([
      "mergeability_check",
      "conditions_evaluation",
      "subconditions",
      0,
      "documentation_url",
    ]);
  });

  it("refuse an event without outcome", () => {
    const { outcome: _, ...event } = queueEnterEvent();
    expect(strictSchemas.event.safeParse(event).error?.issues[0]?.path).toEqual(["outcome"]);
  });

  it("refuse a typed event with incomplete metadata", () => {
    const event = pauseCreateEvent() as { metadata: Record<string, unknown> };
    delete event.metadata.created_by;
    expect(strictSchemas.events["queue.pause.create"].safeParse(event).error?.issues[0]?.path).toEqual([
      "metadata",
      "created_by",
    ]);
    const page = eventsBody([queueEnterEvent(), event]);
    expect(eventsResponseSchema.safeParse(page).success).toBe(true);
    expect(strictSchemas.eventsResponse.safeParse(page).error?.issues[0]?.path).toEqual([
      "events",
      1,
      "metadata",
      "created_by",
    ]);
  });

  it("refuse an incomplete nested object of the metadata", () => {
    const event = checksEndEvent();
    delete (event.metadata.speculative_check_pull_request as { checks_conclusion?: string })
      .checks_conclusion;
    expect(strictSchemas.event.safeParse(event).error?.issues[0]?.path).toEqual([
      "metadata",
      "speculative_check_pull_request",
      "checks_conclusion",
    ]);
  });

  it("refuse an event type outside the known list (e.g. checks_change for checks.change)", () => {
    const event = { ...checksChangeEvent(), type: "action.queue.checks_change" };
    expect(eventsResponseSchema.safeParse(eventsBody([event])).success).toBe(true);
    expect(strictSchemas.event.safeParse(event).success).toBe(false);
  });

  it("accept an event of a known type without typed metadata, whatever its metadata", () => {
    const event = { ...queueEnterEvent(), type: "action.label", metadata: { added: ["bug"] } };
    expect(strictSchemas.event.safeParse(event).error).toBeUndefined();
  });

  it("hold metadata schemas for every typed type", () => {
    expect(Object.keys(strictSchemas.eventMetadata).sort()).toEqual([...TYPED_EVENT_TYPES].sort());
    expect(Object.keys(strictSchemas.events).sort()).toEqual([...TYPED_EVENT_TYPES].sort());
  });
});

describe("compareLogEvents", () => {
  it("orders by received_at then id, whatever the offset notation", () => {
    const events = [
      { ...queueEnterEvent(3), received_at: "2025-11-05T14:00:00+01:00" },
      { ...queueEnterEvent(2), received_at: "2025-11-05T13:00:00Z" },
      { ...queueEnterEvent(1), received_at: "2025-11-05T12:59:59.999Z" },
      { ...queueEnterEvent(0), received_at: "2025-11-05T13:00:00Z" },
    ] as LogEvent[];
    expect(events.sort(compareLogEvents).map((event) => event.id)).toEqual([1, 0, 2, 3]);
  });
});
