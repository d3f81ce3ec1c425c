import type { App, BlockAction, ButtonAction, RespondFn } from "@slack/bolt";
import { refuse, runCommand } from "../../commands/run.js";
import { ACTION_IDS, readAction } from "../actions.js";
import type { HomeTab } from "../home-tab.js";
import { type RenderContext, renderErrorMessage, renderResultMessage } from "../render-blocks.js";
import { missingFields, type SurfaceKit } from "./kit.js";

type Click = BlockAction<ButtonAction>;

/** The buttons of messages and of the Home tab (forms/, shortcuts and unfurls/ register their own). */
export function registerActions(app: App, kit: SurfaceKit, home: HomeTab | null): void {
  const { logger } = kit;
  app.action<Click>(
    new RegExp(`^(${Object.values(ACTION_IDS).join("|").replace(/\./g, "\\.")})$`),
    async ({ ack, body, action, respond }) => {
      await ack();
      if (
        body.container?.type === "view" &&
        body.view?.type === "home" &&
        typeof body.user?.id === "string"
      ) {
        const work = homeClick(kit, home, body, action).catch((error: unknown) =>
          logger.error({ err: error }, "Home tab button failed unexpectedly"),
        );
        await kit.tracked(work);
        return;
      }
      const user = typeof body.user === "object" && body.user !== null ? body.user : undefined;
      const missing = [
        ...missingFields(body, ["response_url"]),
        ...(typeof user?.id === "string" && user.id !== "" ? [] : ["user.id"]),
        ...(typeof action?.action_id === "string" ? [] : ["actions[0].action_id"]),
      ];
      if (missing.length > 0 || !respond) {
        // A click has nowhere to be answered but its response_url: the refusal is only logged.
        logger.warn(
          { kind: "block_actions", missing, team: body.team?.id, user: user?.id },
          "Slack request refused: a signed button click without the fields Slack always sends",
        );
        return;
      }
      kit.safely(respond, () => messageClick(kit, body, action, respond));
    },
  );
}

/** A button of a message: the command it stands for, answered like the typed command. */
async function messageClick(
  kit: SurfaceKit,
  body: Click,
  action: ButtonAction,
  respond: RespondFn,
): Promise<void> {
  const { logger, options } = kit;
  const channelId = body.channel?.id ?? body.container?.channel_id ?? "";
  const actor = await kit.actorFor(
    body.team?.id ?? body.user.team_id ?? "",
    body.user.id,
    channelId,
    body.response_url,
  );
  const read = readAction(action.action_id, action.value ?? "");
  if (read.kind === "refused") {
    logger.warn({ action: action.action_id }, "button with a value this version did not write: refused");
    await kit.answer(respond, undefined, refuse(read.error, actor, { ...options.run, logger }), actor);
    return;
  }
  const { command } = read;
  const outcome = await runCommand(command, actor, options.run);
  // Refresh replaces the status it belongs to; the others answer like the typed command.
  await kit.answer(respond, command, outcome, actor, action.action_id === ACTION_IDS.refresh && outcome.ok);
}

/** A button of the Home tab: the command runs as typed, then the tab is published with its answer on top. */
async function homeClick(
  kit: SurfaceKit,
  home: HomeTab | null,
  body: Click,
  action: ButtonAction,
): Promise<void> {
  if (!home) return;
  const { logger, options } = kit;
  const teamId = body.team?.id ?? body.user.team_id ?? "";
  const actor = await kit.actorFor(teamId, body.user.id, "", "");
  const read = readAction(action.action_id, action.value ?? "");
  const outcome =
    read.kind === "refused"
      ? refuse(read.error, actor, { ...options.run, logger })
      : await runCommand(read.command, actor, options.run);
  const ctx: RenderContext = { now: kit.now(), githubWebUrl: options.githubWebUrl };
  const answer = outcome.ok
    ? renderResultMessage(outcome.result, ctx)
    : renderErrorMessage(outcome.error, ctx);
  await home.publish(teamId, body.user.id, answer.blocks);
}
