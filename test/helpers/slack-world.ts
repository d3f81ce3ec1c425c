import type { Settings } from "../../tools/world.js";
import { linkSlackUser, startWorld, subscribeChannel, type World } from "./e2e.js";

/**
 * The world of the Slack end-to-end tests (shortcuts, unfurls, Socket Mode): one repository on the GitHub
 * stand-in with its pull requests, a channel subscribed to it, and two Slack users linked to GitHub: a
 * writer and a reader.
 */
export const REPO = "acme/widgets";
/** Subscribed to REPO. */
export const CHANNEL = "C0ENG";
/** alice on GitHub: write on REPO. */
export const ALICE = "U0ALICE";
/** rita on GitHub: read on REPO. */
export const RITA = "U0RITA";

/** `startWorld` (test/helpers/e2e.ts) with REPO, its pull requests `pulls` by alice, CHANNEL, ALICE and RITA. */
export async function startSlackWorld(pulls: readonly number[], settings: Settings = {}): Promise<World> {
  const world = await startWorld(settings);
  const { state } = world.github;
  state.addRepository(REPO);
  state.setPermission(REPO, "alice", "write");
  state.setPermission(REPO, "rita", "read");
  for (const number of pulls) {
    state.addPullRequest({
      repository: REPO,
      number,
      author: "alice",
      title: `Change ${number}`,
      base: "main",
    });
  }
  await subscribeChannel(world, CHANNEL, [REPO]);
  world.slack.state.addUser({ id: ALICE, name: "alice" });
  world.slack.state.addUser({ id: RITA, name: "rita" });
  await linkSlackUser(world, ALICE, "alice", 1);
  await linkSlackUser(world, RITA, "rita", 2);
  return world;
}

/** The GitHub stand-in's address of a pull request of REPO, as a person would paste it. */
export function pullLink(world: World, pull: number): string {
  return `http://${world.settings.GHE_HOST}/${REPO}/pull/${pull}`;
}

/** Yardmaster's answer to the response_url of a slash command, a shortcut or a button, once it is posted. */
export function answerTo(world: World, responseUrl: string) {
  return world.slack.waitFor(
    () => world.slack.state.responses.find((r) => r.responseUrl === responseUrl),
    10_000,
  );
}

/** The unfurl of `url` in the message `channel`/`ts` once `predicate` holds for its blocks (as JSON). */
export function unfurlWhen(
  world: World,
  where: { channel: string; ts: string },
  url: string,
  predicate: (text: string) => boolean,
) {
  return world.slack.waitFor(() => {
    const found = world.slack.state.unfurls.of(`${where.channel}:${where.ts}`).find((u) => u.url === url);
    return found && predicate(JSON.stringify(found.blocks)) ? found : undefined;
  }, 10_000);
}
