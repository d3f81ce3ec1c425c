// Comment commands addressed to the merge queue (`@mergifyio queue [name]`, `dequeue`, `requeue`).
// Only the comment's first line counts. The answer is what the merge queue's reply comment would say.

export type ParsedCommand =
  | { kind: "not-addressed" }
  | { kind: "unknown"; word: string }
  | { kind: "invalid"; command: "queue" | "dequeue" | "requeue"; message: string }
  | { kind: "queue"; queueName: string | null }
  | { kind: "dequeue" }
  | { kind: "requeue" };

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export function parseCommand(body: string, prefix: string): ParsedCommand {
  const firstLine = (body.split(/\r?\n/, 1)[0] ?? "").trim();
  const match = new RegExp(`^${escapeRegExp(prefix)}(?:\\s+(.*))?$`, "i").exec(firstLine);
  if (match === null) return { kind: "not-addressed" };
  const words = (match[1] ?? "")
    .trim()
    .split(/\s+/)
    .filter((word) => word.length > 0);
  const [word, ...args] = words;
  if (word === undefined) return { kind: "unknown", word: "" };
  const name = word.toLowerCase();
  if (name === "queue") {
    if (args.length > 1) {
      return {
        kind: "invalid",
        command: "queue",
        message: "`queue` takes at most one argument: the queue name",
      };
    }
    return { kind: "queue", queueName: args[0] ?? null };
  }
  if (name === "dequeue" || name === "requeue") {
    if (args.length > 0) return { kind: "invalid", command: name, message: `\`${name}\` takes no argument` };
    return { kind: name };
  }
  return { kind: "unknown", word };
}

export interface CommandAuthorInput {
  id: number;
  login: string;
}

export interface CommandResult {
  accepted: boolean;
  /** The merge queue's answer comment. */
  message: string;
  /**
   * What the answer will become: "queued" (edited once merged or out of the queue), "waiting" (edited
   * once its conditions match), or "final" (never edited).
   */
  follow: "queued" | "waiting" | "final";
}

// ---- the merge queue's answer comments, as Mergify writes them -------------------------------------

/** 1st, 2nd, 3rd, 4th, 11th… */
export function ordinal(n: number): string {
  const last = n % 100;
  if (last >= 11 && last <= 13) return `${n}th`;
  return `${n}${{ 1: "st", 2: "nd", 3: "rd" }[n % 10] ?? "th"}`;
}

/** Mergify's conclusions: null is pending (🟠). */
export type AnswerConclusion = null | "success" | "failure" | "neutral" | "cancelled";
const EMOJI: Record<string, string> = { success: "✅", failure: "❌", neutral: "☑️", cancelled: "🛑" };

/**
 * An answer comment as Mergify's bot writes it: the command quoted, a headline with its conclusion's
 * emoji, details, and a hidden payload with the command and its conclusion.
 */
export function answerComment(
  command: string,
  conclusion: AnswerConclusion,
  title: string,
  details: string[] = [],
): string {
  const emoji = conclusion === null ? "🟠" : (EMOJI[conclusion] ?? "");
  const more = details.length ? `<details>\n\n${details.join("\n")}\n\n</details>\n` : "";
  const payload = JSON.stringify({ command, conclusion });
  return `> ${command}\n\n#### ${emoji} ${title}\n\n${more}\n\n<!---\nDO NOT EDIT\n-*- Mergify Payload -*-\n${payload}\n-*- Mergify Payload End -*-\n-->`;
}

/** Mergify's default restriction on queue and dequeue, which a GitHub App's bot does not pass. */
export const DEFAULT_RESTRICTION = "sender-permission>=write";

export function restrictionRefusal(command: string): string {
  return answerComment(
    command,
    "failure",
    "Command disallowed due to [command restrictions](https://docs.mergify.com/configuration/#commands-restrictions) in the Mergify configuration.",
    [`- [ ] \`${DEFAULT_RESTRICTION}\``],
  );
}

/** The answer to a queue command once the pull request is in the queue, as Mergify writes it. */
export function queuedAnswer(command: string, position: number, queueName: string): string {
  return answerComment(
    command,
    null,
    `The pull request is the ${ordinal(position)} in the queue to be merged`,
    [`**Required conditions of queue** \`${queueName}\` **for merge:**`],
  );
}
