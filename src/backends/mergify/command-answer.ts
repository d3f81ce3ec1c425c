import type { CommandAnswer, CommandAnswerKind } from "../../core/merge-queue.js";

/**
 * The merge queue's answer to a comment command, read from the comment its bot writes in the thread
 * (and edits as the command progresses). Mergify writes, for a command it ran:
 *
 *     > queue urgent
 *
 *     #### 🟠 Waiting for conditions to match
 *
 *     <details>
 *
 *     - [ ] `label=ready`
 *     - [X] `-draft`
 *
 *     </details>
 *
 *     <!---
 *     DO NOT EDIT
 *     -*- Mergify Payload -*-
 *     {"command": "queue urgent", "conclusion": null}
 *     -*- Mergify Payload End -*-
 *     -->
 *
 * and plain sentences for what it refused before running it ("@yardmaster[bot] is not allowed to run
 * commands", "Sorry but I didn't understand the command…"). Only what is needed to tell a person where
 * the command stands is read: the kind of answer, its headline, and the conditions still unmet.
 */

export type { CommandAnswer, CommandAnswerKind };

const PAYLOAD = /-\*- Mergify Payload -\*-\r?\n(.+)\r?\n-\*- Mergify Payload End -\*-/;
const HIDDEN = /<!--[\s\S]*?-->/g;
const DETAILS = /<details>([\s\S]*?)<\/details>/i;
const QUOTE = /^>\s*(.+)$/;
const HEADING = /^#{1,6}\s+(.+)$/;
const UNCHECKED = /^\s*[-*]\s+\[ \]\s+(.+)$/;
const ORDINAL = /\bis the (\d+)(?:st|nd|rd|th) in the queue\b/i;

/** `[text](url)` → text; `**x**`, `_x_` left as they are (a surface escapes them). */
function withoutLinks(text: string): string {
  return text.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1");
}

/** Leading emoji and symbols (🟠, ✅, ❌, ☑️, ⚠️, 🛑) dropped: the surface says it in its own words. */
function withoutLeadingSymbols(text: string): string {
  return text.replace(/^[^\p{L}\p{N}@`"'([]+/u, "").trim();
}

function payloadConclusion(body: string): string | null | undefined {
  const match = PAYLOAD.exec(body);
  if (!match?.[1]) return undefined;
  try {
    const parsed: unknown = JSON.parse(match[1]);
    if (typeof parsed !== "object" || parsed === null || !("conclusion" in parsed)) return undefined;
    const conclusion = (parsed as { conclusion: unknown }).conclusion;
    return typeof conclusion === "string" ? conclusion : null;
  } catch {
    return undefined;
  }
}

/** The conditions of the unchecked leaves in the details: `label=ready`, not "any of: [🔀 queue conditions]". */
function unmetConditions(body: string): string[] {
  const details = DETAILS.exec(body)?.[1] ?? "";
  const seen = new Set<string>();
  for (const line of details.split(/\r?\n/)) {
    const item = UNCHECKED.exec(line)?.[1];
    // A group ("any of:", "all of:") is not a condition; its leaves follow it.
    if (!item || /^(?:any|all|none) of:/i.test(item)) continue;
    const code = /`([^`]+)`/.exec(item)?.[1];
    if (code) seen.add(code.trim());
  }
  return [...seen];
}

/** Reads an answer comment's body (created or edited). Never throws. */
export function classifyCommandAnswer(body: string): CommandAnswer {
  const visible = body.replace(HIDDEN, "").replace(DETAILS, "");
  const lines = visible
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "");
  const command = lines[0] ? (QUOTE.exec(lines[0])?.[1]?.trim() ?? null) : null;
  const rest = command === null ? lines : lines.slice(1);
  const headingLine = rest.find((line) => HEADING.test(line));
  const raw = headingLine ? (HEADING.exec(headingLine)?.[1] ?? "") : (rest[0] ?? "");
  const headline = withoutLeadingSymbols(withoutLinks(raw)).slice(0, 300);
  const conclusion = payloadConclusion(body);
  const answer = (kind: CommandAnswerKind, extra: Partial<CommandAnswer> = {}): CommandAnswer => ({
    kind,
    refusal: null,
    command,
    headline,
    unmet: [],
    position: null,
    ...extra,
  });

  if (/\bis not allowed to run commands\b/i.test(headline))
    return answer("refused", { refusal: "permission" });
  if (/\bcommand restrictions?\b|\bcommand disallowed\b/i.test(headline)) {
    return answer("refused", { refusal: "restrictions" });
  }
  if (/\bdid(?:n'?t| not) understand\b/i.test(headline)) return answer("not-understood");
  if (/\bwaiting for conditions to match\b/i.test(headline)) {
    return answer("waiting", { unmet: unmetConditions(body) });
  }
  const ordinal = ORDINAL.exec(headline);
  if (ordinal?.[1]) return answer("accepted", { position: Number(ordinal[1]) });
  if (
    conclusion === "success" ||
    /\bhas been (?:queued|requeued|merged|removed from the queue|dequeued)\b|\bnot waiting to be queued anymore\b|\bis (?:queued|embarked)\b/i.test(
      headline,
    )
  ) {
    return answer("accepted");
  }
  return answer("other");
}
