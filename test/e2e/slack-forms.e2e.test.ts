import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subscribeChannel, type World } from "../helpers/e2e.js";
import { ALICE, answerTo as answerIn, CHANNEL, REPO, RITA, startSlackWorld } from "../helpers/slack-world.js";

/** Forms, end to end: `/mq pause` and `/mq subscribe` alone open a modal; its submission runs the command. */
let world: World;
const NEW_CHANNEL = "C0NEW"; // subscribed to nothing
const QUIET = "C0QUIET"; // subscribed to nothing, ever
const SECRET = "acme/secret"; // subscribed only in a private channel; alice reads it, rita does not
const NOBODY = "U0NOBODY"; // not linked to GitHub

beforeAll(async () => {
  world = await startSlackWorld([]);
  world.slack.state.addChannel({ id: NEW_CHANNEL, name: "new", botIsMember: true });
  world.slack.state.addChannel({ id: QUIET, name: "quiet", botIsMember: true });
  world.slack.state.addUser({ id: NOBODY, name: "nobody" });
  world.github.state.addRepository(SECRET);
  world.github.state.setPermission(SECRET, "alice", "read");
  await subscribeChannel(world, "C0PRIVATE", [SECRET]);
});
afterAll(() => world.close());

const slash = (text: string, userId = ALICE, channelId = CHANNEL) =>
  world.slack.sendSlashCommand({ text, userId, channelId });
const answerTo = (responseUrl: string) => answerIn(world, responseUrl);
/** The form opened for the person by the command sent as `sent`. */
const formFor = (userId: string, callbackId: string) =>
  world.slack.waitFor(
    () =>
      world.slack.state.views.current(userId)?.view.callback_id === callbackId &&
      world.slack.state.views.current(userId),
    10_000,
  );
/** The repositories a pause form offers to choose from; null when the repository is typed instead. */
const offered = (view: Record<string, unknown>) => {
  const repo = (
    view.blocks as { block_id: string; element: { type: string; options?: { value: string }[] } }[]
  ).find((b) => b.block_id === "repo");
  return repo?.element.type === "static_select" ? (repo.element.options ?? []).map((o) => o.value) : null;
};
const blockIds = (view: Record<string, unknown>) =>
  (view.blocks as { block_id: string }[]).map((b) => b.block_id);

describe("forms instead of grammar", () => {
  it("opens the pause form for /mq pause alone, shows a missing reason on its field, and pauses on submission", async () => {
    const sent = await slash("pause");
    expect(sent.status).toBe(200);
    const form = await formFor(ALICE, "mq.form.pause");
    expect(blockIds(form.view)).toEqual(["repo", "reason", "duration", "until"]);
    // Preset to the channel's repository.
    expect(JSON.stringify(form.view.blocks)).toContain(
      `"initial_option":{"text":{"type":"plain_text","text":"${REPO}"`,
    );

    const blank = await world.slack.submitView({ userId: ALICE, values: { reason: "   " } });
    expect(blank.answer).toEqual({
      response_action: "errors",
      errors: { reason: "Write why the queue is paused." },
    });
    expect(world.sim.state.pauseData(REPO).paused).toBe(false);

    const past = await world.slack.submitView({
      userId: ALICE,
      values: {
        reason: "release freeze",
        duration: "until",
        until: Math.floor(world.sim.clock.now() / 1000) - 60,
      },
    });
    expect(past.answer?.errors).toEqual({ until: "This time has passed: choose a later one." });
    expect(world.sim.state.pauseData(REPO).paused).toBe(false);

    const done = await world.slack.submitView({
      userId: ALICE,
      values: { reason: "release freeze", duration: "2h" },
    });
    expect(done.status).toBe(200);
    expect(done.view.closed).toBe(true);
    const answer = await answerTo(sent.responseUrl);
    expect(answer.response_type).toBe("in_channel");
    expect(answer.text).toContain(`<@${ALICE}> paused the merge queue of acme/widgets: release freeze`);
    expect(answer.text).toContain("resumes");
    expect(world.sim.state.pauseData(REPO)).toMatchObject({ paused: true, reason: "release freeze" });
    const unpause = await slash(`unpause ${REPO}`);
    await answerTo(unpause.responseUrl);
  });

  it("refuses a reader's submission with the command's own words, and nothing is paused", async () => {
    const sent = await slash(`pause ${REPO}`, RITA);
    await formFor(RITA, "mq.form.pause");
    await world.slack.submitView({ userId: RITA, values: { reason: "nope" } });
    const refused = await answerTo(sent.responseUrl);
    expect(refused.response_type).toBe("ephemeral");
    expect(refused.text).toContain("needs write permission");
    expect(world.sim.state.pauseData(REPO).paused).toBe(false);
  });

  it("still runs /mq pause with a reason at once, without a form", async () => {
    const views = world.slack.state.views.all().length;
    const sent = await slash(`pause ${REPO} typed reason`);
    await answerTo(sent.responseUrl);
    expect(world.sim.state.pauseData(REPO)).toMatchObject({ paused: true, reason: "typed reason" });
    expect(world.slack.state.views.all().length).toBe(views);
    const unpause = await slash(`unpause ${REPO}`);
    await answerTo(unpause.responseUrl);
  });

  it("opens the subscribe form for /mq subscribe alone, refuses a bad glob on its field, and subscribes", async () => {
    const sent = await slash("subscribe", ALICE, NEW_CHANNEL);
    const form = await formFor(ALICE, "mq.form.subscribe");
    expect(blockIds(form.view)).toEqual(["repo", "branch", "events", "digest"]);
    const bad = await world.slack.submitView({ userId: ALICE, values: { repo: REPO, branch: "release *" } });
    expect(bad.answer?.errors).toEqual({ branch: "A branch glob is 1 to 255 characters, without spaces." });
    expect(await world.yardmaster.store.listSubscriptions({ channelId: NEW_CHANNEL })).toEqual([]);

    await world.slack.submitView({
      userId: ALICE,
      values: { repo: REPO, branch: "release/*", events: ["queue", "checks"], digest: ["weekly"] },
    });
    const answer = await answerTo(sent.responseUrl);
    expect(answer.response_type).toBe("in_channel");
    expect(answer.text).toContain("subscribed this channel to acme/widgets");
    expect(await world.yardmaster.store.listSubscriptions({ channelId: NEW_CHANNEL })).toEqual([
      expect.objectContaining({ branchGlob: "release/*", groups: ["queue", "checks"] }),
    ]);
  });

  it("says so when Slack refuses to open the form (a trigger older than 3 seconds), and nothing runs", async () => {
    world.slack.faults.fail("views.open", "expired_trigger_id");
    const sent = await slash("pause");
    const answer = await answerTo(sent.responseUrl);
    expect(answer.response_type).toBe("ephemeral");
    expect(answer.text).toContain("The form could not open");
    expect(world.sim.state.pauseData(REPO).paused).toBe(false);
  });

  it("lists in the pause form only the repositories the person may see: the channel's, and those their GitHub login reads", async () => {
    // rita reads acme/widgets, the channel's, but not acme/secret (subscribed in a private channel only).
    const byRita = await slash("pause", RITA);
    expect(offered((await formFor(RITA, "mq.form.pause")).view)).toEqual([REPO]);
    // alice reads both, from a channel subscribed to nothing: the form opens at once with the channel's
    // (none: typed), then lists what her GitHub login reads, in place.
    await slash("pause", ALICE, QUIET);
    const alices = await formFor(ALICE, "mq.form.pause");
    await world.slack.waitFor(() => {
      const view = world.slack.state.views.current(ALICE, alices.id)?.view;
      return view && JSON.stringify(offered(view)) === JSON.stringify([SECRET, REPO]);
    });
    // Unlinked, from a channel subscribed to nothing: no list at all, the repository is typed.
    await slash("pause", NOBODY, QUIET);
    const nobodys = await formFor(NOBODY, "mq.form.pause");
    expect(offered(nobodys.view)).toBeNull();
    expect(JSON.stringify(nobodys.view)).not.toContain("acme/");
    // The person's choice still goes through the command's checks.
    await world.slack.submitView({ userId: RITA, values: { repo: REPO, reason: "nope" } });
    expect((await answerTo(byRita.responseUrl)).text).toContain("needs write permission");
    expect(world.sim.state.pauseData(REPO).paused).toBe(false);
  });
});
