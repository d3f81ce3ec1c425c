import type { WebClient } from "@slack/web-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SlackStandIn, validateBlocks } from "../../../../tools/stand-ins/slack/index.js";
import { clientFor, slackError, startTestSlack } from "./helpers.js";

let slack: SlackStandIn;
let client: WebClient;

beforeAll(async () => {
  slack = await startTestSlack();
  client = clientFor(slack);
});

afterAll(async () => {
  await slack.close();
});

const section = (text: string) => ({ type: "section", text: { type: "mrkdwn", text } });
const button = (text: string, extra: Record<string, unknown> = {}) => ({
  type: "button",
  text: { type: "plain_text", text },
  action_id: "unpause",
  value: "acme/widgets",
  ...extra,
});

async function refused(blocks: unknown[]): Promise<string[]> {
  const failure = await slackError(
    client.chat.postMessage({ channel: "C0MERGE", text: "fallback", blocks } as never),
  );
  expect(failure.error).toBe("invalid_blocks");
  return (failure.data as { errors: string[] }).errors;
}

describe("Block Kit limits", () => {
  it("accepts blocks exactly at every limit", async () => {
    const blocks = [
      { type: "header", text: { type: "plain_text", text: "h".repeat(150) } },
      section("s".repeat(3000)),
      {
        type: "section",
        fields: Array.from({ length: 10 }, () => ({ type: "mrkdwn", text: "f".repeat(2000) })),
      },
      {
        type: "actions",
        elements: Array.from({ length: 25 }, (_, i) =>
          button("b".repeat(75), { action_id: `${i}`.padEnd(255, "a"), value: "v".repeat(2000) }),
        ),
      },
      { type: "context", elements: Array.from({ length: 10 }, () => ({ type: "mrkdwn", text: "c" })) },
      ...Array.from({ length: 45 }, () => ({ type: "divider" })),
    ];
    expect(blocks).toHaveLength(50);
    const result = await client.chat.postMessage({ channel: "C0MERGE", text: "x".repeat(40_000), blocks });
    expect(result.ok).toBe(true);
  });

  it("refuses more than 50 blocks", async () => {
    const errors = await refused(Array.from({ length: 51 }, () => ({ type: "divider" })));
    expect(errors).toEqual(["must contain at most 50 items [json-pointer:/blocks]"]);
  });

  it("refuses a section text over 3000 characters and a field over 2000 or an 11th field", async () => {
    expect(await refused([section("s".repeat(3001))])).toEqual([
      "must be less than 3001 characters [json-pointer:/blocks/0/text/text]",
    ]);
    const fields = Array.from({ length: 11 }, () => ({ type: "plain_text", text: "f" }));
    fields[3] = { type: "plain_text", text: "f".repeat(2001) };
    expect(await refused([{ type: "section", fields }])).toEqual([
      "must contain at most 10 items [json-pointer:/blocks/0/fields]",
      "must be less than 2001 characters [json-pointer:/blocks/0/fields/3/text]",
    ]);
  });

  it("refuses a header over 150 characters or in mrkdwn", async () => {
    expect(await refused([{ type: "header", text: { type: "plain_text", text: "h".repeat(151) } }])).toEqual([
      "must be less than 151 characters [json-pointer:/blocks/0/text/text]",
    ]);
    expect(await refused([{ type: "header", text: { type: "mrkdwn", text: "*h*" } }])).toEqual([
      "must be plain_text [json-pointer:/blocks/0/text/type]",
    ]);
  });

  it("refuses buttons with long text, action_id or value, and actions blocks over 25 elements", async () => {
    expect(
      await refused([
        {
          type: "actions",
          elements: [button("b".repeat(76), { action_id: "a".repeat(256), value: "v".repeat(2001) })],
        },
      ]),
    ).toEqual([
      "must be less than 256 characters [json-pointer:/blocks/0/elements/0/action_id]",
      "must be less than 76 characters [json-pointer:/blocks/0/elements/0/text/text]",
      "must be less than 2001 characters [json-pointer:/blocks/0/elements/0/value]",
    ]);
    const elements = Array.from({ length: 26 }, (_, i) => button("b", { action_id: `a${i}` }));
    expect(await refused([{ type: "actions", elements }])).toEqual([
      "must contain at most 25 items [json-pointer:/blocks/0/elements]",
    ]);
  });

  it("refuses a section accessory button over the limits too", async () => {
    expect(await refused([{ ...section("paused"), accessory: button("b".repeat(76)) }])).toEqual([
      "must be less than 76 characters [json-pointer:/blocks/0/accessory/text/text]",
    ]);
  });

  it("refuses context blocks over 10 elements", async () => {
    const elements = Array.from({ length: 11 }, () => ({ type: "plain_text", text: "c" }));
    expect(await refused([{ type: "context", elements }])).toEqual([
      "must contain at most 10 items [json-pointer:/blocks/0/elements]",
    ]);
  });

  it("refuses unknown block types, duplicate block_ids and empty text", async () => {
    expect(
      await refused([
        { type: "sektion" },
        { ...section("a"), block_id: "x" },
        { ...section(""), block_id: "x" },
      ]),
    ).toEqual([
      "unsupported type: sektion [json-pointer:/blocks/0/type]",
      "duplicate block_id [json-pointer:/blocks/2/block_id]",
      "must be more than 0 characters [json-pointer:/blocks/2/text/text]",
    ]);
  });

  it("refuses a text fallback over 40,000 characters with msg_too_long", async () => {
    expect(
      await slackError(client.chat.postMessage({ channel: "C0MERGE", text: "x".repeat(40_001) })),
    ).toMatchObject({ error: "msg_too_long" });
  });

  it("accepts blocks without a text fallback but records it", async () => {
    const result = await client.chat.postMessage({ channel: "C0MERGE", blocks: [section("no fallback")] });
    expect(result.ok).toBe(true);
    expect(slack.state.message("C0MERGE", result.ts!)?.missingFallback).toBe(true);
    expect(slack.calls.at(-1)?.warnings).toEqual(["missing_text_fallback"]);
    await client.chat.update({
      channel: "C0MERGE",
      ts: result.ts!,
      text: "now with text",
      blocks: [section("x")],
    });
    expect(slack.state.message("C0MERGE", result.ts!)?.missingFallback).toBe(false);
  });

  it("applies the same limits to chat.update and chat.postEphemeral", async () => {
    const posted = await client.chat.postMessage({ channel: "C0MERGE", text: "ok" });
    expect(
      await slackError(
        client.chat.update({
          channel: "C0MERGE",
          ts: posted.ts!,
          text: "x",
          blocks: [section("s".repeat(3001))],
        }),
      ),
    ).toMatchObject({ error: "invalid_blocks" });
    expect(
      await slackError(
        client.chat.postEphemeral({
          channel: "C0MERGE",
          user: "U0ALICE",
          text: "x",
          blocks: [section("s".repeat(3001))],
        }),
      ),
    ).toMatchObject({ error: "invalid_blocks" });
  });

  it("is usable directly", () => {
    expect(validateBlocks([section("fine")])).toEqual([]);
  });
});
