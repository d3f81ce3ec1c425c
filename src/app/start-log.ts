import { describeBackends } from "../backends/choose.js";
import type { Settings } from "../settings/read-settings.js";
import { SETTING_NAMES, SETTINGS, type Setting, type SurfaceName } from "../settings/settings.js";
import { SURFACES, slotsText, surface, surfaceSettings } from "../settings/surfaces.js";

/**
 * One line per surface for the start log: what is on, what is off and why; then which merge queue
 * (src/backends says) and the store. No value of a secret.
 */
export function describeSurfaces(settings: Settings): string[] {
  const on: Record<SurfaceName, unknown> = {
    github: settings.github,
    slack: settings.slack,
    "identity-linking": settings.oauth,
  };
  const lines = SURFACES.map((s) => {
    if (s.group === "github" && settings.github) {
      const where = settings.githubHost ? ` (${settings.githubHost.webUrl})` : "";
      return `GitHub App ${settings.github.appId} on${where}`;
    }
    if (on[s.group]) return `${s.log} on`;
    return `${s.log} off (${surfaceSettings(s.group)} unset)${s.whenOff ? `: ${s.whenOff}` : ""}`;
  });
  return [...lines, describeBackends(settings.mergeQueue), `store: ${settings.database.kind}`];
}

const required = SETTING_NAMES.filter((name) => (SETTINGS[name] as Setting).required);
const needs = (group: SurfaceName) => `${surface(group).name} (${slotsText(surface(group).slots)})`;

/** What `npm start` prints when nothing is configured. */
export const HOW_TO_CONFIGURE = `Yardmaster is not configured.

  To try it with no accounts at all:   npm run sandbox
  To run it for real: copy .env.example to .env, fill in at least
    ${required.join(", ")}, and ${needs("github")}
    and/or ${needs("slack")}, then run npm start again.
  The README's "Deploy" section walks through each step.`;
