import { afterEach, describe, expect, it, vi } from "vitest";
import { SlackState } from "../../../../tools/stand-ins/slack/state.js";
import { chatUnfurl, UnfurlError } from "../../../../tools/stand-ins/slack/unfurls.js";
import { TRIGGER_TTL_MS, ViewError } from "../../../../tools/stand-ins/slack/views.js";

const modal = {
  type: "modal",
  title: { type: "plain_text", text: "Pause a merge queue" },
  submit: { type: "plain_text", text: "Pause" },
  blocks: [
    {
      type: "input",
      block_id: "reason",
      label: { type: "plain_text", text: "Reason" },
      element: { type: "plain_text_input", action_id: "value" },
    },
  ],
};

const state = () =>
  new SlackState({ teamId: "T1", botUserId: "U0BOT", botId: "B0BOT", appId: "A1", botName: "ym" });

afterEach(() => vi.useRealTimers());

describe("the Slack stand-in's modals", () => {
  it("opens a view with a trigger once, within 3 seconds", () => {
    vi.useFakeTimers({ now: new Date("2026-11-20T10:00:00Z") });
    const views = state().views;
    const trigger = views.issueTrigger("U1");
    expect(views.open(trigger, modal).userId).toBe("U1");
    expect(() => views.open(trigger, modal)).toThrow(new ViewError("exchanged_trigger_id"));
    const late = views.issueTrigger("U1");
    vi.advanceTimersByTime(TRIGGER_TTL_MS + 1);
    expect(() => views.open(late, modal)).toThrow(new ViewError("expired_trigger_id"));
    expect(() => views.open("made-up", modal)).toThrow(new ViewError("invalid_trigger_id"));
  });

  it("refuses a modal Slack would refuse: a long title, inputs without submit, too many options", () => {
    const views = state().views;
    const bad = [
      { ...modal, title: { type: "plain_text", text: "A title that is far too long" } },
      { ...modal, submit: undefined },
      {
        ...modal,
        blocks: [
          {
            type: "input",
            block_id: "repo",
            label: { type: "plain_text", text: "Repository" },
            element: {
              type: "static_select",
              action_id: "value",
              options: Array.from({ length: 101 }, (_, i) => ({
                text: { type: "plain_text", text: `r${i}` },
                value: `r${i}`,
              })),
            },
          },
        ],
      },
    ];
    for (const view of bad) {
      expect(() => views.open(views.issueTrigger("U1"), view)).toThrow(ViewError);
    }
  });
});

describe("the Slack stand-in's chat.unfurl", () => {
  it("attaches one unfurl per link of the message, replaced in place when set again", () => {
    const s = state();
    s.addChannel({ id: "C1", name: "eng" });
    const message = s.addMessage({ channel: "C1", user: "U1", text: "see <https://github.com/a/b/pull/1>" });
    const blocks = [{ type: "section", text: { type: "mrkdwn", text: "Not queued." } }];
    const unfurls = { "https://github.com/a/b/pull/1": { blocks } };
    chatUnfurl({ channel: "C1", ts: message.ts, unfurls: JSON.stringify(unfurls) }, s, s.unfurls);
    chatUnfurl({ channel: "C1", ts: message.ts, unfurls }, s, s.unfurls);
    expect(s.unfurls.of(`C1:${message.ts}`)).toEqual([
      { url: "https://github.com/a/b/pull/1", blocks, updates: 2 },
    ]);
    expect(() =>
      chatUnfurl(
        { channel: "C1", ts: message.ts, unfurls: { "https://github.com/a/b/pull/2": { blocks } } },
        s,
        s.unfurls,
      ),
    ).toThrow(new UnfurlError("cannot_unfurl_url"));
    expect(() =>
      chatUnfurl(
        {
          channel: "C1",
          ts: message.ts,
          unfurls: { "https://github.com/a/b/pull/1": { blocks: [{ type: "nope" }] } },
        },
        s,
        s.unfurls,
      ),
    ).toThrow(UnfurlError);
  });
});
