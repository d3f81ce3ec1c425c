import { CommandError, CommandErrorCode } from "./errors.js";

/** Event groups a subscription (or a person's notices) can ask for (docs/notifications.md). */
export const EVENT_GROUPS = ["queue", "checks", "bisection", "pause", "health"] as const;
export type EventGroup = (typeof EVENT_GROUPS)[number];
/**
 * What a channel's subscription hears unless it says otherwise (a new one: a subscription keeps the
 * groups it was made with). `health` is the queue's own alerts (src/health), said in channels only.
 */
export const DEFAULT_EVENT_GROUPS: EventGroup[] = ["queue", "pause", "health"];
/** The groups of a person's direct messages: every group but `health`, which channels alone hear. */
export const PERSONAL_EVENT_GROUPS: readonly EventGroup[] = EVENT_GROUPS.filter((g) => g !== "health");
/** The groups whose events the queue's health alerts are judged on (read for a subscription to `health`). */
const HEALTH_READS: readonly EventGroup[] = ["queue", "checks", "pause"];

/** The groups whose events are read for these: `health` reads those its alerts are judged on. */
export function groupsToRead(groups: Iterable<string>): EventGroup[] {
  const read = new Set<EventGroup>();
  for (const group of groups) {
    if (group === "health") for (const g of HEALTH_READS) read.add(g);
    else read.add(group as EventGroup);
  }
  return [...read];
}

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
