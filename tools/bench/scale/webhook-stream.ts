// Figure 5: a busy repository's webhooks (issue 21). Real time: Yardmaster's notifier runs by itself
// (autoPoll, system clock), the GitHub stand-in sends `check_run` webhooks at a steady rate for a while
// (a busy monorepo's check runs), and now and then the merge queue logs an event just before one of them
// (a pause or unpause, posted top level). Counted: the log reads Yardmaster makes during the stream (from
// its metrics, by reason), per minute; and each logged event's lag from its webhook to its post.

import { Repo } from "../../../src/repo.js";
import { startWorld } from "../../world.js";
import { countsBy, notices, sleep, subscribe, total, until } from "./common.js";

const REPO = "bench/monorepo";
const CHANNEL = "C0STREAM";

export interface WebhookStreamRun {
  rate: number;
  seconds: number;
  webhooks: number;
  /** Log reads during the stream, and after it (the follow-up), by reason. */
  reads: number;
  byReason: Record<string, number>;
  readsAfter: number;
  /** From each logged event's webhook to its post, ms. */
  lags: number[];
  missing: number;
}

export async function webhookStream(options: {
  rate: number;
  seconds: number;
  probeEverySeconds: number;
  intervalS: number;
  minGapS: number;
}): Promise<WebhookStreamRun> {
  const world = await startWorld({
    seed: "empty",
    clock: "real",
    notifierClock: "system",
    settings: {
      POLL_INTERVAL_SECONDS: String(options.intervalS),
      DOORBELL_MIN_GAP_SECONDS: String(options.minGapS),
    },
    yardmaster: { autoPoll: true },
  });
  try {
    const { sim, github, slack, yardmaster } = world;
    github.state.addUser({ login: "bench" });
    sim.state.addRepository(REPO, { branches: ["main"] });
    github.state.addRepository(REPO);
    github.state.addPullRequest({ repository: REPO, number: 1, author: "bench" });
    slack.state.addChannel({ id: CHANNEL, name: "stream", botIsMember: true });
    await subscribe(yardmaster.store, CHANNEL, REPO, ["pause"], new Date());
    const firstRead = await until(
      async () => (await yardmaster.store.getPollCursor(Repo.from(REPO))) !== null,
      10_000,
    );
    if (!firstRead) throw new Error("the notifier did not read the new repository within 10 s");
    await sleep(1_000);

    const requests = async () =>
      countsBy(yardmaster.metrics, "yardmaster_notifier_log_requests_total", "reason");
    const before = await requests();
    const probes = new Map<number, number>();
    const spacing = 1000 / options.rate;
    const count = Math.round(options.rate * options.seconds);
    const probeEvery = Math.max(1, Math.round(options.probeEverySeconds * options.rate));
    const start = Date.now();
    const sent: Promise<unknown>[] = [];
    for (let i = 0; i < count; i++) {
      await sleep(start + i * spacing - Date.now());
      if (i % probeEvery === probeEvery - 1) {
        const paused = sim.state.pauseData(REPO).paused;
        if (paused) sim.state.unpause(REPO);
        else sim.state.pause(REPO, `stream ${i}`);
        const event = sim.state.events(REPO).at(-1);
        if (event) probes.set(event.id, Date.now());
      }
      sent.push(github.sendCheckRun(REPO, 1).catch(() => undefined));
    }
    await sleep(start + options.seconds * 1000 - Date.now());
    const during = await requests();
    await Promise.all(sent);
    // The follow-up: the read the last webhooks asked for and the recheck after them.
    await sleep(7_000);
    const after = await requests();
    await until(
      () => [...probes.keys()].every((id) => notices(slack.calls).some((n) => n.eventId === id)),
      10_000,
    );

    const byReason: Record<string, number> = {};
    for (const [reason, n] of Object.entries(during)) byReason[reason] = n - (before[reason] ?? 0);
    const posted = new Map(notices(slack.calls).map((n) => [n.eventId, n.at]));
    const lags: number[] = [];
    let missing = 0;
    for (const [id, at] of probes) {
      const post = posted.get(id);
      if (post === undefined) missing += 1;
      else lags.push(post - at);
    }
    return {
      rate: options.rate,
      seconds: options.seconds,
      webhooks: count,
      reads: total(byReason),
      byReason,
      readsAfter: total(after) - total(during),
      lags,
      missing,
    };
  } finally {
    await world.close();
  }
}
