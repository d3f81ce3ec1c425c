import { describe, expect, it } from "vitest";
import type { LogEvent } from "../../../src/backends/mergify/events.schema.js";
import { fromMergifyLog } from "../../../src/backends/mergify/queue-events.js";
import { withAskers, withQueueCommands, withQueuers } from "../../../src/backends/mergify/queuers.js";
import { Repo } from "../../../src/repo.js";

// Who queued a pull request on Mergify: the author of the `queue` command of the entry's session.

const S12 = "00000000-0000-4000-8000-000000000012";
const S13 = "00000000-0000-4000-8000-000000000013";
const S14 = "00000000-0000-4000-8000-000000000014";
const T0 = Date.parse("2026-11-20T10:00:00.000Z");
const iso = (s: number) => new Date(T0 + s * 1000).toISOString();
const logEvent = (
  id: number,
  type: string,
  s: number,
  pull: number,
  metadata: Record<string, unknown>,
): LogEvent => ({
  id,
  received_at: iso(s),
  trigger: type === "command.queue" ? "Command: queue" : "merge queue",
  repository: "acme/ships",
  pull_request: pull,
  base_ref: "main",
  outcome: type === "command.queue" ? "success" : "neutral",
  type,
  metadata,
});
const enter = (id: number, s: number, pull: number, session: string) =>
  logEvent(id, "action.queue.enter", s, pull, {
    queue_name: "default",
    branch: "main",
    queued_at: iso(s),
    priority_rule_name: null,
    session_id: session,
  });
const command = (id: number, s: number, pull: number, login: string, session: string | null) =>
  logEvent(id, "command.queue", s, pull, {
    author: { id: id, login, type: "User", avatar_url: null },
    comment_id: id,
    session_id: session,
    command_trigger: "comment",
    trigger_comment_url: null,
  });

describe("who queued a pull request on Mergify", () => {
  it("asks for the queue commands whenever it asks for the entries", () => {
    expect(withQueueCommands(["action.queue.enter", "action.queue.leave"])).toEqual([
      "action.queue.enter",
      "action.queue.leave",
      "command.queue",
    ]);
    expect(withQueueCommands(["queue.pause.create"])).toEqual(["queue.pause.create"]);
  });

  it("names the author of the entry's queue command, and leaves the commands out", () => {
    const events = withQueuers(
      [
        // Newest first, as the service answers.
        enter(4, 20, 13, S13),
        command(3, 20, 13, "dave", null),
        enter(2, 10, 12, S12),
        command(1, 5, 12, "carol", S12),
        enter(5, 30, 14, S14),
      ],
      fromMergifyLog,
    );
    expect(events.map((e) => [e.pull, e.kind, e.kind === "entered" ? e.queuedBy : undefined])).toEqual([
      // No session on the command: the latest command for the pull request before the entry.
      [13, "entered", "dave"],
      [12, "entered", "carol"],
      // Queued by a rule (no command in the read): not known.
      [14, "entered", null],
    ]);
  });

  it("a command the merge queue refused names nobody", () => {
    const refused = { ...command(1, 5, 12, "mallory", S12), outcome: "failure" as const };
    const [entered] = withQueuers([refused, enter(2, 10, 12, S12)], fromMergifyLog);
    expect(entered).toMatchObject({ kind: "entered", queuedBy: null });
  });

  it("a command relayed by Yardmaster (its bot's), or none in the read: the person who asked Yardmaster that day", async () => {
    const ships = Repo.of("acme", "ships");
    const events = withQueuers(
      [
        command(1, 5, 12, "yardmaster[bot]", S12),
        enter(2, 10, 12, S12),
        enter(4, 20, 13, S13),
        command(5, 25, 14, "dave", S14),
        enter(6, 30, 14, S14),
      ],
      fromMergifyLog,
    );
    const asked = new Map([
      [12, { login: "carol", at: new Date(T0) }],
      // A day and more before its entry: not this entry's.
      [13, { login: "erin", at: new Date(T0 + 20_000 - 25 * 60 * 60_000) }],
      [14, { login: "frank", at: new Date(T0) }],
    ]);
    await withAskers(ships, events, async (_repo, n) => asked.get(n) ?? null);
    expect(events.map((e) => (e.kind === "entered" ? e.queuedBy : undefined))).toEqual([
      "carol",
      null,
      "dave",
    ]);
  });
});
