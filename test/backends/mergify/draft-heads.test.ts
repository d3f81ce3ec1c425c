import { describe, expect, it } from "vitest";
import { withDraftHeads } from "../../../src/backends/mergify/draft-heads.js";
import type { LogEvent } from "../../../src/backends/mergify/index.js";
import { fromMergifyLog } from "../../../src/backends/mergify/queue-events.js";

// Where a Mergify leave's checks ran: the pull request's head, or its batch's draft pull request.

const HEAD = "c".repeat(40);
const log = (id: number, type: string, at: string, metadata: Record<string, unknown>): LogEvent =>
  ({
    id,
    received_at: at,
    trigger: "merge queue",
    repository: "acme/widgets",
    pull_request: 42,
    base_ref: "main",
    type,
    metadata,
  }) as LogEvent;

const failed = [
  {
    name: "ci/test",
    description: "ci/test failed: 3 tests failed",
    url: null,
    state: "failure",
    avatar_url: null,
  },
];
const leave = (id: number, batch: string | null) =>
  log(id, "action.queue.leave", "2026-01-01T10:02:00Z", {
    merged: false,
    reason: "checks failed",
    dequeue_code: "CHECKS_FAILED",
    queue_name: "default",
    unsuccessful_checks: failed,
    pull_request_head_sha: HEAD,
    batch_id: batch,
  });
const checksEnd = (id: number, batch: string, inPlace: boolean, number: number) =>
  log(id, "action.queue.checks_end", "2026-01-01T10:01:00Z", {
    aborted: false,
    batch_id: batch,
    speculative_check_pull_request: {
      number,
      in_place: inPlace,
      checks_conclusion: "failure",
      unsuccessful_checks: failed,
    },
  });

const mapped = (read: LogEvent[]) => withDraftHeads(read, read.map(fromMergifyLog));
const ranOn = (read: LogEvent[]) => mapped(read).find((e) => e.kind === "left");

describe("where a Mergify leave's checks ran", () => {
  it("the pull request's head, with the checks' descriptions", () => {
    const left = ranOn([leave(2, null)]);
    expect(left).toMatchObject({
      ranOn: { sha: HEAD, pull: null },
      failedChecks: [{ name: "ci/test", description: "ci/test failed: 3 tests failed" }],
    });
  });

  it("its batch's draft pull request, when the read holds the checks' end of its batch", () => {
    expect(ranOn([checksEnd(1, "b-1", false, 90001), leave(2, "b-1")])).toMatchObject({
      ranOn: { sha: HEAD, pull: 90001 },
    });
    // Checked in place: its own head.
    expect(ranOn([checksEnd(1, "b-1", true, 42), leave(2, "b-1")])).toMatchObject({
      ranOn: { sha: HEAD, pull: null },
    });
    // Another batch's checks say nothing of this leave.
    expect(ranOn([checksEnd(1, "b-0", false, 90000), leave(2, "b-1")])).toMatchObject({
      ranOn: { sha: HEAD, pull: null },
    });
  });
});
