// Figure 6: a backlog after an outage (issue 21). Real time: Yardmaster's notifier runs by itself
// (autoPoll, system clock), the Slack stand-in's limits on (chat.postMessage 1/s per channel, burst 3;
// chat.update 50 a minute). Thousands of events appear at once in one repository's log (pull requests
// entering, checked and merged, a few at a time, as a queue works), whose authors linked their Slack
// accounts (personal notices: each event's author is looked up on GitHub), and GitHub rings the
// doorbell. Counted over the first minute: the channel's notices, the first one's delay, the parent
// edits, the GitHub requests (pull requests read: authors and thread titles).

import { Repo } from "../../../src/repo.js";
import { startWorld } from "../../world.js";
import { appendBacklog } from "../lib/backlog-events.js";
import { notices, sleep, subscribe, until } from "./common.js";

const REPO = "bench/backlog";
const CHANNEL = "C0BACKLOG";
const AUTHORS = 10;

export interface BacklogRun {
  events: number;
  pulls: number;
  windowMs: number;
  /** The channel's notices posted within the window, and the first one's delay from the events. */
  channelPosts: number;
  firstPostMs: number;
  /** Direct messages posted within the window. */
  directPosts: number;
  parentEdits: number;
  /** Calls answered 429, by method. */
  rateLimited: Record<string, number>;
  /** Pull requests read from GitHub within the window (authors, thread titles). */
  githubPullReads: number;
  /**
   * Threads started within the window, and 2 s after it (channel and direct messages): each reads its
   * pull request's title.
   */
  threadsStarted: number;
}

export async function backlog(options: {
  events: number;
  windowMs: number;
  intervalS: number;
}): Promise<BacklogRun> {
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
    const { store } = yardmaster;
    sim.state.addRepository(REPO, { branches: ["main"] });
    github.state.addRepository(REPO);
    slack.state.addChannel({ id: CHANNEL, name: "backlog", botIsMember: true });
    await subscribe(store, CHANNEL, REPO, ["queue", "checks"], new Date(Date.now() - 60_000));
    for (let a = 0; a < AUTHORS; a++) {
      const login = `author-${a}`;
      github.state.addUser({ login });
      github.state.setPermission(REPO, login, "write");
      slack.state.addUser({ id: `U0AUTHOR${a}`, name: login });
      await store.putLink({
        teamId: "T0001",
        slackUserId: `U0AUTHOR${a}`,
        githubLogin: login,
        githubId: 1000 + a,
        linkedAt: new Date(Date.now() - 60_000),
      });
    }
    const firstRead = await until(async () => (await store.getPollCursor(Repo.from(REPO))) !== null, 10_000);
    if (!firstRead) throw new Error("the notifier did not read the new repository within 10 s");

    // The outage's events, all at once.
    const { events: appended, pulls } = appendBacklog(
      sim.state.log,
      { repository: REPO, key: sim.state.requireRepository(REPO).key },
      {
        count: options.events,
        at: sim.clock.now(),
        authors: AUTHORS,
        onPull: (pull) => github.state.addPullRequest({ repository: REPO, ...pull }),
      },
    );
    const start = Date.now();
    const readsBefore = github.requests.length;
    void github.sendCheckRun(REPO, 1).catch(() => undefined);
    await sleep(options.windowMs + 2_000);
    const end = start + options.windowMs;

    const inWindow = notices(slack.calls).filter((n) => n.at <= end);
    const channel = inWindow.filter((n) => n.channel === CHANNEL);
    const calls = slack.calls.filter((c) => c.at <= end);
    return {
      events: appended,
      pulls,
      windowMs: options.windowMs,
      channelPosts: channel.length,
      firstPostMs: channel.length > 0 ? Math.min(...channel.map((n) => n.at)) - start : Number.NaN,
      directPosts: inWindow.length - channel.length,
      parentEdits: calls.filter((c) => c.method === "chat.update" && c.httpStatus === 200).length,
      // A title read just before the window's end is posted just after it: 2 s more for those.
      threadsStarted: slack.calls.filter(
        (c) =>
          c.at <= end + 2_000 &&
          c.method === "chat.postMessage" &&
          c.httpStatus === 200 &&
          c.args.metadata &&
          !c.args.thread_ts,
      ).length,
      rateLimited: Object.fromEntries(
        ["chat.postMessage", "chat.update"].map((m) => [
          m,
          calls.filter((c) => c.method === m && c.rateLimited).length,
        ]),
      ),
      githubPullReads: github.requests
        .slice(readsBefore)
        .filter((r) => /\/pulls\/\d+$/.test(r.path) && Date.parse(r.at) <= end).length,
    };
  } finally {
    await world.close();
  }
}
