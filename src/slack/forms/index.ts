import type { App, RespondArguments, RespondFn, SlashCommand } from "@slack/bolt";
import type { Command } from "../../commands/catalog.js";
import type { Actor, SlackPlace } from "../../commands/command.js";
import { type CommandOutcome, type RunDeps, runCommand } from "../../commands/run.js";
import { parseTarget } from "../../commands/targets.js";
import type { Logger } from "../../logger.js";
import type { Repo } from "../../repo.js";
import type { SubscriptionStore } from "../../store/index.js";
import { type FormPlace, input, plain, readPlace, type SubmittedValues, textOf, type View } from "./kit.js";
import { PAUSE_FORM, pauseForm, readPauseForm } from "./pause-form.js";
import { readSubscribeForm, SUBSCRIBE_FORM, subscribeForm } from "./subscribe-form.js";

/**
 * Forms instead of grammar (docs/commands.md, "Forms"): `/mq pause` without a reason and `/mq subscribe`
 * without a repository open a modal; its submission runs exactly that command, with its checks, and
 * its result is posted where the typed command's would be.
 */

export interface FormDeps {
  store: Pick<SubscriptionStore, "listSubscribedRepositories">;
  run: RunDeps;
  githubWebUrl: string;
  logger: Logger;
  now: () => Date;
  track?: <T>(work: Promise<T>) => Promise<T>;
  actorFor(teamId: string, userId: string, channelId: string, responseUrl: string): Promise<Actor>;
  placeOf(channelId: string): Promise<SlackPlace>;
  answer(
    respond: RespondFn,
    command: Command | undefined,
    outcome: CommandOutcome,
    actor: Actor,
  ): Promise<void>;
}

export interface Forms {
  /** The pause form, preset to the channel's repository; from a global shortcut, with a channel to post in. */
  openPause(triggerId: string, place: FormPlace, respond: RespondFn | null): Promise<void>;
  /** Opens the form a slash command stands for; false (nothing done) when it stands for none. */
  openFor(slash: SlashCommand, respond: RespondFn): Promise<boolean>;
  /** Opens a view with a trigger_id; says so on `respond` when Slack refuses (an expired trigger). */
  open(triggerId: string, view: View, respond: RespondFn | null): Promise<void>;
}

const COULD_NOT_OPEN =
  "The form could not open (Slack allows 3 seconds to open it), so nothing was run. Type the command in full instead, e.g. `/mq pause owner/repo release freeze` or `/mq subscribe owner/repo`.";

/** A respond function on a response_url (the one of the command that opened the form). */
export function respondOn(url: string): RespondFn {
  return async (message: string | RespondArguments) => {
    const body = typeof message === "string" ? { text: message } : message;
    const answer = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    if (!answer.ok) throw new Error(`response_url answered ${answer.status}`);
    return answer as unknown as Awaited<ReturnType<RespondFn>>;
  };
}

export function registerForms(app: App, deps: FormDeps): Forms {
  const { logger } = deps;

  const open = async (triggerId: string, view: View, respond: RespondFn | null) => {
    try {
      await app.client.views.open({ trigger_id: triggerId, view });
    } catch (error) {
      logger.warn({ err: error }, "could not open a form");
      await respond?.({ response_type: "ephemeral", text: COULD_NOT_OPEN }).catch(() => undefined);
    }
  };

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
    await openPause(slash.trigger_id, place, respond, preset);
    return true;
  };

  const openPause = async (triggerId: string, place: FormPlace, respond: RespondFn | null, preset?: Repo) => {
    // What is read before opening is local and quick: the trigger is good for 3 seconds.
    const [repositories, channel] = await Promise.all([
      deps.store.listSubscribedRepositories(),
      preset || place.channelId === "" ? Promise.resolve(undefined) : deps.placeOf(place.channelId),
    ]);
    const extra = place.channelId === "" ? [channelInput()] : [];
    await open(triggerId, pauseForm(place, repositories, preset ?? channel?.defaultRepo, extra), respond);
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

/**
 * Answers with the Web API where no response_url exists: in the channel (to the person alone for an
 * ephemeral answer), or without a channel in a direct message from the app.
 */
export function respondByWebApi(app: App, channelId: string, userId: string): RespondFn {
  return async (message: string | RespondArguments) => {
    const {
      response_type: type,
      replace_original: _r,
      delete_original: _d,
      ...body
    } = typeof message === "string" ? { text: message } : (message as RespondArguments & { text?: string });
    const text = typeof body.text === "string" ? body.text : "";
    if (channelId === "") {
      const opened = await app.client.conversations.open({ users: userId });
      const dm = opened.channel?.id;
      if (!dm) throw new Error("could not open a direct message");
      return (await app.client.chat.postMessage({ ...body, text, channel: dm })) as never;
    }
    if (type === "in_channel")
      return (await app.client.chat.postMessage({ ...body, text, channel: channelId })) as never;
    return (await app.client.chat.postEphemeral({
      ...body,
      text,
      channel: channelId,
      user: userId,
    })) as never;
  };
}

/**
 * A form's submission: its fields' errors at once (`response_action: errors`), else the command run
 * after the acknowledgement and answered where the typed command's would be.
 */
function registerSubmission<C extends Command>(
  app: App,
  deps: FormDeps,
  callbackId: string,
  read: (values: SubmittedValues) => { ok: true; command: C } | { ok: false; errors: Record<string, string> },
): void {
  const { logger } = deps;
  const tracked = (work: Promise<void>) => (deps.track ? deps.track(work) : work);
  app.view(callbackId, async ({ ack, body, view }) => {
    const place = readPlace(view?.private_metadata);
    const userId = typeof body.user?.id === "string" ? body.user.id : "";
    const teamId = body.team?.id ?? body.user?.team_id ?? "";
    const values = (view?.state?.values ?? {}) as SubmittedValues;
    if (!place || userId === "" || teamId === "" || typeof values !== "object") {
      logger.warn(
        { kind: "view_submission" },
        "Slack request refused: a form without the fields it was opened with",
      );
      await ack();
      return;
    }
    const form = read(values);
    if (!form.ok) {
      await ack({ response_action: "errors", errors: form.errors });
      return;
    }
    await ack();
    const work = async () => {
      // From a global shortcut: the channel chosen in the form, else a direct message.
      const channelId = place.channelId || textOf(values, "channel");
      const actor = await deps.actorFor(teamId, userId, channelId, place.responseUrl);
      const outcome = await runCommand(form.command, actor, deps.run);
      const respond = place.responseUrl
        ? respondOn(place.responseUrl)
        : respondByWebApi(app, channelId, userId);
      await deps.answer(respond, form.command, outcome, actor);
    };
    await tracked(work().catch((error: unknown) => logger.error({ err: error }, "form failed unexpectedly")));
  });
}
