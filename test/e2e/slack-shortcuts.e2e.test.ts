import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { World } from "../helpers/e2e.js";
import { ALICE, answerTo, CHANNEL, pullLink, REPO, RITA, startSlackWorld } from "../helpers/slack-world.js";

/** Shortcuts, end to end: "Queue this pull request" on a message, and the global "Pause a merge queue". */
let world: World;

beforeAll(async () => {
  world = await startSlackWorld([106, 107, 108]);
});
afterAll(() => world.close());

const post = (text: string) => world.slack.state.addMessage({ channel: CHANNEL, user: RITA, text });
const shortcut = (messageTs: string, userId = ALICE) =>
  world.slack.sendMessageShortcut({ callbackId: "mq.shortcut.queue", userId, channelId: CHANNEL, messageTs });

describe("shortcuts", () => {
  it("queues the pull request a message links to, for a writer only", async () => {
    const message = post(`can someone queue <${pullLink(world, 106)}>?`);
    const byReader = await shortcut(message.ts, RITA);
    expect(byReader.status).toBe(200);
    const refused = await answerTo(world, byReader.responseUrl);
    expect(refused.response_type).toBe("ephemeral");
    expect(refused.text).toContain("needs write permission");
    expect(world.sim.state.pullDetails(REPO, 106)).toBeNull();

    const byWriter = await shortcut(message.ts);
    const done = await answerTo(world, byWriter.responseUrl);
    expect(done.response_type).toBe("in_channel");
    expect(world.sim.state.pullDetails(REPO, 106)).not.toBeNull();
  });

  it("asks which pull request when the message links to several, and queues the one chosen", async () => {
    const message = post(`<${pullLink(world, 107)}> and <${pullLink(world, 108)}|the other>`);
    const sent = await shortcut(message.ts);
    const form = await world.slack.waitFor(() => world.slack.state.views.current(ALICE));
    expect(form.view.callback_id).toBe("mq.form.queue-which");
    await world.slack.submitView({ userId: ALICE, values: { pull: `${REPO}#108` } });
    await answerTo(world, sent.responseUrl);
    expect(world.sim.state.pullDetails(REPO, 108)).not.toBeNull();
    expect(world.sim.state.pullDetails(REPO, 107)).toBeNull();
  });

  it("says so on a message without a pull-request link, and nothing is queued", async () => {
    const message = post(`see https://evil.example/${REPO}/pull/107`);
    const sent = await shortcut(message.ts);
    const answer = await answerTo(world, sent.responseUrl);
    expect(answer.response_type).toBe("ephemeral");
    expect(answer.text).toContain("This message holds no pull-request link of");
    expect(world.sim.state.pullDetails(REPO, 107)).toBeNull();
  });

  it("opens the pause form from the global shortcut and posts the result in the channel chosen, else in a direct message", async () => {
    const opened = await world.slack.sendGlobalShortcut({ callbackId: "mq.shortcut.pause", userId: ALICE });
    expect(opened.status).toBe(200);
    const form = await world.slack.waitFor(() => world.slack.state.views.current(ALICE));
    expect(form.view.callback_id).toBe("mq.form.pause");
    await world.slack.submitView({
      userId: ALICE,
      values: { repo: REPO, reason: "freeze", channel: CHANNEL },
    });
    await world.slack.waitFor(
      () => world.slack.state.channelMessages(CHANNEL).find((m) => m.text.includes("paused the merge queue")),
      10_000,
    );
    expect(world.sim.state.pauseData(REPO)).toMatchObject({ paused: true, reason: "freeze" });

    await world.slack.sendGlobalShortcut({ callbackId: "mq.shortcut.pause", userId: RITA });
    await world.slack.waitFor(() => world.slack.state.views.current(RITA));
    await world.slack.submitView({ userId: RITA, values: { repo: REPO, reason: "mine" } });
    const dm = await world.slack.waitFor(() => {
      const channel = world.slack.state.directChannel(RITA);
      return channel && world.slack.state.channelMessages(channel.id).find((m) => m.text.includes("write"));
    });
    expect(dm.text).toContain("needs write permission");
    expect(world.sim.state.pauseData(REPO).reason).toBe("freeze");
  });

  it("sends the result to the person, saying why, when the channel chosen in the form does not have the app", async () => {
    const OUTSIDE = "C0OUTSIDE";
    world.slack.state.addChannel({ id: OUTSIDE, name: "outside", botIsMember: false });
    await world.slack.sendGlobalShortcut({ callbackId: "mq.shortcut.pause", userId: ALICE });
    await world.slack.waitFor(() => world.slack.state.views.current(ALICE));
    await world.slack.submitView({
      userId: ALICE,
      values: { repo: REPO, reason: "outside freeze", channel: OUTSIDE },
    });
    const dm = await world.slack.waitFor(() => {
      const channel = world.slack.state.directChannel(ALICE);
      return (
        channel &&
        world.slack.state.channelMessages(channel.id).find((m) => m.text.includes("outside freeze"))
      );
    });
    expect(dm.text).toContain(
      `Yardmaster could not post this in <#${OUTSIDE}>: it is not a member of that channel`,
    );
    expect(dm.text).toContain("/invite @Yardmaster");
    expect(JSON.stringify(dm.blocks)).toContain("it is not a member of that channel");
    expect(JSON.stringify(dm.blocks)).toContain("paused the merge queue");
    expect(world.sim.state.pauseData(REPO)).toMatchObject({ paused: true, reason: "outside freeze" });
    expect(world.slack.state.channelMessages(OUTSIDE)).toEqual([]);
  });
});
