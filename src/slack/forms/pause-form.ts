import { CommandError } from "../../commands/errors.js";
import { pauseReason } from "../../commands/grammar/arguments.js";
import type { ResumeSpec } from "../../commands/grammar/resume-time.js";
import type { PauseCommand } from "../../commands/pause.js";
import { Repo } from "../../repo.js";
import {
  type Block,
  type FormPlace,
  input,
  instantOf,
  option,
  plain,
  type SubmittedValues,
  textOf,
  type View,
} from "./kit.js";
import { type FormRead, fieldErrorsOr, formView } from "./shell.js";

/** `/mq pause` without a reason (docs/commands.md, "Forms"): the repository, the reason, how long. */
export const PAUSE_FORM = "mq.form.pause";

const DURATIONS: [label: string, value: string, ms: number | null][] = [
  ["Until resumed", "none", null],
  ["For 30 min", "30m", 30 * 60_000],
  ["For 1 h", "1h", 60 * 60_000],
  ["For 2 h", "2h", 2 * 60 * 60_000],
  ["For 4 h", "4h", 4 * 60 * 60_000],
  ["Until a date and time (below)", "until", null],
];

/** A select's options: at most 100 (Slack's limit); beyond, the repository is typed. */
const MAX_OPTIONS = 100;

function repositoryInput(repositories: readonly Repo[], preset: Repo | undefined): Block {
  if (repositories.length === 0 || repositories.length > MAX_OPTIONS) {
    return input("repo", "Repository", {
      type: "plain_text_input",
      action_id: "value",
      max_length: 200,
      placeholder: plain("owner/repo"),
      ...(preset ? { initial_value: preset.fullName } : {}),
    });
  }
  const options = repositories.map((r) => option(r.fullName, r.fullName));
  const initial = preset ? options.find((o) => o.value?.toLowerCase() === preset.key) : undefined;
  return input("repo", "Repository", {
    type: "static_select",
    action_id: "value",
    options,
    ...(initial ? { initial_option: initial } : {}),
  });
}

export function pauseForm(
  place: FormPlace,
  repositories: readonly Repo[],
  preset: Repo | undefined,
  extra: Block[] = [],
): View {
  const durations = DURATIONS.map(([label, value]) => option(label, value));
  return formView({ callbackId: PAUSE_FORM, title: "Pause a merge queue", submit: "Pause" }, place, [
    repositoryInput(repositories, preset),
    input("reason", "Reason", {
      type: "plain_text_input",
      action_id: "value",
      max_length: 255,
      placeholder: plain("release freeze"),
    }),
    input("duration", "How long", {
      type: "static_select",
      action_id: "value",
      options: durations,
      initial_option: durations[0],
    }),
    input(
      "until",
      "Until (when “Until a date and time”)",
      { type: "datetimepicker", action_id: "value" },
      {
        optional: true,
      },
    ),
    ...extra,
  ]);
}

/** The repository of a form: a select's value, or typed as `owner/repo`. */
export function readRepository(values: SubmittedValues): Repo | null {
  return Repo.parse(textOf(values, "repo").trim());
}

/**
 * The pause command a submission asks for, or the errors to show on its fields: what can be checked
 * at once (a repository, a blank or too long reason, a missing or past time). The command's own checks
 * run when it does.
 */
export function readPauseForm(values: SubmittedValues, now: Date): FormRead<PauseCommand> {
  const errors: Record<string, string> = {};
  const repo = readRepository(values);
  if (!repo) errors.repo = "Choose a repository, written owner/repo.";
  let reason = "";
  try {
    reason = pauseReason("pause", textOf(values, "reason"));
  } catch (error) {
    if (!(error instanceof CommandError)) throw error;
    errors.reason = textOf(values, "reason").trim()
      ? "The reason is 255 characters at most."
      : "Write why the queue is paused.";
  }
  const duration = textOf(values, "duration") || "none";
  let resume: ResumeSpec | undefined;
  const fixed = DURATIONS.find(([, value]) => value === duration);
  if (!fixed) errors.duration = "Choose how long.";
  else if (fixed[2] !== null) resume = { kind: "for", ms: fixed[2] };
  else if (duration === "until") {
    const at = instantOf(values, "until");
    if (!at) errors.until = "Choose the date and time the queue resumes.";
    else if (at.getTime() <= now.getTime()) errors.until = "This time has passed: choose a later one.";
    else resume = untilSpec(at);
  }
  return fieldErrorsOr(errors, repo, (repo) => ({
    name: "pause",
    repo,
    reason,
    ...(resume ? { resume } : {}),
  }));
}

/** The instant as `until <date> <hh:mm> UTC` (a datetimepicker's minute). */
function untilSpec(at: Date): ResumeSpec {
  return {
    kind: "until",
    date: { year: at.getUTCFullYear(), month: at.getUTCMonth() + 1, day: at.getUTCDate() },
    hour: at.getUTCHours(),
    minute: at.getUTCMinutes(),
    zone: "UTC",
  };
}
