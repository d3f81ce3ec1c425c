import { describe, expect, it } from "vitest";
import { placeMetadata, readPlace } from "../../src/slack/forms/kit.js";
import { PAUSE_FORM, pauseForm, readPauseForm } from "../../src/slack/forms/pause-form.js";
import { readSubscribeForm, SUBSCRIBE_FORM, subscribeForm } from "../../src/slack/forms/subscribe-form.js";
import { slackResponseUrlCheck } from "../../src/slack/response-url.js";

const PLACE = { channelId: "C0ENG", responseUrl: "https://hooks.slack.com/commands/T1/1/abc" };
const slacks = slackResponseUrlCheck("https://slack.com/api/");
const NOW = new Date("2026-03-02T10:00:00Z");
const text = (value: string) => ({ value: { type: "plain_text_input", value } });
const choice = (value: string) => ({ value: { type: "static_select", selected_option: { value } } });
const checked = (...values: string[]) => ({
  value: { type: "checkboxes", selected_options: values.map((value) => ({ value })) },
});

describe("the forms' shared shell", () => {
  it("opens each form as a modal with Cancel, its own title and button, and the place its result goes", () => {
    const pause = pauseForm(PLACE, [], undefined);
    const subscribe = subscribeForm(PLACE);
    expect(
      [pause, subscribe].map((v) => [v.callback_id, v.title.text, v.submit?.text, v.close?.text]),
    ).toEqual([
      [PAUSE_FORM, "Pause a merge queue", "Pause", "Cancel"],
      [SUBSCRIBE_FORM, "Subscribe this channel", "Subscribe", "Cancel"],
    ]);
    expect(readPlace(pause.private_metadata, slacks)).toEqual(PLACE);
    expect(readPlace(subscribe.private_metadata, slacks)).toEqual(PLACE);
  });

  it("takes a response_url only on Slack's own host, or the host of SLACK_API_URL", () => {
    const at = (responseUrl: string, check = slacks) =>
      readPlace(placeMetadata({ channelId: "C1", responseUrl }), check);
    expect(at("")).toEqual({ channelId: "C1", responseUrl: "" });
    for (const refused of [
      "https://evil.example/commands/1",
      "https://hooks.slack.com.evil.example/commands/1",
      "https://evilslack.com/commands/1",
      "http://hooks.slack.com/commands/1",
      "https://hooks.slack.com:8443/commands/1",
      "https://user:pw@hooks.slack.com/commands/1",
      "javascript:alert(1)",
      "not a url",
    ]) {
      expect(at(refused), refused).toBeNull();
    }
    expect(at("https://slack.com/commands/1")).not.toBeNull();
    const standIn = slackResponseUrlCheck("http://127.0.0.1:4100/api/");
    expect(at("http://127.0.0.1:4100/response/abc", standIn)).not.toBeNull();
    expect(at("http://127.0.0.1:4101/response/abc", standIn)).toBeNull();
    expect(at("https://hooks.slack.com/commands/1", standIn)).toBeNull();
  });

  it("shows the errors on their fields and no command, else the command", () => {
    expect(readPauseForm({ repo: text("not a repo"), reason: text(" ") }, NOW)).toEqual({
      ok: false,
      errors: { repo: "Choose a repository, written owner/repo.", reason: "Write why the queue is paused." },
    });
    expect(readPauseForm({ repo: choice("acme/widgets"), reason: text("freeze") }, NOW)).toMatchObject({
      ok: true,
      command: { name: "pause", reason: "freeze", repo: { fullName: "acme/widgets" } },
    });
    expect(readSubscribeForm({ repo: text("acme/widgets"), events: checked() })).toEqual({
      ok: false,
      errors: { events: "Choose at least one kind of event." },
    });
    expect(readSubscribeForm({ repo: text("acme/widgets"), events: checked("queue") })).toMatchObject({
      ok: true,
      command: { name: "subscribe", groups: ["queue"], repo: { fullName: "acme/widgets" } },
    });
  });
});
