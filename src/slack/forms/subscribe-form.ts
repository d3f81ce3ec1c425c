import { branchName } from "../../commands/arguments.js";
import { CommandError } from "../../commands/errors.js";
import { DEFAULT_EVENT_GROUPS, EVENT_GROUPS, type EventGroup } from "../../commands/event-groups.js";
import type { SubscribeCommand } from "../../commands/subscribe.js";
import { Repo } from "../../repo.js";
import {
  choicesOf,
  type FormPlace,
  input,
  option,
  plain,
  type SubmittedValues,
  textOf,
  type View,
} from "./kit.js";
import { type FormRead, fieldErrorsOr, formView } from "./shell.js";

/** `/mq subscribe` without a repository (docs/commands.md, "Forms"). */
export const SUBSCRIBE_FORM = "mq.form.subscribe";

const GROUP_LABELS: Record<EventGroup, string> = {
  queue: "Queue: entered, left, merged",
  checks: "Checks: started, ended",
  bisection: "Bisection",
  pause: "Pause and resume",
};

export function subscribeForm(place: FormPlace): View {
  const groups = EVENT_GROUPS.map((g) => option(GROUP_LABELS[g], g));
  return formView(
    { callbackId: SUBSCRIBE_FORM, title: "Subscribe this channel", submit: "Subscribe" },
    place,
    [
      input("repo", "Repository", {
        type: "plain_text_input",
        action_id: "value",
        max_length: 200,
        placeholder: plain("owner/repo"),
      }),
      input(
        "branch",
        "Branches",
        { type: "plain_text_input", action_id: "value", max_length: 255, placeholder: plain("release/*") },
        { optional: true, hint: "A glob; empty: every branch." },
      ),
      input("events", "Events", {
        type: "checkboxes",
        action_id: "value",
        options: groups,
        initial_options: groups.filter((o) => DEFAULT_EVENT_GROUPS.includes(o.value as EventGroup)),
      }),
      input(
        "digest",
        "Weekly digest",
        {
          type: "checkboxes",
          action_id: "value",
          options: [option("Post the queue's health every Monday", "weekly")],
        },
        { optional: true },
      ),
    ],
  );
}

/** The subscribe command a submission asks for, or the errors to show on its fields. */
export function readSubscribeForm(values: SubmittedValues): FormRead<SubscribeCommand> {
  const errors: Record<string, string> = {};
  const repo = Repo.parse(textOf(values, "repo").trim());
  if (!repo) errors.repo = "Write the repository as owner/repo.";
  const glob = textOf(values, "branch").trim();
  let branchGlob: string | undefined;
  if (glob) {
    try {
      branchGlob = branchName("subscribe", glob);
    } catch (error) {
      if (!(error instanceof CommandError)) throw error;
      errors.branch = "A branch glob is 1 to 255 characters, without spaces.";
    }
  }
  const chosen = choicesOf(values, "events");
  const groups = EVENT_GROUPS.filter((g) => chosen.includes(g));
  if (groups.length === 0 || groups.length !== chosen.length)
    errors.events = "Choose at least one kind of event.";
  const digest = choicesOf(values, "digest").includes("weekly");
  return fieldErrorsOr(errors, repo, (repo) => ({
    name: "subscribe",
    repo,
    groups,
    ...(branchGlob ? { branchGlob } : {}),
    ...(digest ? { digest: "weekly" as const } : {}),
  }));
}
