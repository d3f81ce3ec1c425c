import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Repo } from "../../src/repo.js";
import { ACTION_IDS, buttonValue, unpauseValue } from "../../src/slack/actions.js";
import { linkSlackUser, startWorld, subscribeChannel, type World } from "../helpers/e2e.js";

/**
 * The app's Home tab end to end: opened (a signed `app_home_opened`), published with `views.publish`,
 * showing each person only what they may see; its buttons run the commands with the checks of the
 * moment.
 */
let world: World;
const OPEN = "acme/gadgets"; // alice writes, rita reads
const SECRET = "acme/secret"; // alice writes, rita cannot read
const ALICE = "U0ALICE";
const RITA = "U0RITA";
const NOBODY = "U0NOBODY";

beforeAll(async () => {
  world = await startWorld();
  for (const repo of [OPEN, SECRET]) {
    world.sim.state.addRepository(repo, { branches: ["main"] });
    world.github.state.addRepository(repo);
    world.github.state.setPermission(repo, "alice", "write");
  }
  world.github.state.setPermission(OPEN, "rita", "read");
  for (const [id, name] of [
    [ALICE, "alice"],
    [RITA, "rita"],
    [NOBODY, "nobody"],
  ] as const)
    world.slack.state.addUser({ id, name });
  for (const [user, login, id] of [
    [ALICE, "alice", 1],
    [RITA, "rita", 2],
  ] as const)
    await linkSlackUser(world, user, login, id);
  await subscribeChannel(world, "C0OPEN", [OPEN]);
  await subscribeChannel(world, "C0SECRET", [SECRET], ["queue", "pause"]);
  const queue = (repo: string, number: number, login: string, title: string) => {
    world.github.state.addPullRequest({ repository: repo, number, author: login, title, base: "main" });
    world.sim.state.relayCommand(repo, {
      body: "@mergifyio queue",
      pull_request: { number, title, base_ref: "main", author: { id: number, login } },
    });
  };
  queue(OPEN, 7, "alice", "Add cogs");
  queue(OPEN, 8, "rita", "Fix typo");
  queue(SECRET, 11, "alice", "Secret plan");
  world.sim.state.pause(SECRET, "secret freeze");
});
afterAll(async () => {
  await world?.close();
});

/** Opens the person's Home tab and waits for the app to publish it anew; returns its blocks as text. */
async function openHome(user: string): Promise<string> {
  const before = world.slack.state.homeView(user)?.publishes ?? 0;
  const sent = await world.slack.openHome({ userId: user });
  expect(sent.status).toBe(200);
  return world.slack.waitFor(() => {
    const view = world.slack.state.homeView(user);
    return view && view.publishes > before ? JSON.stringify(view.view.blocks) : undefined;
  });
}

async function clickHome(user: string, actionId: string, value: string): Promise<string> {
  const before = world.slack.state.homeView(user)?.publishes ?? 0;
  await world.slack.clickHomeButton({ userId: user, actionId, value });
  return world.slack.waitFor(() => {
    const view = world.slack.state.homeView(user);
    return view && view.publishes > before ? JSON.stringify(view.view.blocks) : undefined;
  });
}

describe("the Home tab, end to end", () => {
  it("shows a writer their queued pull requests, paused queues with Unpause, subscriptions and notices", async () => {
    const home = await openHome(ALICE);
    expect(home).toContain("Linked to the GitHub account `alice`");
    expect(home).toContain("acme/gadgets#7");
    expect(home).toContain("acme/secret#11");
    expect(home).not.toContain("acme/gadgets#8"); // rita's
    expect(home).toContain(ACTION_IDS.dequeue);
    expect(home).toContain("secret freeze");
    expect(home).toContain(ACTION_IDS.unpause);
    expect(home).toContain("<#C0OPEN>");
    expect(home).toContain("<#C0SECRET>");
    expect(home).toContain("Turn off");
    expect(world.slack.state.homeView(ALICE)!.view.blocks.length).toBeLessThanOrEqual(100);
  });

  it("shows a reader only the repositories they can read, without buttons they may not use", async () => {
    const home = await openHome(RITA);
    expect(home).toContain("Linked to the GitHub account `rita`");
    expect(home).toContain("acme/gadgets#8");
    expect(home).not.toContain("acme/gadgets#7");
    expect(home).not.toContain("acme/secret");
    expect(home).not.toContain("secret freeze");
    expect(home).not.toContain("C0SECRET");
    expect(home).toContain("<#C0OPEN>");
    expect(home).not.toContain(ACTION_IDS.dequeue);
    expect(home).not.toContain(ACTION_IDS.unpause);
  });

  it("shows an unlinked person a Link button and nothing of any repository", async () => {
    const home = await openHome(NOBODY);
    expect(home).toContain("You have not linked a GitHub account");
    expect(home).toContain(ACTION_IDS.login);
    expect(home).not.toContain("acme/");
    expect(home).not.toContain("C0OPEN");
    // Link runs /mq login: the sign-in link appears at the top of the tab.
    const after = await clickHome(NOBODY, ACTION_IDS.login, "{}");
    expect(after).toMatch(/login\/oauth\/authorize/);
  });

  it("runs its buttons as the commands, checked when clicked", async () => {
    const off = await clickHome(
      ALICE,
      ACTION_IDS.notify,
      buttonValue({ name: "notify", change: { kind: "enabled", enabled: false } }),
    );
    expect(off).toContain("Turn on");
    expect(await world.yardmaster.store.getNoticePreferences("T0001", ALICE)).toMatchObject({
      enabled: false,
    });

    // Alice lost write access since the tab was published: Unpause is refused and the queue stays paused.
    world.github.state.setPermission(SECRET, "alice", "read");
    const refused = await clickHome(ALICE, ACTION_IDS.unpause, unpauseValue(Repo.from(SECRET)));
    expect(refused).toContain("🚫");
    expect(refused).toContain("write");
    expect(world.sim.state.pauseData(SECRET)).toMatchObject({ paused: true });
  });
  it("is published again shortly after one of the person's pull requests changes", async () => {
    await openHome(RITA);
    const before = world.slack.state.homeView(RITA)?.publishes ?? 0;
    // After the subscriptions (made on the simulator's clock): the notifier reads from then on.
    world.sim.clock.advance(60_000);
    world.sim.state.relayCommand(OPEN, { body: "@mergifyio dequeue", pull_request: 8 });
    world.sim.clock.advance(15_000);
    await world.yardmaster.poller!.tick();
    const home = await world.slack.waitFor(() => {
      const view = world.slack.state.homeView(RITA);
      return view && view.publishes > before ? JSON.stringify(view.view.blocks) : undefined;
    });
    expect(home).not.toContain("acme/gadgets#8");
    expect(home).toContain("None of your pull requests is in a merge queue");
  });
});
