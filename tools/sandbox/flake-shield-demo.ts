// The flake shield at work in the sandbox (docs/notifications.md, "The flake shield"): it is on for acme/widgets
// (and acme/ships, seed.ts). As the sandbox starts, ci/e2e fails for #110, then for #111 (each queued in the
// `urgent` queue once the one before left): neither is queued again, the check failing for fewer than two
// others. Then ci/e2e fails once for #112 (a flake): its removal says ci/e2e also failed for #110 and #111 and
// is failing for everyone, the shield queues it again (a relayed `queue`, as `/mq queue` does), and this time
// it merges. `/mq stats acme/widgets` then counts it. (The demo seed's own bisection fails ci/test for a few
// pull requests too: the shield may queue one of those again.)

import type { LogEvent, Simulator } from "../simulator/index.js";
import type { GitHubStandIn } from "../stand-ins/github/index.js";
import { SANDBOX_REPOSITORY } from "./demo-people.js";

const CHECK = "ci/e2e";
/** The pull requests of the demo: two whose check fails, then one whose check fails once. */
export const FLAKE_DEMO_PULLS = [
  { number: 110, title: "chore(ci): run the tests on Node 22", author: { id: 7101, login: "gus" } },
  {
    number: 111,
    title: "feat(cart): remember the last shipping address",
    author: { id: 7102, login: "eva" },
  },
  { number: 112, title: "fix(search): trim the query before matching", author: { id: 7103, login: "farah" } },
] as const;

/** Starts the demo; returns what stops it (the timer it may still hold). */
export function startFlakeShieldDemo(parts: { sim: Simulator; github: GitHubStandIn }): () => void {
  const { sim, github } = parts;
  for (const pull of FLAKE_DEMO_PULLS) {
    sim.state.knowPullRequest(SANDBOX_REPOSITORY, {
      number: pull.number,
      title: pull.title,
      author: pull.author,
      base_ref: "main",
    });
    if (!github.state.getUser(pull.author.login))
      github.state.addUser({ login: pull.author.login, id: pull.author.id });
    github.state.setPermission(SANDBOX_REPOSITORY, pull.author.login, "write");
    github.state.addPullRequest({
      repository: SANDBOX_REPOSITORY,
      number: pull.number,
      title: pull.title,
      author: pull.author.login,
      base: "main",
      headSha: sim.state.getPullRequest(SANDBOX_REPOSITORY, pull.number)?.headSha,
    });
  }
  const [first, second, third] = FLAKE_DEMO_PULLS;
  const queue = (pull: (typeof FLAKE_DEMO_PULLS)[number], times?: number) => {
    sim.state.relayCommand(SANDBOX_REPOSITORY, {
      body: "@mergifyio queue urgent",
      author: pull.author,
      pull_request: pull.number,
    });
    sim.state.setChecks(SANDBOX_REPOSITORY, pull.number, "failure", CHECK, times);
  };
  // One after the other, each tested alone: the next is queued once the one before left for its check
  // (from a timer: not within the log's own append).
  queue(first);
  const next = new Map([
    [first.number, () => queue(second)],
    [second.number, () => queue(third, 1)],
  ]);
  let timer: NodeJS.Timeout | undefined;
  const unlisten = sim.state.log.onAppend((event: LogEvent) => {
    if (event.type !== "action.queue.leave" || event.metadata.dequeue_code !== "CHECKS_FAILED") return;
    const then = next.get(event.pullRequest as 110 | 111);
    if (!then) return;
    next.delete(event.pullRequest as 110 | 111);
    if (next.size === 0) unlisten();
    timer = setTimeout(then, 0);
    timer.unref();
  });
  return () => {
    unlisten();
    clearTimeout(timer);
  };
}
