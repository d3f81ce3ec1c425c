import type { QueueEvent, QueueEventNotes } from "../core/queue.js";
import type { Text, TextFormat } from "../wording/description.js";
import { clip } from "../wording/words.js";
import { SHIELD_ATTEMPTS } from "./decide.js";

/** What the flake shield did for a removal, as its notices say it (docs/notifications.md, "The flake shield"). */
export type ShieldNote = NonNullable<QueueEventNotes["shield"]>;

/** A check's name as written by CI: cut, and never more than one line. */
const checkName = (name: string) => clip(name.replace(/\s+/g, " ").trim(), 100);

/**
 * "🛡️ ci/test is failing for everyone: queued again, attempt 2 of 2" (on Mergify, which takes the relayed
 * command in its own time: "asked Mergify to queue it again"), or that it could not be queued again, why,
 * and what to do. The check's name and the reason are escaped for the surface.
 */
export function shieldSentence(note: ShieldNote): Text {
  return (f) => {
    const check = f.escape(checkName(note.check));
    const attempt = `attempt ${SHIELD_ATTEMPTS} of ${SHIELD_ATTEMPTS}`;
    if (note.outcome === "requeued") return `🛡️ ${check} is failing for everyone: queued again, ${attempt}`;
    if (note.outcome === "asked")
      return `🛡️ ${check} is failing for everyone: asked Mergify to queue it again, ${attempt}`;
    const why = note.detail ? `: ${f.escape(clip(note.detail, 300))}` : "";
    return `⚠️ ${check} is failing for everyone, but Yardmaster could not queue it again${why}. Requeue it by hand once the check is fixed.`;
  };
}

/** The shield's line in a removal's notice, in the surface's format; "" when it did nothing. */
export function shieldLine(event: QueueEvent, f: TextFormat): string {
  return event.notes?.shield ? shieldSentence(event.notes.shield)(f) : "";
}

/**
 * The line under the merge queue's relayed `queue` command (GitHub Markdown, on the pull request):
 * who asked and why. The check's name is in a code span it cannot leave.
 */
export function relayedBecause(check: string, others: readonly number[]): string {
  const name = checkName(check).replace(/`/g, "'");
  const pulls = others.slice(0, 5).map((n) => `#${n}`);
  const more = others.length > pulls.length ? [`${others.length - pulls.length} more`] : [];
  const list = [...pulls, ...more];
  const named = list.length > 1 ? `${list.slice(0, -1).join(", ")} and ${list.at(-1)}` : (list[0] ?? "");
  return `<sub>Queued again by Yardmaster's flake shield: \`${name}\` also failed for ${named} in the last hour (attempt ${SHIELD_ATTEMPTS} of ${SHIELD_ATTEMPTS}).</sub>`;
}
