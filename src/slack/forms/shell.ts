import type { App, RespondFn } from "@slack/bolt";
import type { Command } from "../../commands/catalog.js";
import { runCommand } from "../../commands/run.js";
import type { Logger } from "../../logger.js";
import type { FormDeps } from "./deps.js";
import {
  type Block,
  type FormPlace,
  placeMetadata,
  plain,
  readPlace,
  type SubmittedValues,
  textOf,
  type View,
} from "./kit.js";
import { orToThePerson, respondByWebApi, respondOn } from "./respond.js";

/**
 * The shell every form (modal) shares: the view with its place in private_metadata, opened with a
 * trigger_id, and its submission: the errors on its fields, or the command it stands for, run and answered.
 */

/** A form's own parts: the callback_id its submission comes back with, its title and its submit button. */
export interface FormShell {
  callbackId: string;
  title: string;
  submit: string;
}

/** A form's view: Cancel to close it, and the place its result goes in private_metadata (kit.ts). */
export function formView(shell: FormShell, place: FormPlace, blocks: Block[]): View {
  return {
    type: "modal",
    callback_id: shell.callbackId,
    title: plain(shell.title),
    submit: plain(shell.submit),
    close: plain("Cancel"),
    private_metadata: placeMetadata(place),
    blocks,
  };
}

/** A submission read: the command it asks for, or the errors to show on its fields (by block_id). */
export type FormRead<C> = { ok: true; command: C } | { ok: false; errors: Record<string, string> };

/** The command `build` makes of `value` when no field has an error and the value was read; else the errors. */
export function fieldErrorsOr<T, C>(
  errors: Record<string, string>,
  value: T | null,
  build: (value: T) => C,
): FormRead<C> {
  if (value === null || Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, command: build(value) };
}

const COULD_NOT_OPEN =
  "The form could not open (Slack allows 3 seconds to open it), so nothing was run. Type the command in full instead, e.g. `/mq pause owner/repo release freeze` or `/mq subscribe owner/repo`.";

/**
 * Opens a view with a trigger_id: its id and hash (to update it), or null when Slack refused (an expired
 * trigger), said on `respond`.
 */
export async function openForm(
  app: App,
  logger: Logger,
  triggerId: string,
  view: View,
  respond: RespondFn | null,
): Promise<{ id: string; hash: string } | null> {
  try {
    const opened = await app.client.views.open({ trigger_id: triggerId, view });
    const { id, hash } = opened.view ?? {};
    return typeof id === "string" && typeof hash === "string" ? { id, hash } : null;
  } catch (error) {
    logger.warn({ err: error }, "could not open a form");
    await respond?.({ response_type: "ephemeral", text: COULD_NOT_OPEN }).catch(() => undefined);
    return null;
  }
}

/**
 * A form's submission: its fields' errors at once (`response_action: errors`), else the command run
 * after the acknowledgement and answered where the typed command's would be.
 */
export function registerSubmission<C extends Command>(
  app: App,
  deps: FormDeps,
  callbackId: string,
  read: (values: SubmittedValues) => FormRead<C>,
): void {
  const { logger } = deps;
  const tracked = (work: Promise<void>) => (deps.track ? deps.track(work) : work);
  app.view(callbackId, async ({ ack, body, view }) => {
    const place = readPlace(view?.private_metadata, deps.isSlackResponseUrl);
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
      const where = place.responseUrl
        ? respondOn(place.responseUrl)
        : respondByWebApi(app, channelId, userId);
      const respond = orToThePerson(app, where, { userId, channelId }, logger);
      await deps.answer(respond, form.command, outcome, actor);
    };
    await tracked(work().catch((error: unknown) => logger.error({ err: error }, "form failed unexpectedly")));
  });
}
