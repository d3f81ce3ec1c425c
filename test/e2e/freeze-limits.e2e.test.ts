import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Repo } from "../../src/repo.js";
import { eventually, linkSlackUser, startWorld, subscribeChannel, type World } from "../helpers/e2e.js";

/**
 * The limits on freeze windows (docs/security.md, "Limits"), tried from Slack: a window lasts at least 15
 * minutes, a one-off at most 31 days, a repository has at most 20; each refusal names its limit and
 * changes nothing. And a window whose creator may no longer freeze the repository is skipped, the channel
 * told once, the freeze kept: on the world's clock, moved by hand.
 */
const LIMITS = "acme/limits";
const LAPSE = "acme/lapse";
const CHANNEL = "C0LIMITS";
const ALICE = "U0ALICE";
const MINUTE = 60_000;
let world: World;

beforeAll(async () => {
  world = await startWorld({}, { scheduledUnpauseIntervalMs: 50 });
  for (const repo of [LIMITS, LAPSE]) {
    world.sim.state.addRepository(repo, { branches: ["main"] });
    world.github.state.addRepository(repo);
    world.github.state.setPermission(repo, "alice", "write");
  }
  world.slack.state.addUser({ id: ALICE, name: "alice", tz: "UTC" });
  await linkSlackUser(world, ALICE, "alice", 1);
  await subscribeChannel(world, CHANNEL, [LIMITS, LAPSE], ["pause"]);
});
afterAll(async () => {
  await world?.close();
});

async function slash(text: string): Promise<string> {
  const sent = await world.slack.sendSlashCommand({ text, userId: ALICE, channelId: CHANNEL });
  const answer = await world.slack.waitFor(() =>
    world.slack.state.responses.find((r) => r.responseUrl === sent.responseUrl),
  );
  return `${answer.text ?? ""}\n${JSON.stringify(answer.blocks ?? [])}`;
}

const freezesOf = (repo: string) => world.yardmaster.store.listFreezes(Repo.from(repo));

/** "2026-12-01 10:00", UTC. */
const wall = (at: number) => new Date(at).toISOString().slice(0, 16).replace("T", " ");
const hm = (at: number) => new Date(at).toISOString().slice(11, 16);

describe("the limits on freeze windows", () => {
  it("refuses a 5-minute window and a five-month one-off, naming the limit", async () => {
    expect(await slash(`freeze ${LIMITS} blink every day 10:00 - 10:05`)).toContain(
      "a freeze window lasts at least 15 minutes (this one lasts 5 minutes)",
    );
    const start = world.sim.clock.now() + 24 * 60 * MINUTE;
    const fiveMonths = start + 150 * 24 * 60 * MINUTE;
    expect(await slash(`freeze ${LIMITS} season from ${wall(start)} to ${wall(fiveMonths)}`)).toContain(
      "a one-off freeze window lasts at most 31 days (this one lasts 150 days)",
    );
    expect(await freezesOf(LIMITS)).toEqual([]);
    // At the limits: accepted.
    expect(await slash(`freeze ${LIMITS} quarter every day 10:00 - 10:15`)).toContain("set a freeze");
    const month = start + 31 * 24 * 60 * MINUTE;
    expect(await slash(`freeze ${LIMITS} month from ${wall(start)} to ${wall(month)}`)).toContain(
      "set a freeze",
    );
  });

  it("refuses a 21st window of a repository, naming the limit", async () => {
    for (let n = (await freezesOf(LIMITS)).length + 1; n <= 20; n++)
      expect(
        await slash(`freeze ${LIMITS} window ${n} every sun 0${n % 10}:00 - sun 0${n % 10}:30`),
      ).toContain("set a freeze");
    expect(await freezesOf(LIMITS)).toHaveLength(20);
    expect(await slash(`freeze ${LIMITS} one more every sat 10:00 - sat 12:00`)).toContain(
      "acme/limits already has 20 freeze windows, the most a repository may have",
    );
    expect(await freezesOf(LIMITS)).toHaveLength(20);
    // Removing one makes room again.
    expect(await slash(`unfreeze ${LIMITS} 20`)).toContain("removed the freeze #20");
    expect(await slash(`freeze ${LIMITS} one more every sat 10:00 - sat 12:00`)).toContain("set a freeze");
    // Twenty-odd slash commands one after another on a busy machine: more than the default timeout.
  }, 120_000);
});

describe("a window whose creator lost write access", () => {
  it("is skipped, the channel told once, the freeze kept for someone to remove", async () => {
    const start = Math.ceil((world.sim.clock.now() + 60 * MINUTE) / MINUTE) * MINUTE;
    const end = start + 60 * MINUTE;
    expect(await slash(`freeze ${LAPSE} nightly every day ${hm(start)} - ${hm(end)}`)).toContain(
      "set a freeze",
    );
    world.github.state.setPermission(LAPSE, "alice", "read");
    const notices = () =>
      world.slack.state
        .messages(CHANNEL)
        .map((m) => m.text)
        .filter((t) => t.startsWith("❄️ The freeze") && t.includes(LAPSE));
    const passes = async (n = 4) => {
      const before = world.yardmaster.freezeRunner.passCount;
      await eventually(() => world.yardmaster.freezeRunner.passCount >= before + n);
    };
    // Ten minutes before: no notice of a window that will not happen.
    world.sim.clock.advance(start - world.sim.clock.now() - 10 * MINUTE);
    await passes();
    expect(notices()).toEqual([]);
    world.sim.clock.advance(10 * MINUTE);
    await eventually(() => notices().length > 0);
    await passes();
    expect(notices()).toEqual([
      `❄️ The freeze "nightly" of ${LAPSE} was set by alice, who may no longer freeze it: this window is skipped and its merge queue is not paused. The freeze is kept: someone with write access removes it (unfreeze 1) or sets it again.`,
    ]);
    expect(world.sim.state.pauseData(LAPSE).paused).toBe(false);
    expect((await freezesOf(LAPSE)).map((f) => f.name)).toEqual(["nightly"]);
  });
});
