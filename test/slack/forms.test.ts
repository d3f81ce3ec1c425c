import { describe, expect, it } from "vitest";
import { readPlace } from "../../src/slack/forms/kit.js";
import { PAUSE_FORM, pauseForm, readPauseForm } from "../../src/slack/forms/pause-form.js";
import { readSubscribeForm, SUBSCRIBE_FORM, subscribeForm } from "../../src/slack/forms/subscribe-form.js";

const PLACE = { channelId: "C0ENG", responseUrl: "https://hooks.slack.example/commands/1" };
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
    expect(readPlace(pause.private_metadata)).toEqual(PLACE);
    expect(readPlace(subscribe.private_metadata)).toEqual(PLACE);
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
