import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UNFURL_ACTION_IDS } from "../../src/slack/unfurls/values.js";
import { STAND_IN_APP_TOKEN } from "../../tools/stand-ins/slack/index.js";
import type { World } from "../helpers/e2e.js";
import {
  ALICE,
  answerTo,
  CHANNEL,
  pullLink,
  REPO,
  RITA,
  startSlackWorld,
  unfurlWhen as unfurlIn,
} from "../helpers/slack-world.js";

/**
 * Socket Mode, end to end: with SLACK_APP_TOKEN and no signing secret, Yardmaster opens its connection
 * through the stand-in's apps.connections.open, and the same scenarios as over HTTP arrive as envelopes.
 */
let world: World;
const link = (pull: number) => pullLink(world, pull);

beforeAll(async () => {
  world = await startSlackWorld([111, 112], {
    SLACK_APP_TOKEN: STAND_IN_APP_TOKEN,
    SLACK_SIGNING_SECRET: "",
  });
});
afterAll(() => world.close());

const unfurlWhen = (ts: string, url: string, predicate: (text: string) => boolean) =>
  unfurlIn(world, { channel: CHANNEL, ts }, url, predicate);

describe("Socket Mode", () => {
  it("connects through apps.connections.open and serves no request URL", async () => {
    expect(world.slack.socket.connections).toBe(1);
    const post = await fetch(`${world.url}/slack/events`, { method: "POST", body: "{}" });
    expect(post.status).toBe(404);
  });

  it("unfurls a pasted link with its position, and Queue is refused for a reader and works for a writer", async () => {
    const shared = await world.slack.shareLink({ userId: ALICE, channelId: CHANNEL, text: link(111) });
    expect(shared.posted.sentHeaders).toEqual({}); // an envelope, not a signed request
    await unfurlWhen(
      shared.ts,
      link(111),
      (t) => t.includes("Not queued.") && t.includes(UNFURL_ACTION_IDS.queue),
    );
    const byReader = await world.slack.clickUnfurlButton({
      actionId: UNFURL_ACTION_IDS.queue,
      userId: RITA,
      channelId: CHANNEL,
      messageTs: shared.ts,
    });
    expect(`${(await answerTo(world, byReader.responseUrl)).text}`).toContain("needs write permission");
    expect(world.sim.state.pullDetails(REPO, 111)).toBeNull();
    const byWriter = await world.slack.clickUnfurlButton({
      actionId: UNFURL_ACTION_IDS.queue,
      userId: ALICE,
      channelId: CHANNEL,
      messageTs: shared.ts,
    });
    await answerTo(world, byWriter.responseUrl);
    const position = (world.sim.state.pullDetails(REPO, 111)?.position ?? -2) + 1;
    await unfurlWhen(shared.ts, link(111), (t) => t.includes(`osition ${position} in the merge queue`));

    // The same event again, as a retry to another connection would carry it: unfurled once.
    const calls = world.slack.calls.filter((c) => c.method === "chat.unfurl").length;
    await world.slack.socket.send("events_api", JSON.parse(shared.posted.eventBody), {
      timeoutMs: 10_000,
      retryAttempt: 1,
    });
    const later = await world.slack.shareLink({
      userId: ALICE,
      channelId: CHANNEL,
      text: link(112),
      compose: false,
    });
    await unfurlWhen(later.ts, link(112), () => true);
    expect(world.slack.calls.filter((c) => c.method === "chat.unfurl").length).toBe(calls + 1);
  });

  it("opens the pause form for /mq pause alone, shows a missing reason on its field, and pauses", async () => {
    const sent = await world.slack.sendSlashCommand({ text: "pause", userId: ALICE, channelId: CHANNEL });
    expect(sent.status).toBe(200);
    await world.slack.waitFor(() => world.slack.state.views.current(ALICE));
    const blank = await world.slack.submitView({ userId: ALICE, values: { reason: "" } });
    expect(blank.answer?.errors).toEqual({ reason: "Write why the queue is paused." });
    await world.slack.submitView({ userId: ALICE, values: { reason: "over the socket" } });
    const answer = await answerTo(world, sent.responseUrl);
    expect(answer.response_type).toBe("in_channel");
    expect(world.sim.state.pauseData(REPO)).toMatchObject({ paused: true, reason: "over the socket" });
    const unpause = await world.slack.sendSlashCommand({
      text: `unpause ${REPO}`,
      userId: ALICE,
      channelId: CHANNEL,
    });
    await answerTo(world, unpause.responseUrl);
  });

  it("queues the linked pull request from the message shortcut", async () => {
    const message = world.slack.state.addMessage({ channel: CHANNEL, user: RITA, text: `<${link(112)}>` });
    const sent = await world.slack.sendMessageShortcut({
      callbackId: "mq.shortcut.queue",
      userId: ALICE,
      channelId: CHANNEL,
      messageTs: message.ts,
    });
    expect((await answerTo(world, sent.responseUrl)).response_type).toBe("in_channel");
    expect(world.sim.state.pullDetails(REPO, 112)).not.toBeNull();
  });
});
