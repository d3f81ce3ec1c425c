import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linkSlackUser, startWorld, subscribeChannel, type World } from "../helpers/e2e.js";

/** `/mq doctor` end to end: Slack stand-in → Yardmaster → the setup check against the stand-ins. */
let world: World;
const REPO = "acme/widgets";
const CHANNEL = "C0OPS";
const ADA = "U0ADA"; // admin of the subscribed repository on GitHub, linked
const WRITER = "U0WRITER"; // write only, linked
const NOBODY = "U0NOBODY"; // not linked

beforeAll(async () => {
  world = await startWorld({ PUBLIC_URL: "https://yardmaster.example.com", METRICS_PORT: "0" });
  const { state } = world.github;
  state.addRepository(REPO);
  state.setPermission(REPO, "ada", "admin");
  state.setPermission(REPO, "walt", "write");
  await subscribeChannel(world, CHANNEL, [REPO]);
  for (const [id, login] of [
    [ADA, "ada"],
    [WRITER, "walt"],
  ] as const) {
    await linkSlackUser(world, id, login, 1);
  }
});
afterAll(() => world.close());

async function doctor(userId: string) {
  const sent = await world.slack.sendSlashCommand({ text: "doctor", userId, channelId: CHANNEL });
  expect(sent.status).toBe(200);
  const answer = await world.slack.waitFor(
    () => world.slack.state.responses.find((r) => r.responseUrl === sent.responseUrl),
    15_000,
  );
  return { answer, text: `${answer.text ?? ""}\n${JSON.stringify(answer.blocks ?? [])}` };
}

describe("/mq doctor, end to end", () => {
  it("shows a linked admin the setup check, only to them", async () => {
    const { answer, text } = await doctor(ADA);
    expect(answer.response_type).toBe("ephemeral");
    expect(text).toContain("Yardmaster setup check");
    expect(text).toContain("authenticates as yardmaster");
    expect(text).toContain("merge-queue token: acme/widgets");
    expect(text).toContain("reads the queue and the event log");
    expect(text).toContain("Ready: every check passed.");
    // No secret of the configuration reaches Slack.
    for (const name of [
      "SLACK_BOT_TOKEN",
      "SLACK_SIGNING_SECRET",
      "WEBHOOK_SECRET",
      "MERGE_QUEUE_API_TOKEN",
    ]) {
      expect(text).not.toContain(world.settings[name]);
    }
  });

  it("names what fails: a Slack token without a scope of the manifest", async () => {
    world.slack.setScopes(["commands", "channels:history", "groups:history", "users:read", "team:read"]);
    try {
      const { text } = await doctor(ADA);
      expect(text).toContain("the token lacks chat:write");
      expect(text).toContain("reinstall the app to the workspace");
      expect(text).toContain("1 required check failed");
    } finally {
      world.slack.setScopes([
        "commands",
        "chat:write",
        "channels:history",
        "groups:history",
        "users:read",
        "team:read",
      ]);
    }
  });

  it("refuses someone who is not admin of a subscribed repository, or not linked, and checks nothing", async () => {
    const calls = world.slack.calls.length;
    const { answer, text } = await doctor(WRITER);
    expect(answer.response_type).toBe("ephemeral");
    expect(text).toContain("needs *admin* permission on a subscribed repository; walt has it on none");
    expect(text).not.toContain("setup check");
    expect((await doctor(NOBODY)).text).toContain("/mq login");
    // The setup check calls Slack's auth.test: it did not run.
    expect(world.slack.calls.slice(calls).some((c) => c.method === "auth.test")).toBe(false);
  });
});
