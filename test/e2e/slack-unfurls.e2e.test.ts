import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UNFURL_ACTION_IDS } from "../../src/slack/unfurls/values.js";
import { subscribeChannel, type World } from "../helpers/e2e.js";
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

/** Pasted pull-request links, end to end: signed `link_shared` → chat.unfurl with the queue state and buttons. */
let world: World;
const OTHER = "C0RANDOM"; // subscribed to nothing
const SECRET = "acme/secret"; // subscribed only in a private channel; alice reads it, rita does not
const PRIVATE = "C0PRIVATE";
const NOBODY = "U0NOBODY"; // not linked to GitHub
const link = (pull: number) => pullLink(world, pull);
const secretLink = (pull: number) => `http://${world.settings.GHE_HOST}/${SECRET}/pull/${pull}`;

beforeAll(async () => {
  world = await startSlackWorld([103, 104, 105]);
  world.slack.state.addChannel({ id: OTHER, name: "random", botIsMember: true });
  world.slack.state.addUser({ id: NOBODY, name: "nobody" });
  const { state } = world.github;
  state.addRepository(SECRET);
  state.setPermission(SECRET, "alice", "read");
  state.addPullRequest({
    repository: SECRET,
    number: 1,
    author: "alice",
    title: "Secret plan",
    base: "main",
  });
  await subscribeChannel(world, PRIVATE, [SECRET]);
});
afterAll(() => world.close());

const unfurlsOf = (channel: string, ts: string) => world.slack.state.unfurls.of(`${channel}:${ts}`);
/** The composer's preview of a link being written, once it is there. */
const previewOf = (unfurlId: string | null) =>
  world.slack.waitFor(() => world.slack.state.unfurls.of(`composer:${unfurlId}`)[0]);
const composerCallsFor = (...unfurlIds: (string | null)[]) =>
  unfurlCalls().filter((c) => unfurlIds.includes(String(c.args.unfurl_id)));
const textOf = (blocks: unknown) => JSON.stringify(blocks);
const unfurlCalls = () => world.slack.calls.filter((c) => c.method === "chat.unfurl");
/**
 * The chat.unfurl calls for these messages: a count of them all would also see an earlier test's late
 * work (an unfurl updated in place after its button's answer).
 */
const unfurlCallsFor = (...messages: string[]) =>
  unfurlCalls().filter((c) => messages.includes(String(c.args.ts)));
const buttonsOf = (blocks: unknown[]) =>
  blocks.flatMap((b) =>
    ((b as { elements?: { action_id: string }[] }).elements ?? []).map((e) => e.action_id),
  );

/** The unfurl of `url` in the message once `predicate` holds for it. */
function unfurlWhen(channel: string, ts: string, url: string, predicate: (text: string) => boolean) {
  return unfurlIn(world, { channel, ts }, url, predicate);
}

/** A well-formed link to pull request 105, shared after a test's other events, once it is unfurled. */
async function laterEvent() {
  const later = await world.slack.shareLink({
    userId: ALICE,
    channelId: CHANNEL,
    text: link(105),
    compose: false,
  });
  await unfurlWhen(CHANNEL, later.ts, link(105), () => true);
  return later;
}

describe("pull-request links unfurled with their queue state", () => {
  it("unfurls a pasted link while composing and once posted; Queue is refused for a reader and works for a writer", async () => {
    const shared = await world.slack.shareLink({
      userId: ALICE,
      channelId: CHANNEL,
      text: `see <${link(103)}>`,
    });
    expect(shared.composer?.status).toBe(200);
    expect(shared.posted.status).toBe(200);
    // The composer's preview is answered by its unfurl_id.
    const preview = await world.slack.waitFor(
      () => world.slack.state.unfurls.of(`composer:${shared.unfurlId}`)[0],
    );
    expect(textOf(preview.blocks)).toContain("Not queued.");
    const posted = await unfurlWhen(CHANNEL, shared.ts, link(103), (t) => t.includes("Not queued."));
    expect(textOf(posted.blocks)).toContain("Change 103");
    expect(buttonsOf(posted.blocks)).toEqual([UNFURL_ACTION_IDS.queue, UNFURL_ACTION_IDS.refresh]);

    const byReader = await world.slack.clickUnfurlButton({
      actionId: UNFURL_ACTION_IDS.queue,
      userId: RITA,
      channelId: CHANNEL,
      messageTs: shared.ts,
    });
    expect(byReader.status).toBe(200);
    const refused = await answerTo(world, byReader.responseUrl);
    expect(refused.response_type).toBe("ephemeral");
    expect(`${refused.text}`).toContain("needs write permission");
    expect(world.sim.state.pullDetails(REPO, 103)).toBeNull();

    const byWriter = await world.slack.clickUnfurlButton({
      actionId: UNFURL_ACTION_IDS.queue,
      userId: ALICE,
      channelId: CHANNEL,
      messageTs: shared.ts,
    });
    const done = await answerTo(world, byWriter.responseUrl);
    expect(done.response_type).toBe("in_channel");
    expect(world.sim.state.pullDetails(REPO, 103)).not.toBeNull();
    // Updated in place: the same unfurl now shows its place and a Dequeue button.
    const position = (world.sim.state.pullDetails(REPO, 103)?.position ?? -2) + 1;
    const updated = await unfurlWhen(CHANNEL, shared.ts, link(103), (t) =>
      t.includes(`osition ${position} in the merge queue`),
    );
    expect(buttonsOf(updated.blocks)).toEqual([UNFURL_ACTION_IDS.dequeue, UNFURL_ACTION_IDS.refresh]);
    expect(unfurlsOf(CHANNEL, shared.ts)).toHaveLength(1);
  });

  it("shows a queued pull request's position, and Dequeue works for a writer and is refused for a reader", async () => {
    const queued = await world.slack.sendSlashCommand({
      text: `queue ${REPO}#104`,
      userId: ALICE,
      channelId: CHANNEL,
    });
    await answerTo(world, queued.responseUrl);
    const shared = await world.slack.shareLink({
      userId: RITA,
      channelId: CHANNEL,
      text: `<${link(104)}> please`,
      compose: false,
    });
    const position = (world.sim.state.pullDetails(REPO, 104)?.position ?? -2) + 1;
    const posted = await unfurlWhen(CHANNEL, shared.ts, link(104), (t) =>
      t.includes(`osition ${position} in the merge queue`),
    );
    expect(buttonsOf(posted.blocks)).toContain(UNFURL_ACTION_IDS.dequeue);

    const byReader = await world.slack.clickUnfurlButton({
      actionId: UNFURL_ACTION_IDS.dequeue,
      userId: RITA,
      channelId: CHANNEL,
      messageTs: shared.ts,
    });
    expect(`${(await answerTo(world, byReader.responseUrl)).text}`).toContain("needs write permission");
    expect(world.sim.state.pullDetails(REPO, 104)).not.toBeNull();

    const byWriter = await world.slack.clickUnfurlButton({
      actionId: UNFURL_ACTION_IDS.dequeue,
      userId: ALICE,
      channelId: CHANNEL,
      messageTs: shared.ts,
    });
    await answerTo(world, byWriter.responseUrl);
    await world.slack.waitFor(() => world.sim.state.pullDetails(REPO, 104) === null);
    await unfurlWhen(CHANNEL, shared.ts, link(104), (t) => t.includes("Not queued."));
  });

  it("shows a paused queue, and Refresh updates the unfurl in place", async () => {
    const shared = await world.slack.shareLink({
      userId: ALICE,
      channelId: CHANNEL,
      text: link(105),
      compose: false,
    });
    await unfurlWhen(
      CHANNEL,
      shared.ts,
      link(105),
      (t) => t.includes("Not queued.") && !t.includes("paused"),
    );
    const pause = await world.slack.sendSlashCommand({
      text: `pause ${REPO} release freeze`,
      userId: ALICE,
      channelId: CHANNEL,
    });
    await answerTo(world, pause.responseUrl);
    const refresh = await world.slack.clickUnfurlButton({
      actionId: UNFURL_ACTION_IDS.refresh,
      userId: RITA,
      channelId: CHANNEL,
      messageTs: shared.ts,
    });
    expect(refresh.status).toBe(200);
    const updated = await unfurlWhen(CHANNEL, shared.ts, link(105), (t) =>
      t.includes("is paused: release freeze"),
    );
    expect(unfurlsOf(CHANNEL, shared.ts)).toEqual([expect.objectContaining({ updates: 2 })]);
    expect(textOf(updated.blocks)).toContain("Not queued.");
    const unpause = await world.slack.sendSlashCommand({
      text: `unpause ${REPO}`,
      userId: ALICE,
      channelId: CHANNEL,
    });
    await answerTo(world, unpause.responseUrl);
  });

  it("unfurls each event once, even when it arrives again with the same event_id", async () => {
    const shared = await world.slack.shareLink({
      userId: ALICE,
      channelId: CHANNEL,
      text: link(103),
      compose: false,
    });
    await unfurlWhen(CHANNEL, shared.ts, link(103), () => true);
    // Signed anew (the stand-in never signs one event twice in the same second, so not a replay of the
    // same signature), as a retry to another replica.
    const again = await world.slack.sendEventAgain(shared.posted.eventBody);
    expect(again.status).toBe(200);
    // A later event is answered after it: once it is, the repeated one has been passed over.
    const later = await laterEvent();
    expect(unfurlCallsFor(shared.ts, later.ts)).toHaveLength(2);
    expect(unfurlsOf(CHANNEL, shared.ts)).toEqual([expect.objectContaining({ updates: 1 })]);
  });

  it("leaves links of another host, of an unsubscribed channel, and malformed or unsigned events alone", async () => {
    const otherHost = await world.slack.shareLink({
      userId: ALICE,
      channelId: CHANNEL,
      text: `https://evil.example/${REPO}/pull/103`,
      compose: false,
    });
    const otherChannel = await world.slack.shareLink({
      userId: ALICE,
      channelId: OTHER,
      text: link(103),
      compose: false,
    });
    const malformed = JSON.parse(otherChannel.posted.eventBody) as {
      event: Record<string, unknown>;
      event_id: string;
    };
    malformed.event.channel = CHANNEL;
    malformed.event.links = "not a list";
    malformed.event_id = "EvMALFORMED";
    expect((await world.slack.sendEventAgain(JSON.stringify(malformed))).status).toBe(200);
    const unsigned = await fetch(`${world.url}/slack/events`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: otherChannel.posted.eventBody
        .replace(OTHER, CHANNEL)
        .replace(/"event_id":"[^"]+"/, '"event_id":"EvUNSIGNED"'),
    });
    expect(unsigned.status).toBe(401);
    // A well-formed event after them is unfurled: by then the ones before were passed over.
    const later = await laterEvent();
    expect(unfurlCallsFor(otherHost.ts, otherChannel.ts, later.ts)).toHaveLength(1);
    expect(unfurlsOf(CHANNEL, otherHost.ts)).toEqual([]);
    expect(unfurlsOf(OTHER, otherChannel.ts)).toEqual([]);
  });

  it("previews a link being written only for a writer whose linked GitHub login can read the repository", async () => {
    // Written in a conversation subscribed to nothing (a direct message would be the same): no channel rule applies.
    const write = (userId: string, url: string) =>
      world.slack.shareLink({ userId, channelId: OTHER, text: `look <${url}>` });
    const byNobody = await write(NOBODY, secretLink(1));
    const byNobodyOwn = await write(NOBODY, link(103));
    const byRita = await write(RITA, secretLink(1));
    expect(byNobody.composer?.status).toBe(200);
    expect(byRita.composer?.status).toBe(200);
    // A linked reader of the repository gets the preview, with its title and state; once it is there,
    // the events sent before it have been handled.
    const byAlice = await write(ALICE, secretLink(1));
    const preview = await previewOf(byAlice.unfurlId);
    expect(textOf(preview.blocks)).toContain("Secret plan");
    const byRitaOwn = await write(RITA, link(103));
    const readerPreview = await previewOf(byRitaOwn.unfurlId);
    expect(textOf(readerPreview.blocks)).toContain("Change 103");
    // Its state (queued by the first test).
    expect(textOf(readerPreview.blocks)).toMatch(/osition \d+ in the merge queue/);

    // Unlinked, or linked to a login that cannot read it: nothing at all, not even a title.
    for (const shared of [byNobody, byNobodyOwn, byRita]) {
      expect(world.slack.state.unfurls.of(`composer:${shared.unfurlId}`)).toEqual([]);
    }
    expect(composerCallsFor(byNobody.unfurlId, byNobodyOwn.unfurlId, byRita.unfurlId)).toEqual([]);
    // Posted in a conversation subscribed to nothing: no unfurl either, whoever wrote it.
    expect(unfurlsOf(OTHER, byAlice.ts)).toEqual([]);
  });

  it("still unfurls a posted link for everyone in a channel subscribed to its repository, linked or not", async () => {
    const shared = await world.slack.shareLink({ userId: NOBODY, channelId: CHANNEL, text: link(104) });
    const posted = await unfurlWhen(CHANNEL, shared.ts, link(104), () => true);
    expect(textOf(posted.blocks)).toContain("Change 104");
    expect(world.slack.state.unfurls.of(`composer:${shared.unfurlId}`)).toEqual([]);
  });

  it("is not a command: an unfurl counts no `pr` or `status` in /metrics", async () => {
    const before = await readCommands();
    const shared = await world.slack.shareLink({ userId: ALICE, channelId: CHANNEL, text: link(104) });
    const preview = await previewOf(shared.unfurlId);
    expect(textOf(preview.blocks)).toContain("Change 104");
    const posted = await unfurlWhen(CHANNEL, shared.ts, link(104), () => true);
    expect(textOf(posted.blocks)).toContain("Change 104");
    expect(await readCommands()).toEqual(before);
  });
});

/** yardmaster_commands_total's samples of the read commands an unfurl once ran (pr, status). */
async function readCommands(): Promise<string[]> {
  const text = await (await fetch(`${world.url}/metrics`)).text();
  return text.split("\n").filter((l) => /^yardmaster_commands_total\{.*command="(pr|status)"/.test(l));
}
