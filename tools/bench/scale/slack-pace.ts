// Figure 3: a burst of notices for one channel under Slack's limit (the Slack stand-in's figures: a
// chat.postMessage a second per channel, burst 3; chat.update 50 a minute), while a quiet channel gets a
// notice during the burst. Real time: Yardmaster's notifier runs by itself (autoPoll, system clock), the
// simulator on a real clock. The burst is pause events (one top-level message each, no parent edit); the
// merge queue announces nothing for a pause, so each repository's read is asked for as GitHub would ask
// for it, with a check_run webhook from the GitHub stand-in right after its events.

import { Repo } from "../../../src/repo.js";
import { startWorld } from "../../world.js";
import { notices, sleep, subscribe, until } from "./common.js";

const BUSY_REPO = "bench/busy";
const QUIET_REPO = "bench/quiet";
const BUSY = "C0BUSY";
const QUIET = "C0QUIET";

export interface SlackPaceRun {
  burst: number;
  /** From the busy channel's first event to its last notice posted, ms (NaN: not all were posted). */
  busyMs: number;
  busyPosted: number;
  /** The quiet channel's notice: from its event to its post, ms (NaN: never posted). */
  quietLagMs: number;
  /** The quiet notice was posted before the busy channel's last one (it did not wait for the burst). */
  quietBeforeBusyEnd: boolean;
  /** chat.postMessage calls answered 429. */
  rateLimited: number;
}

export async function slackPace(options: {
  burst: number;
  quietAfterMs: number;
  intervalS: number;
}): Promise<SlackPaceRun> {
  const world = await startWorld({
    seed: "empty",
    clock: "real",
    notifierClock: "system",
    slackLimits: {},
    settings: { POLL_INTERVAL_SECONDS: String(options.intervalS) },
    yardmaster: { autoPoll: true },
  });
  try {
    const { sim, github, slack, yardmaster } = world;
    github.state.addUser({ login: "bench" });
    for (const [channel, repository] of [
      [BUSY, BUSY_REPO],
      [QUIET, QUIET_REPO],
    ] as const) {
      sim.state.addRepository(repository, { branches: ["main"] });
      github.state.addRepository(repository);
      github.state.addPullRequest({ repository, number: 1, author: "bench" });
      slack.state.addChannel({ id: channel, name: channel.toLowerCase(), botIsMember: true });
      await subscribe(yardmaster.store, channel, repository, ["pause"], new Date());
    }
    // The first reads (every new subscription is read at once) are done before the burst.
    const firstReads = await until(
      async () =>
        (await yardmaster.store.getPollCursor(Repo.from(QUIET_REPO))) !== null &&
        (await yardmaster.store.getPollCursor(Repo.from(BUSY_REPO))) !== null,
      10_000,
    );
    if (!firstReads) throw new Error("the notifier did not read the new repositories within 10 s");
    await sleep(500);

    const busyIds = new Set<number>();
    const firstAt = sim.clock.now();
    for (let i = 0; i < options.burst; i++) {
      if (i === options.burst - 1 && i > 0) sim.state.unpause(BUSY_REPO);
      else sim.state.pause(BUSY_REPO, `burst ${i + 1}`);
    }
    for (const e of sim.state.events(BUSY_REPO)) if (e.type.startsWith("queue.pause.")) busyIds.add(e.id);
    void github.sendCheckRun(BUSY_REPO, 1);
    await sleep(options.quietAfterMs);
    sim.state.pause(QUIET_REPO, "quiet");
    const quietEvent = sim.state.events(QUIET_REPO).find((e) => e.type === "queue.pause.create");
    const quietAt = quietEvent ? Date.parse(quietEvent.received_at) : Number.NaN;
    void github.sendCheckRun(QUIET_REPO, 1);

    const offset = sim.clock.now() - Date.now();
    const posted = () => notices(slack.calls);
    await until(
      () => {
        const all = posted();
        return (
          all.filter((n) => n.channel === BUSY && busyIds.has(n.eventId)).length >= busyIds.size &&
          all.some((n) => n.channel === QUIET)
        );
      },
      options.burst * 3_000 + 30_000,
      20,
    );
    const all = posted();
    const busyPosts = all.filter((n) => n.channel === BUSY && busyIds.has(n.eventId));
    const quietPost = all.find((n) => n.channel === QUIET);
    const busyEnd = Math.max(...busyPosts.map((n) => n.at));
    return {
      burst: busyIds.size,
      busyMs: busyPosts.length >= busyIds.size ? busyEnd + offset - firstAt : Number.NaN,
      busyPosted: busyPosts.length,
      quietLagMs: quietPost ? quietPost.at + offset - quietAt : Number.NaN,
      quietBeforeBusyEnd: quietPost !== undefined && quietPost.at < busyEnd,
      rateLimited: slack.calls.filter((c) => c.method === "chat.postMessage" && c.rateLimited).length,
    };
  } finally {
    await world.close();
  }
}
