import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Repo } from "../../src/repo.js";
import { METADATA_EVENT_TYPE } from "../../src/slack/slack-poster.js";
import type { PollSchedule } from "../../src/store/index.js";
import { eventually, startWorld, subscribeChannel, type World } from "../helpers/e2e.js";

/**
 * GitHub as the notifier's doorbell (docs/notifications.md, "When a repository is read"), end to end on
 * the real clock: the merge queue moves, the GitHub stand-in sends the check_run webhook GitHub would,
 * and the notice is posted long before the interval would have read the log. An installation without
 * those events keeps reading at the interval. The interval (10 min) and the idle wait (1 h) are longer
 * than the whole file takes, however slow the machine: no read by the schedule happens during a test.
 */
const ANNOUNCED = "acme/bells";
const SILENT = "quiet/gears";
const CHANNEL = "C0BELL";
let world: World;

const schedule = (repo: string) => world.yardmaster.store.getPollSchedule(Repo.from(repo));
const read = (repo: string) =>
  eventually(async () => {
    const s = await schedule(repo);
    return s && s.cadence !== "new" && s.claimedBy === null ? s : undefined;
  });

async function logRequests(): Promise<Record<string, number>> {
  const text = await (await fetch(`${world.url}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const [, reason, value] of text.matchAll(
    /^yardmaster_notifier_log_requests_total\{reason="(\w+)"\} (\d+)/gm,
  ))
    out[reason as string] = Number(value);
  return out;
}

function notices(): { eventId: number; text: string }[] {
  return world.slack.state
    .messages(CHANNEL)
    .flatMap((m) => [m, ...m.replies])
    .filter((m) => m.metadata?.event_type === METADATA_EVENT_TYPE)
    .map((m) => ({ eventId: Number(m.metadata?.event_payload.event_id), text: m.text }));
}

beforeAll(async () => {
  world = await startWorld(
    { POLL_INTERVAL_SECONDS: "600", POLL_IDLE_SECONDS: "3600" },
    { autoPoll: true },
    {
      clock: "real",
      notifierClock: "system",
      engine: { checksDurationMs: 600_000, batchMaxWaitMs: 600_000 },
    },
  );
  for (const repo of [ANNOUNCED, SILENT]) {
    world.sim.state.addRepository(repo, { branches: ["main"] });
    world.github.state.addRepository(repo);
  }
  await subscribeChannel(world, CHANNEL, [ANNOUNCED, SILENT]);
  // Installed from an earlier app.yml: comments only.
  world.github.state.setInstallationEvents("quiet", ["issue_comment"]);
}, 30_000);

afterAll(async () => {
  await world?.close();
});

describe("GitHub's events as the notifier's doorbell", () => {
  it("reads an idle repository every POLL_IDLE_SECONDS only where GitHub announces its activity", async () => {
    const [announced, silent] = (await Promise.all([read(ANNOUNCED), read(SILENT)])) as [
      PollSchedule,
      PollSchedule,
    ];
    expect(announced.cadence).toBe("idle");
    expect(announced.nextPollAt.getTime() - Date.now()).toBeGreaterThan(600_000);
    expect(silent.cadence).toBe("interval");
    expect(silent.nextPollAt.getTime() - Date.now()).toBeLessThanOrEqual(600_000);
  });

  it("posts a queue move on an idle repository without waiting for the interval", async () => {
    await read(ANNOUNCED);
    const before = await logRequests();
    world.sim.state.relayCommand(ANNOUNCED, {
      body: "@mergifyio queue",
      pull_request: { number: 7, title: "Add cogs", base_ref: "main", author: { id: 1, login: "alice" } },
    });
    const enter = world.sim.state.events(ANNOUNCED).find((e) => e.type === "action.queue.enter");
    expect(enter).toBeDefined();
    // GitHub announced it (the merge queue's check run), and the notice followed from that alone: the
    // repository's next read by its schedule is minutes away.
    await world.slack.waitFor(() => world.github.deliveryCounts().check_run);
    await world.slack.waitFor(() => notices().some((n) => n.eventId === enter?.id));
    const after = await logRequests();
    expect((after.doorbell ?? 0) - (before.doorbell ?? 0)).toBeGreaterThanOrEqual(1);
    expect(after.idle ?? 0).toBe(before.idle ?? 0);
    expect(after.interval ?? 0).toBe(before.interval ?? 0);
    // Rung, the repository is active: read at the interval for the next 10 minutes.
    const next = await read(ANNOUNCED);
    expect(["interval"]).toContain(next.cadence);
  });

  it("reads a silent installation's repository only at the interval", async () => {
    const checkRuns = world.github.deliveryCounts().check_run ?? 0;
    world.sim.state.relayCommand(SILENT, {
      body: "@mergifyio queue",
      pull_request: { number: 3, title: "Grease", base_ref: "main", author: { id: 1, login: "alice" } },
    });
    const enter = world.sim.state.events(SILENT).find((e) => e.type === "action.queue.enter");
    // No webhook goes to an installation that did not subscribe to the events, and no read is asked for:
    // every webhook the move caused has been delivered and handled (no fixed wait).
    await world.github.settle();
    await world.yardmaster.webhookWorkDone();
    expect(world.github.deliveryCounts().check_run ?? 0).toBe(checkRuns);
    expect(notices().some((n) => n.eventId === enter?.id)).toBe(false);
    expect((await schedule(SILENT))?.doorbellAt).toBeNull();
  });
});
