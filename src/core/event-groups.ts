import { CommandError, CommandErrorCode } from "../commands/errors.js";

/** Event groups a subscription (or a person's notices) can ask for (docs/notifications.md). */
export const EVENT_GROUPS = ["queue", "checks", "bisection", "pause"] as const;
export type EventGroup = (typeof EVENT_GROUPS)[number];
/** What a channel's subscription hears unless it says otherwise. */
export const DEFAULT_EVENT_GROUPS: EventGroup[] = ["queue", "pause"];

/** A comma-separated list of event groups, each known, at least one; repeats dropped. */
export function eventGroups(value: string, command: string): EventGroup[] {
  const groups = value.split(",").filter(Boolean);
  const unknown = groups.filter((g) => !(EVENT_GROUPS as readonly string[]).includes(g));
  if (unknown.length || groups.length === 0) {
    throw new CommandError(CommandErrorCode.InvalidArgument, {
      command,
      argument: "events",
      limit: `a comma-separated list of ${EVENT_GROUPS.join(", ")}`,
    });
  }
  return [...new Set(groups)] as EventGroup[];
}
