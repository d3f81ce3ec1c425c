import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Repo } from "../../src/repo.js";
import { ACTION_IDS, unpauseValue } from "../../src/slack/actions.js";
import { linkSlackUser, startWorld, type World } from "../helpers/e2e.js";

/** End to end over loopback: Slack stand-in (real signatures) → Yardmaster → simulator and GitHub stand-in. */
let world: World;
const REPO = "acme/widgets";
const CHANNEL = "C0ENG";
const ALICE = "U0ALICE"; // write on GitHub, linked through the OAuth round trip
const RITA = "U0RITA"; // read on GitHub, linked
const NOBODY = "U0NOBODY"; // not linked

beforeAll(async () => {
  world = await startWorld();
  const { state } = world.github;
  state.addRepository(REPO);
  state.setPermission(REPO, "alice", "write");
  state.setPermission(REPO, "rita", "read");
  state.addPullRequest({ repository: REPO, number: 103, author: "alice", title: "Add gears", base: "main" });
  world.slack.state.addChannel({ id: CHANNEL, name: "eng", botIsMember: true });
  for (const [id, name] of [
    [ALICE, "alice"],
    [RITA, "rita"],
    [NOBODY, "nobody"],
  ] as const) {
    world.slack.state.addUser({ id, name });
  }
  await linkSlackUser(world, RITA, "rita", 2);
});
afterAll(() => world.close());

const slash = (text: string, userId = ALICE) =>
  world.slack.sendSlashCommand({ text, userId, channelId: CHANNEL });

/** The next answer that arrived on a response_url of this command. */
function answerTo(responseUrl: string) {
  return world.slack.waitFor(
    () => world.slack.state.responses.find((r) => r.responseUrl === responseUrl),
    10_000,
  );
}

const textOf = (message: { text?: string; blocks?: unknown }) =>
  `${message.text ?? ""}\n${JSON.stringify(message.blocks ?? [])}`;

/** The sign-in link of a `/mq login` answer, followed on GitHub's stand-in as `githubLogin`: the callback's page. */
async function signInAs(answer: { text?: string; blocks?: unknown }, githubLogin: string) {
  const url = /https?:\/\/[^\s|>"]+\/login\/oauth\/authorize\?[^\s|>"]+/.exec(textOf(answer))?.[0];
  expect(url).toBeDefined();
  const authorize = await fetch(`${url!.replace(/&amp;/g, "&")}&login=${githubLogin}`, {
    redirect: "manual",
  });
  expect(authorize.status).toBe(302);
  const callback = new URL(authorize.headers.get("location") ?? "");
  return fetch(`${world.url}${callback.pathname}${callback.search}`);
}

/** Presses a button of a page's form as a browser would: its action, its hidden fields, urlencoded. */
function submitForm(html: string, decision: string): Promise<Response> {
  const action = /<form method="post" action="([^"]+)">/.exec(html)?.[1];
  expect(action).toBeDefined();
  const fields = [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map(
    (m) => [m[1] ?? "", m[2] ?? ""] as [string, string],
  );
  return fetch(`${world.url}${action}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams([...fields, ["decision", decision]]).toString(),
  });
}

describe("Slack /mq, end to end", () => {
  it("links a Slack user to a GitHub login through the OAuth round trip", async () => {
    const login = await slash("login");
    expect(login.status).toBe(200);
    const answer = await answerTo(login.responseUrl);
    expect(answer.response_type).toBe("ephemeral");
    expect(textOf(answer)).toContain("for your Slack account only and must not be passed on");
    const url = /https?:\/\/[^\s|>"]+\/login\/oauth\/authorize\?[^\s|>"]+/.exec(textOf(answer))?.[0];
    expect(url).toBeDefined();
    const authorize = await fetch(`${url!.replace(/&amp;/g, "&")}&login=alice`, { redirect: "manual" });
    expect(authorize.status).toBe(302);
    const callback = new URL(authorize.headers.get("location") ?? "");
    const page = await fetch(`${world.url}${callback.pathname}${callback.search}`);
    expect(page.status).toBe(200);
    // Both sides, by the names Slack gives them, before anything is linked.
    const asked = await page.text();
    expect(asked).toContain(
      "Confirm to link Slack user <strong>@alice</strong> in workspace <strong>Yardmaster Sandbox</strong> to this GitHub account",
    );
    expect(await world.yardmaster.store.getLink("T0001", ALICE)).toBeNull();
    const linked = await submitForm(asked, "link");
    expect(linked.status).toBe(200);
    expect(await linked.text()).toContain(
      "Slack user <strong>@alice</strong> in workspace <strong>Yardmaster Sandbox</strong> is now linked to GitHub account <strong>alice</strong>",
    );
    expect(await world.yardmaster.store.getLink("T0001", ALICE)).toMatchObject({ githubLogin: "alice" });
    // Told in Slack too, on the /mq login's response_url (Slack's own host).
    await world.slack.waitFor(
      () =>
        world.slack.state.responses.find(
          (r) =>
            r.responseUrl === login.responseUrl && `${r.text}`.includes("You are linked to GitHub as alice"),
        ),
      10_000,
    );
    const again = await fetch(`${world.url}${callback.pathname}${callback.search}`);
    expect(again.status).toBe(400);
    expect((await submitForm(asked, "link")).status).toBe(400);

    const whoami = await slash("whoami");
    expect(textOf(await answerTo(whoami.responseUrl))).toContain("alice");
  });

  it("links nobody when another GitHub account completes someone's /mq login link, until the page naming the Slack user is confirmed", async () => {
    const login = await slash("login", NOBODY);
    const answer = await answerTo(login.responseUrl);
    // Forwarded to rita, who signs in on GitHub with her own account.
    const page = await signInAs(answer, "rita");
    expect(page.status).toBe(200);
    const asked = await page.text();
    expect(asked).toContain("You signed in on GitHub as <strong>rita</strong>");
    expect(asked).toContain(
      "Confirm to link Slack user <strong>@nobody</strong> in workspace <strong>Yardmaster Sandbox</strong>",
    );
    expect(asked).toContain("<strong>Is @nobody your own Slack account?</strong>");
    expect(await world.yardmaster.store.getLink("T0001", NOBODY)).toBeNull();
    // Nobody linked yet: a button pressed by nobody is still refused as unlinked.
    const before = await slash(`pause ${REPO} nope`, NOBODY);
    expect(textOf(await answerTo(before.responseUrl))).toContain("/mq login");

    const declined = await submitForm(asked, "cancel");
    expect(declined.status).toBe(200);
    expect(await declined.text()).toContain("Nothing was linked");
    expect(await world.yardmaster.store.getLink("T0001", NOBODY)).toBeNull();
    // The form is spent: pressing Link afterwards links nobody either.
    expect((await submitForm(asked, "link")).status).toBe(400);
    expect(await world.yardmaster.store.getLink("T0001", NOBODY)).toBeNull();
    expect(world.sim.state.pauseData(REPO).paused).toBe(false);
  });

  it("answers /mq status for anyone", async () => {
    const sent = await slash(`status ${REPO} main`, NOBODY);
    expect(sent.status).toBe(200);
    const answer = await answerTo(sent.responseUrl);
    expect(answer.response_type).toBe("ephemeral");
    expect(textOf(answer)).toMatch(/acme\/widgets/);
  });

  it("lets a linked writer pause, posts it in the channel naming them, and the Unpause button works", async () => {
    const sent = await slash(`pause ${REPO} release freeze`);
    const answer = await answerTo(sent.responseUrl);
    expect(world.sim.state.pauseData(REPO)).toMatchObject({ paused: true, reason: "release freeze" });
    expect(answer.response_type).toBe("in_channel");
    expect(textOf(answer)).toContain(`<@${ALICE}>`);
    expect(JSON.stringify(answer.blocks)).toContain(ACTION_IDS.unpause);

    const click = await world.slack.clickButton({
      actionId: ACTION_IDS.unpause,
      value: unpauseValue(Repo.of("acme", "widgets")),
      userId: ALICE,
      channelId: CHANNEL,
    });
    expect(click.status).toBe(200);
    await answerTo(click.responseUrl);
    expect(world.sim.state.pauseData(REPO).paused).toBe(false);
  });

  it("removes a right-to-left override typed in a reason from the answer posted in the channel", async () => {
    const sent = await slash(`pause ${REPO} release \u202efreeze, back at 5`);
    const answer = await answerTo(sent.responseUrl);
    expect(answer.response_type).toBe("in_channel");
    expect(textOf(answer)).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    expect(answer.text).toContain(
      `<@${ALICE}> paused the merge queue of acme/widgets: release freeze, back at 5`,
    );
    const unpause = await slash(`unpause ${REPO}`);
    await answerTo(unpause.responseUrl);
    expect(world.sim.state.pauseData(REPO).paused).toBe(false);
  });

  it("refuses a read-only or unlinked user, and nothing changes", async () => {
    const before = world.sim.state.events(REPO).length;
    const byReader = await slash(`pause ${REPO} nope`, RITA);
    const refused = await answerTo(byReader.responseUrl);
    expect(refused.response_type).toBe("ephemeral");
    expect(textOf(refused)).toContain("needs *write* permission");
    const byNobody = await slash(`pause ${REPO} nope`, NOBODY);
    expect(textOf(await answerTo(byNobody.responseUrl))).toContain("/mq login");
    expect(world.sim.state.pauseData(REPO).paused).toBe(false);
    expect(world.sim.state.events(REPO).length).toBe(before);
  });

  it("queues a pull request from Slack through the relayed comment", async () => {
    const sent = await slash(`queue ${REPO}#103`);
    const answer = await answerTo(sent.responseUrl);
    expect(answer.response_type).toBe("in_channel");
    expect(world.sim.state.pullDetails(REPO, 103)).not.toBeNull();
    const relayed = world.github.state.comments(REPO, 103).map((c: { body: string }) => c.body);
    expect(relayed.some((b: string) => b.startsWith("@mergifyio queue\n") && b.includes("**alice**"))).toBe(
      true,
    );
  });

  it("refuses a button value this version did not write, says so only to the person, and nothing runs", async () => {
    const comments = world.github.state.comments(REPO, 103).length;
    const events = world.sim.state.events(REPO).length;
    const click = await world.slack.clickButton({
      actionId: ACTION_IDS.requeue,
      value: '{"r":"acme/widgets","p":103,"x":1}',
      userId: ALICE,
      channelId: CHANNEL,
    });
    expect(click.status).toBe(200);
    const answer = await answerTo(click.responseUrl);
    expect(answer.response_type).toBe("ephemeral");
    expect(textOf(answer)).toContain("does not hold a command this version of Yardmaster wrote");
    expect(textOf(answer)).toContain("/mq requeue &lt;pr&gt;");
    expect(world.github.state.comments(REPO, 103).length).toBe(comments);
    expect(world.sim.state.events(REPO).length).toBe(events);
  });

  it("reads pull request URLs of the configured GitHub only, and names it when refusing another", async () => {
    const github = `http://${world.settings.GHE_HOST}`;
    const mergeQueueCalls = world.sim.requests.snapshot().total;
    const evil = await slash("pr https://evil.example/acme/widgets/pull/103", NOBODY);
    const refused = await answerTo(evil.responseUrl);
    expect(refused.response_type).toBe("ephemeral");
    expect(textOf(refused)).toContain(`The URL must be on ${github}, the GitHub this Yardmaster serves`);
    expect(world.sim.requests.snapshot().total).toBe(mergeQueueCalls);

    const ours = await slash(`pr ${github}/acme/widgets/pull/103`, NOBODY);
    const read = await answerTo(ours.responseUrl);
    expect(textOf(read)).toContain(`${github}/acme/widgets/pull/103|#103`);
    expect(textOf(read)).not.toContain("must be on");
  });

  it("acknowledges at once even while the merge queue answers slowly", async () => {
    world.sim.faults.set(REPO, { latencyMs: 4_000 });
    try {
      const sent = await slash(`status ${REPO}`, NOBODY);
      expect(sent.status).toBe(200);
      // The ack came back before the merge queue answered: nothing was on the response_url yet.
      expect(world.slack.state.responses.some((r) => r.responseUrl === sent.responseUrl)).toBe(false);
      await answerTo(sent.responseUrl);
    } finally {
      world.sim.faults.clear(REPO);
    }
  });

  it("refuses a correctly signed request dated 400 s ahead, and nothing runs", async () => {
    const before = world.sim.state.events(REPO).length;
    const ahead = await world.slack.sendSlashCommand({
      text: `pause ${REPO} from the future`,
      userId: ALICE,
      channelId: CHANNEL,
      timestamp: Math.floor(Date.now() / 1000) + 400,
    });
    // Refused before Bolt: no acknowledgement, so nothing was started.
    expect(ahead.status).toBe(401);
    expect(world.sim.state.pauseData(REPO).paused).toBe(false);
    expect(world.sim.state.events(REPO).length).toBe(before);
  });

  it("refuses the same signed request sent again: the queue is paused once", async () => {
    const pauses = () => world.sim.state.events(REPO).filter((e) => e.type.startsWith("queue.pause")).length;
    const before = pauses();
    const sent = await slash(`pause ${REPO} replayed`);
    expect(sent.status).toBe(200);
    await answerTo(sent.responseUrl);
    expect(pauses()).toBe(before + 1);

    const replay = await world.slack.resend(sent);
    expect(replay.status).toBe(401);
    expect(pauses()).toBe(before + 1);

    // A new request with the same words is not a replay.
    const unpause = await slash(`unpause ${REPO}`);
    await answerTo(unpause.responseUrl);
    expect(world.sim.state.pauseData(REPO).paused).toBe(false);
  });

  it("rejects a bad signature and a stale timestamp, and nothing runs", async () => {
    const before = world.sim.state.events(REPO).length;
    const bad = await world.slack.sendSlashCommand({
      text: `pause ${REPO} evil`,
      userId: ALICE,
      channelId: CHANNEL,
      signature: "v0=0000000000000000000000000000000000000000000000000000000000000000",
    });
    expect(bad.status).toBe(401);
    const stale = await world.slack.sendSlashCommand({
      text: `pause ${REPO} evil`,
      userId: ALICE,
      channelId: CHANNEL,
      timestamp: Math.floor(Date.now() / 1000) - 10 * 60,
    });
    expect(stale.status).toBe(401);
    // A command Slack sent after them has been run and answered (no fixed wait): they were not.
    const later = await slash(`status ${REPO}`);
    await answerTo(later.responseUrl);
    expect(world.sim.state.pauseData(REPO).paused).toBe(false);
    expect(world.sim.state.events(REPO).length).toBe(before);
    expect(world.slack.state.responses.some((r) => r.responseUrl === bad.responseUrl)).toBe(false);
  });
});
