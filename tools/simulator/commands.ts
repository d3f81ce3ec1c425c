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
  message: string;
}
