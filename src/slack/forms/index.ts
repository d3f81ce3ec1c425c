import type { App, RespondFn, SlashCommand } from "@slack/bolt";
import { parseTarget } from "../../commands/grammar/targets.js";
import type { Repo } from "../../repo.js";
import type { FormDeps } from "./deps.js";
import { type FormPlace, input, plain, type View } from "./kit.js";
import { PAUSE_FORM, pauseForm, readPauseForm } from "./pause-form.js";
import { openForm, registerSubmission } from "./shell.js";
import { readSubscribeForm, SUBSCRIBE_FORM, subscribeForm } from "./subscribe-form.js";
import { visibleRepositories } from "./visible-repositories.js";

/**
 * Forms instead of grammar (docs/commands.md, "Forms"): `/mq pause` without a reason and `/mq subscribe`
 * without a repository open a modal; its submission runs exactly that command, with its checks, and
 * its result is posted where the typed command's would be.
 */

export type { FormDeps } from "./deps.js";
export { respondOn } from "./respond.js";

export interface Forms {
  /**
   * The pause form, preset to the channel's repository, listing the repositories the person may see;
   * from a global shortcut, with a channel to post in.
   */
  openPause(
    triggerId: string,
    place: FormPlace,
    respond: RespondFn | null,
    person: { teamId: string; userId: string },
  ): Promise<void>;
  /** Opens the form a slash command stands for; false (nothing done) when it stands for none. */
  openFor(slash: SlashCommand, respond: RespondFn): Promise<boolean>;
  /** Opens a view with a trigger_id; says so on `respond` when Slack refuses (an expired trigger). */
  open(
    triggerId: string,
    view: View,
    respond: RespondFn | null,
  ): Promise<{ id: string; hash: string } | null>;
}

export function registerForms(app: App, deps: FormDeps): Forms {
  const open = (triggerId: string, view: View, respond: RespondFn | null) =>
    openForm(app, deps.logger, triggerId, view, respond);

  const openFor = async (slash: SlashCommand, respond: RespondFn): Promise<boolean> => {
    const words = slash.text.trim().split(/\s+/).filter(Boolean);
    const word = words[0]?.toLowerCase();
    const place: FormPlace = { channelId: slash.channel_id, responseUrl: slash.response_url };
    if (word === "subscribe" && words.length === 1) {
      await open(slash.trigger_id, subscribeForm(place), respond);
      return true;
    }
    if (word !== "pause" || words.length > 2) return false;
    let preset: Repo | undefined;
    if (words[1] !== undefined) {
      let target: ReturnType<typeof parseTarget>;
      try {
        target = parseTarget("pause", words[1], { githubWebUrl: deps.githubWebUrl });
      } catch {
        return false; // the command refuses it, as typed
      }
      if (!target?.repo || target.pull !== undefined) return false; // a one-word reason
      preset = target.repo;
    }
    await openPause(
      slash.trigger_id,
      place,
      respond,
      { teamId: slash.team_id, userId: slash.user_id },
      preset,
    );
    return true;
  };

  const openPause = async (
    triggerId: string,
    place: FormPlace,
    respond: RespondFn | null,
    person: { teamId: string; userId: string },
    preset?: Repo,
  ) => {
    // The trigger is good for 3 seconds: the form opens with what the store says, then the
    // repositories the person's GitHub login reads are added in place (views.update).
    const [visible, channel] = await Promise.all([
      visibleRepositories(deps, { ...person, channelId: place.channelId }),
      preset || place.channelId === "" ? Promise.resolve(undefined) : deps.placeOf(place.channelId),
    ]);
    const extra = place.channelId === "" ? [channelInput()] : [];
    const formOf = (repositories: readonly Repo[]) =>
      pauseForm(place, repositories, preset ?? channel?.defaultRepo, extra);
    const opened = await open(triggerId, formOf(visible.inChannel), respond);
    if (!opened || !visible.readable) return;
    const repositories = await visible.readable().catch((error: unknown) => {
      deps.logger.warn({ err: error }, "could not read which repositories the person may see");
      return null;
    });
    if (!repositories || repositories.length === visible.inChannel.length) return;
    await app.client.views
      .update({ view_id: opened.id, hash: opened.hash, view: formOf(repositories) })
      .catch((error: unknown) =>
        // Submitted or closed meanwhile (or changed: hash_conflict): the form stays as it was.
        deps.logger.info({ err: error }, "the pause form was not updated with the person's repositories"),
      );
  };

  registerSubmission(app, deps, PAUSE_FORM, (values) => readPauseForm(values, deps.now()));
  registerSubmission(app, deps, SUBSCRIBE_FORM, readSubscribeForm);
  return { openFor, open, openPause };
}

/** Where to post the result of a form opened from a global shortcut (no channel, no response_url). */
function channelInput() {
  return input(
    "channel",
    "Post the result in",
    {
      type: "conversations_select",
      action_id: "value",
      placeholder: plain("a channel (else a direct message)"),
    },
    { optional: true },
  );
}
