import type { WebClient } from "@slack/web-api";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SlackStandIn } from "../../../../tools/stand-ins/slack/index.js";
import { BOT_TOKEN, clientFor, slackError, startTestSlack } from "./helpers.js";

let slack: SlackStandIn;
let client: WebClient;

beforeEach(async () => {
  slack = await startTestSlack();
  client = clientFor(slack);
});

afterEach(async () => {
  await slack.close();
});

describe("auth", () => {
  it("answers auth.test with the bot's identity", async () => {
    const result = await client.auth.test();
    expect(result).toMatchObject({ ok: true, team_id: "T0001", user_id: "U0BOT", bot_id: "B0BOT" });
    expect(result.url).toMatch(/^https:\/\/.+\.slack\.com\/$/);
  });

  it("refuses a wrong token with invalid_auth and no token with not_authed", async () => {
    expect(await slackError(clientFor(slack, "xoxb-wrong").auth.test())).toMatchObject({
      code: "slack_webapi_platform_error",
      error: "invalid_auth",
    });
    const noToken = await fetch(`${slack.apiUrl}auth.test`, { method: "POST" });
    expect(noToken.status).toBe(200);
    expect(await noToken.json()).toEqual({ ok: false, error: "not_authed" });
  });

  it("accepts the token as a form field and JSON bodies with a bearer token", async () => {
    const form = await fetch(`${slack.apiUrl}chat.postMessage`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: BOT_TOKEN, channel: "C0MERGE", text: "form" }).toString(),
    });
    expect(await form.json()).toMatchObject({ ok: true, channel: "C0MERGE" });
    const json = await fetch(`${slack.apiUrl}chat.postMessage`, {
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8", authorization: `Bearer ${BOT_TOKEN}` },
      body: JSON.stringify({
        channel: "C0MERGE",
        text: "json",
        metadata: { event_type: "t", event_payload: {} },
      }),
    });
    expect(await json.json()).toMatchObject({
      ok: true,
      message: { text: "json", metadata: { event_type: "t" } },
    });
    expect(slack.state.messages("C0MERGE").map((m) => m.text)).toEqual(["form", "json"]);
  });

  it("answers an unknown method with unknown_method and records every call", async () => {
    expect(await slackError(client.apiCall("chat.teleport", { channel: "C0MERGE" }))).toMatchObject({
      error: "unknown_method",
    });
    expect(slack.calls.map((call) => call.method)).toEqual(["chat.teleport"]);
    expect(slack.calls[0]).toMatchObject({ args: { channel: "C0MERGE" }, httpStatus: 200 });
    expect(slack.calls[0]?.args).not.toHaveProperty("token");
  });
});

describe("chat.postMessage", () => {
  it("posts with blocks and metadata (decoded from the form) and hands out increasing ts", async () => {
    const blocks = [{ type: "section", text: { type: "mrkdwn", text: "*#42* entered the queue" } }];
    const metadata = { event_type: "yardmaster_pr", event_payload: { repo: "acme/widgets", pr: 42 } };
    const first = await client.chat.postMessage({
      channel: "C0MERGE",
      text: "#42 entered",
      blocks,
      metadata,
    });
    const second = await client.chat.postMessage({ channel: "C0MERGE", text: "second" });
    expect(first).toMatchObject({
      ok: true,
      channel: "C0MERGE",
      message: { text: "#42 entered", blocks, metadata },
    });
    expect(first.ts).toMatch(/^\d{10}\.\d{6}$/);
    expect(Number(second.ts)).toBeGreaterThan(Number(first.ts));
    expect(slack.calls[0]?.args).toMatchObject({ channel: "C0MERGE", blocks, metadata });
    const [stored] = slack.state.messages("C0MERGE");
    expect(stored).toMatchObject({
      ts: first.ts,
      user: "U0BOT",
      bot_id: "B0BOT",
      metadata,
      missingFallback: false,
    });
  });

  it("threads replies, including under a reply's ts, and broadcasts when asked", async () => {
    const parent = await client.chat.postMessage({ channel: "C0MERGE", text: "parent" });
    const reply = await client.chat.postMessage({ channel: "C0MERGE", text: "r1", thread_ts: parent.ts! });
    await client.chat.postMessage({
      channel: "C0MERGE",
      text: "r2",
      thread_ts: reply.ts!,
      reply_broadcast: true,
    });
    const [top] = slack.state.messages("C0MERGE");
    expect(top?.replies.map((r) => [r.text, r.thread_ts])).toEqual([
      ["r1", parent.ts],
      ["r2", parent.ts],
    ]);
    expect(slack.state.thread("C0MERGE", reply.ts!).map((m) => m.text)).toEqual(["parent", "r1", "r2"]);
    const history = await client.conversations.history({ channel: "C0MERGE" });
    expect(history.messages?.map((m) => [m.text, m.subtype])).toEqual([
      ["r2", "thread_broadcast"],
      ["parent", undefined],
    ]);
    expect(history.messages?.[1]).toMatchObject({
      reply_count: 2,
      thread_ts: parent.ts,
      latest_reply: expect.any(String),
    });
  });

  it("refuses unknown channels, channels the bot is not in, unknown threads and empty messages", async () => {
    expect(await slackError(client.chat.postMessage({ channel: "C0NOPE", text: "x" }))).toMatchObject({
      error: "channel_not_found",
    });
    expect(await slackError(client.chat.postMessage({ channel: "C0OUT", text: "x" }))).toMatchObject({
      error: "not_in_channel",
    });
    expect(
      await slackError(
        client.chat.postMessage({ channel: "C0MERGE", text: "x", thread_ts: "1700000000.000001" }),
      ),
    ).toMatchObject({ error: "thread_not_found" });
    expect(await slackError(client.apiCall("chat.postMessage", { channel: "C0MERGE" }))).toMatchObject({
      error: "no_text",
    });
    slack.state.addChannel({ id: "G0SECRET", name: "secret", isPrivate: true, botIsMember: false });
    expect(await slackError(client.chat.postMessage({ channel: "G0SECRET", text: "x" }))).toMatchObject({
      error: "channel_not_found",
    });
    expect(slack.state.messages("C0MERGE")).toEqual([]);
  });

  it("stops posting in a channel the bot was removed from, and conversations.join brings it back", async () => {
    await client.chat.postMessage({ channel: "C0MERGE", text: "before" });
    slack.state.setBotMembership("C0MERGE", false);
    expect(await slackError(client.chat.postMessage({ channel: "C0MERGE", text: "x" }))).toMatchObject({
      error: "not_in_channel",
    });
    expect((await client.conversations.info({ channel: "C0MERGE" })).channel).toMatchObject({
      is_member: false,
    });
    await client.conversations.join({ channel: "C0MERGE" });
    await client.chat.postMessage({ channel: "C0MERGE", text: "after" });
    expect(slack.state.messages("C0MERGE").map((m) => m.text)).toEqual(["before", "after"]);
  });
});

describe("chat.update", () => {
  it("updates the bot's message text, blocks and metadata", async () => {
    const posted = await client.chat.postMessage({
      channel: "C0MERGE",
      text: "queued",
      blocks: [{ type: "section", text: { type: "plain_text", text: "queued" } }],
      metadata: { event_type: "yardmaster_pr", event_payload: { state: "queued" } },
    });
    const blocks = [{ type: "section", text: { type: "plain_text", text: "merged" } }];
    const updated = await client.chat.update({ channel: "C0MERGE", ts: posted.ts!, text: "merged", blocks });
    expect(updated).toMatchObject({ ok: true, channel: "C0MERGE", ts: posted.ts, text: "merged" });
    expect(slack.state.message("C0MERGE", posted.ts!)).toMatchObject({
      text: "merged",
      blocks,
      metadata: { event_payload: { state: "queued" } },
    });
    await client.chat.update({
      channel: "C0MERGE",
      ts: posted.ts!,
      text: "merged!",
      metadata: { event_type: "yardmaster_pr", event_payload: { state: "merged" } },
    });
    const after = slack.state.message("C0MERGE", posted.ts!);
    expect(after?.blocks).toBeUndefined(); // text without blocks removes them, as on Slack
    expect(after?.metadata?.event_payload).toEqual({ state: "merged" });
    expect(after?.edited?.user).toBe("U0BOT");
  });

  it("refuses unknown messages and other people's messages", async () => {
    expect(
      await slackError(client.chat.update({ channel: "C0MERGE", ts: "1700000000.000001", text: "x" })),
    ).toMatchObject({ error: "message_not_found" });
    const human = slack.state.addMessage({ channel: "C0MERGE", user: "U0ALICE", text: "hi" });
    expect(
      await slackError(client.chat.update({ channel: "C0MERGE", ts: human.ts, text: "x" })),
    ).toMatchObject({
      error: "cant_update_message",
    });
  });
});

describe("chat.postEphemeral", () => {
  it("shows a message to one user only", async () => {
    const result = await client.chat.postEphemeral({ channel: "C0MERGE", user: "U0ALICE", text: "only you" });
    expect(result.message_ts).toMatch(/^\d{10}\.\d{6}$/);
    expect(slack.state.ephemerals("C0MERGE", "U0ALICE")).toMatchObject([
      { text: "only you", user: "U0ALICE", message_ts: result.message_ts, origin: "chat.postEphemeral" },
    ]);
    expect(slack.state.ephemerals("C0MERGE", "U0BOB")).toEqual([]);
    expect(slack.state.messages("C0MERGE")).toEqual([]);
  });
});

describe("conversations.history and conversations.replies", () => {
  it("returns newest first, with metadata only when include_all_metadata is set", async () => {
    const metadata = { event_type: "yardmaster_pr", event_payload: { pr: 1 } };
    await client.chat.postMessage({ channel: "C0MERGE", text: "one", metadata });
    await client.chat.postMessage({ channel: "C0MERGE", text: "two" });
    const plain = await client.conversations.history({ channel: "C0MERGE" });
    expect(plain.messages?.map((m) => m.text)).toEqual(["two", "one"]);
    expect(plain.messages?.[1]).not.toHaveProperty("metadata");
    expect(plain.messages?.[1]).toMatchObject({ user: "U0BOT", bot_id: "B0BOT", type: "message" });
    const withMetadata = await client.conversations.history({
      channel: "C0MERGE",
      include_all_metadata: true,
    });
    expect(withMetadata.messages?.[1]?.metadata).toEqual(metadata);
  });

  it("pages with cursors and honours oldest/latest/inclusive", async () => {
    const ts: string[] = [];
    for (const text of ["a", "b", "c", "d", "e"]) {
      ts.push((await client.chat.postMessage({ channel: "C0MERGE", text })).ts!);
    }
    const first = await client.conversations.history({ channel: "C0MERGE", limit: 2 });
    expect(first.messages?.map((m) => m.text)).toEqual(["e", "d"]);
    expect(first.has_more).toBe(true);
    const second = await client.conversations.history({
      channel: "C0MERGE",
      limit: 2,
      cursor: first.response_metadata?.next_cursor ?? "",
    });
    expect(second.messages?.map((m) => m.text)).toEqual(["c", "b"]);
    const third = await client.conversations.history({
      channel: "C0MERGE",
      limit: 2,
      cursor: second.response_metadata?.next_cursor ?? "",
    });
    expect(third.messages?.map((m) => m.text)).toEqual(["a"]);
    expect(third).toMatchObject({ has_more: false, response_metadata: { next_cursor: "" } });

    const window = await client.conversations.history({ channel: "C0MERGE", oldest: ts[1]!, latest: ts[3]! });
    expect(window.messages?.map((m) => m.text)).toEqual(["c"]);
    const inclusive = await client.conversations.history({
      channel: "C0MERGE",
      oldest: ts[1]!,
      latest: ts[3]!,
      inclusive: true,
    });
    expect(inclusive.messages?.map((m) => m.text)).toEqual(["d", "c", "b"]);
    expect(
      await slackError(client.conversations.history({ channel: "C0MERGE", cursor: "bogus" })),
    ).toMatchObject({
      error: "invalid_cursor",
    });
  });

  it("returns a thread, parent first, from the parent's or a reply's ts, with metadata when asked", async () => {
    const parent = await client.chat.postMessage({
      channel: "C0MERGE",
      text: "parent",
      metadata: { event_type: "yardmaster_pr", event_payload: { pr: 7 } },
    });
    const replyTs: string[] = [];
    for (const text of ["r1", "r2", "r3"]) {
      replyTs.push((await client.chat.postMessage({ channel: "C0MERGE", text, thread_ts: parent.ts! })).ts!);
    }
    const all = await client.conversations.replies({ channel: "C0MERGE", ts: replyTs[1]! });
    expect(all.messages?.map((m) => m.text)).toEqual(["parent", "r1", "r2", "r3"]);
    expect(all.messages?.[0]).not.toHaveProperty("metadata");
    const page = await client.conversations.replies({
      channel: "C0MERGE",
      ts: parent.ts!,
      limit: 2,
      include_all_metadata: true,
    });
    expect(page.messages?.map((m) => m.text)).toEqual(["parent", "r1", "r2"]);
    expect(page.messages?.[0]?.metadata).toMatchObject({ event_payload: { pr: 7 } });
    const rest = await client.conversations.replies({
      channel: "C0MERGE",
      ts: parent.ts!,
      limit: 2,
      cursor: page.response_metadata?.next_cursor ?? "",
    });
    expect(rest.messages?.map((m) => m.text)).toEqual(["parent", "r3"]);
    expect(rest.has_more).toBe(false);
    expect(
      await slackError(client.conversations.replies({ channel: "C0MERGE", ts: "1700000000.000001" })),
    ).toMatchObject({ error: "thread_not_found" });
  });

  it("refuses history of channels the bot is not in", async () => {
    expect(await slackError(client.conversations.history({ channel: "C0OUT" }))).toMatchObject({
      error: "not_in_channel",
    });
    expect(await slackError(client.conversations.history({ channel: "C0NOPE" }))).toMatchObject({
      error: "channel_not_found",
    });
  });
});

describe("info methods", () => {
  it("answers team.info with the workspace's name, and team_not_found for another team", async () => {
    expect((await client.team.info({})).team).toMatchObject({ id: "T0001", name: "Yardmaster Sandbox" });
    expect((await client.team.info({ team: "T0001" })).team).toMatchObject({ name: "Yardmaster Sandbox" });
    expect(await slackError(client.team.info({ team: "T0OTHER" }))).toMatchObject({
      error: "team_not_found",
    });
  });

  it("answers conversations.info, users.info and chat.getPermalink", async () => {
    expect((await client.conversations.info({ channel: "C0OUT" })).channel).toMatchObject({
      id: "C0OUT",
      name: "elsewhere",
      is_member: false,
    });
    expect((await client.users.info({ user: "U0ALICE" })).user).toMatchObject({
      id: "U0ALICE",
      name: "alice",
      real_name: "Alice Liddell",
      tz: "Europe/London",
    });
    expect(await slackError(client.users.info({ user: "U0NOBODY" }))).toMatchObject({
      error: "user_not_found",
    });
    const posted = await client.chat.postMessage({ channel: "C0MERGE", text: "x" });
    const reply = await client.chat.postMessage({ channel: "C0MERGE", text: "y", thread_ts: posted.ts! });
    const link = await client.chat.getPermalink({ channel: "C0MERGE", message_ts: posted.ts! });
    expect(link.permalink).toBe(
      `https://yardmaster-sandbox.slack.com/archives/C0MERGE/p${posted.ts!.replace(".", "")}`,
    );
    const replyLink = await client.chat.getPermalink({ channel: "C0MERGE", message_ts: reply.ts! });
    expect(replyLink.permalink).toContain(`?thread_ts=${posted.ts}&cid=C0MERGE`);
    expect(
      await slackError(client.chat.getPermalink({ channel: "C0MERGE", message_ts: "1700000000.000001" })),
    ).toMatchObject({ error: "message_not_found" });
  });
});

describe("direct messages and the Home tab", () => {
  it("opens one conversation per person, the same each time, and refuses an unknown user", async () => {
    slack.state.addUser({ id: "U0ALICE", name: "alice" });
    const first = await client.conversations.open({ users: "U0ALICE" });
    const again = await client.conversations.open({ users: "U0ALICE" });
    expect(first.channel?.id).toMatch(/^D/);
    expect(again.channel?.id).toBe(first.channel?.id);
    const dm = first.channel?.id ?? "";
    await client.chat.postMessage({ channel: dm, text: "hello" });
    expect(slack.state.messages(dm).map((m) => m.text)).toEqual(["hello"]);
    const history = await client.conversations.history({ channel: dm });
    expect(history.messages?.map((m) => m.text)).toEqual(["hello"]);
    expect(await slackError(client.conversations.open({ users: "U0NOBODY" }))).toMatchObject({
      error: "user_not_found",
    });
  });

  it("keeps the Home tab last published for a person, within a view's 100 blocks", async () => {
    slack.state.addUser({ id: "U0ALICE", name: "alice" });
    const blocks = [{ type: "section", text: { type: "mrkdwn", text: "hi" } }];
    const published = await client.views.publish({ user_id: "U0ALICE", view: { type: "home", blocks } });
    expect(published.view?.id).toMatch(/^V/);
    expect(slack.state.homeView("U0ALICE")).toMatchObject({ publishes: 1, view: { type: "home", blocks } });
    const tooMany = Array.from({ length: 101 }, () => blocks[0]);
    expect(
      await slackError(
        client.views.publish({ user_id: "U0ALICE", view: { type: "home", blocks: tooMany } as never }),
      ),
    ).toMatchObject({ error: "invalid_arguments" });
    expect(slack.state.homeView("U0ALICE")?.publishes).toBe(1);
  });
});
