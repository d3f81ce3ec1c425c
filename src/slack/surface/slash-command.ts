import type { App } from "@slack/bolt";
import { parseSlackCommand } from "../../commands/parse.js";
import { refuse, runCommand } from "../../commands/run.js";
import type { Forms } from "../forms/index.js";
import { fieldOf, missingFields, type SurfaceKit } from "./kit.js";

const MALFORMED_COMMAND =
  "Yardmaster could not read this command (Slack sent it without some of its usual fields), so nothing was run. Try again.";

/** `/mq …`: acknowledged at once, then answered through `response_url` (or a form opened). */
export function registerSlashCommand(app: App, kit: SurfaceKit, forms: Forms): void {
  const { logger, options } = kit;
  app.command(/.*/, async ({ command: slash, ack, respond }) => {
    const missing = missingFields(slash, ["team_id", "user_id", "channel_id", "response_url", "text"]);
    if (missing.length > 0 || !respond) {
      logger.warn(
        { kind: "slash_command", missing, team: fieldOf(slash, "team_id"), user: fieldOf(slash, "user_id") },
        "Slack request refused: a signed slash command without the fields Slack always sends",
      );
      // Slack shows a slash command's acknowledgement to the person who typed it.
      await ack({ response_type: "ephemeral", text: MALFORMED_COMMAND });
      return;
    }
    await ack();
    kit.safely(respond, async () => {
      // `/mq pause` without a reason and `/mq subscribe` alone open their form (forms/).
      if (await forms.openFor(slash, respond)) return;
      const actor = await kit.actorFor(slash.team_id, slash.user_id, slash.channel_id, slash.response_url);
      const parsed = parseSlackCommand(slash.text, await kit.placeOf(slash.channel_id));
      if (parsed.kind === "refused") {
        await kit.answer(respond, undefined, refuse(parsed.error, actor, { ...options.run, logger }), actor);
        return;
      }
      const outcome = await runCommand(parsed.command, actor, options.run);
      await kit.answer(respond, parsed.command, outcome, actor);
    });
  });
}
