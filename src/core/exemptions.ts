import { CommandError, CommandErrorCode } from "./errors.js";
import { characterCount } from "./input-limits.js";
import { labelKey } from "./pause.js";

/**
 * The exemptions of a pause, a timed pause or a freeze window, at the end of the line (docs/commands.md,
 * "Exemptions"): `except label:<name> [label:<name> …]`. Only the last word `except` followed by a
 * `label:` word starts them, and every word after it must be `label:<name>`; an `except` followed by
 * anything else stays the reason's ("deploy everything except docs").
 */

/** At most this many labels after `except`. */
const MAX_EXCEPT_LABELS = 10;
/** GitHub's longest label name. */
const LABEL_MAX_LENGTH = 50;

const EXAMPLE = 'write them last, one "label:<name>" each: "deploy for 2h except label:hotfix label:release"';

function refuse(command: string, detail: string): never {
  throw new CommandError(CommandErrorCode.InvalidArgument, {
    command,
    argument: "exemptions",
    detail: `${detail}: ${EXAMPLE}`,
  });
}

/** The text before the exemptions, and their labels (lower case, each once, in the order typed). */
export function splitExcept(command: string, text: string): { rest: string; labels: string[] } {
  const starts = [...text.matchAll(/(^|\s)except(?=\s+label:)/gi)];
  const last = starts.at(-1);
  if (last === undefined) return { rest: text, labels: [] };
  const at = last.index + (last[1] ?? "").length;
  const words = text
    .slice(at + "except".length)
    .trim()
    .split(/\s+/);
  const labels: string[] = [];
  for (const word of words) {
    const m = /^label:(.*)$/is.exec(word);
    if (!m) refuse(command, `"${word}" after except is not a label`);
    const name = labelKey(m[1] ?? "");
    if (name === "") refuse(command, "label: needs a name");
    if (characterCount(name) > LABEL_MAX_LENGTH || /\p{Cc}/u.test(name))
      refuse(command, `a label's name is 1 to ${LABEL_MAX_LENGTH} characters, without control characters`);
    if (!labels.includes(name)) labels.push(name);
  }
  if (labels.length > MAX_EXCEPT_LABELS) refuse(command, `at most ${MAX_EXCEPT_LABELS} labels may be exempt`);
  return { rest: text.slice(0, at).trimEnd(), labels };
}
