import type { QueueEvent, QueueEventBody } from "../../src/core/queue.js";

/** Queue events as the history keeps them, at minutes after T0. */
export const T0 = Date.parse("2026-03-02T09:00:00.000Z");
export const MIN = 60_000;
let nextId = 1;

export function ev(minute: number, pull: number | null, body: QueueEventBody): QueueEvent {
  return {
    id: nextId++,
    at: new Date(T0 + minute * MIN).toISOString(),
    repository: "acme/widgets",
    pull,
    branch: "main",
    queue: "default",
    origin: "test",
    ...body,
  };
}

export const entered = (minute: number, pull: number) => ev(minute, pull, { kind: "entered" });
export const merged = (minute: number, pull: number) =>
  ev(minute, pull, { kind: "merged", sha: null, enteredAt: null });
export const started = (minute: number, pull: number, batch: string | null = null) =>
  ev(minute, pull, { kind: "checks-started", batch });
export const ended = (minute: number, pull: number, failed: string[] = []) =>
  ev(minute, pull, {
    kind: "checks-ended",
    aborted: false,
    reason: null,
    conclusion: failed.length ? "failure" : "success",
    failedChecks: failed.map((name) => ({ name, url: `https://ci.example/${name}`, state: "failure" })),
  });
export const left = (minute: number, pull: number, failed: string[] = []) =>
  ev(minute, pull, {
    kind: "left",
    merged: false,
    reason: "its checks failed",
    code: "CHECKS_FAILED",
    failedChecks: failed.map((name) => ({ name, url: null, state: "failure" })),
  });
export const paused = (minute: number, reason: string, by: string | null = null, update = false) =>
  ev(minute, null, { kind: "paused", reason, by, update });
export const resumed = (minute: number, by: string | null = null) =>
  ev(minute, null, { kind: "resumed", by });
export const at = (minute: number) => new Date(T0 + minute * MIN);
