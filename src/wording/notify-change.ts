import type { EventGroup } from "../core/event-groups.js";
import type { Repo } from "../repo.js";

/** What `/mq notify` (or a Home-tab toggle) asks: see, turn on or off, choose groups, mute a repository. */
export type NotifyChange =
  | { kind: "show" }
  | { kind: "enabled"; enabled: boolean }
  | { kind: "events"; groups: EventGroup[] }
  | { kind: "repo"; repo: Repo; muted: boolean };

/** The words of `/mq notify` that ask for this change (a Home-tab button carries them). */
export function notifyWords(change: NotifyChange): string {
  switch (change.kind) {
    case "show":
      return "";
    case "enabled":
      return change.enabled ? "on" : "off";
    case "events":
      return `events=${change.groups.join(",")}`;
    case "repo":
      return `repo=${change.repo.fullName} ${change.muted ? "off" : "on"}`;
  }
}
