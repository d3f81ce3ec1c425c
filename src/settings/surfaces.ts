import { GROUPS, type Group, type GroupName, SETTING_NAMES, SETTINGS, type SurfaceName } from "./settings.js";

/** A group of settings that is on when all of them are set and off when none is (the table's surfaces). */
export interface Surface {
  group: SurfaceName;
  /** As problems and help name it ("the GitHub App"). */
  name: string;
  /** As the start log names it ("GitHub surface"). */
  log: string;
  whenOff?: string;
  /** What it needs: one setting of each slot (a slot holds a setting and those that can stand in for it). */
  slots: string[][];
}

export const SURFACES: readonly Surface[] = (Object.keys(GROUPS) as GroupName[]).flatMap((group) => {
  const surface = (GROUPS[group] as Group).surface;
  if (!surface) return [];
  const slots: string[][] = [];
  for (const name of SETTING_NAMES) {
    const setting = SETTINGS[name];
    // A setting with a default (SLACK_API_URL) is never unset: it is not what turns a surface on.
    if (setting.group !== group || "default" in setting) continue;
    if (!("or" in setting)) slots.push([name]);
    else {
      const slot = slots.find((s) => s[0] === setting.or);
      if (!slot)
        throw new Error(`${name} stands in for ${setting.or}, which must come before it in its group`);
      slot.push(name);
    }
  }
  return [{ group: group as SurfaceName, ...surface, slots }];
});

export function surface(group: SurfaceName): Surface {
  const found = SURFACES.find((s) => s.group === group);
  if (!found) throw new Error(`${group} is not a surface`);
  return found;
}

/** "APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH, WEBHOOK_SECRET" */
export const slotsText = (slots: readonly string[][]) => slots.map((s) => s.join(" or ")).join(", ");

/** The settings that turn a surface on, one per slot: "APP_ID, PRIVATE_KEY, WEBHOOK_SECRET". */
export const surfaceSettings = (group: SurfaceName) =>
  surface(group)
    .slots.map((slot) => slot[0])
    .join(", ");

export type SurfaceState = { state: "on" | "off" } | { state: "partial"; problem: string };

/** Whether a surface is on, off or partly set (then the problem names what is missing). */
export function surfaceState(s: Surface, isSet: (name: string) => boolean): SurfaceState {
  const present = s.slots.map((slot) => slot.some(isSet));
  if (present.every((p) => !p)) return { state: "off" };
  if (present.every(Boolean)) return { state: "on" };
  const missing = s.slots.filter((_, i) => !present[i]);
  const name = s.name.charAt(0).toUpperCase() + s.name.slice(1);
  return {
    state: "partial",
    problem: `${name} is partly configured: set ${slotsText(missing)} (or unset the others to turn it off)`,
  };
}
