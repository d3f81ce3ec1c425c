import { readFileSync } from "node:fs";

/**
 * This release's version, from `package.json` (one place: `npm run release` tags and labels the image
 * with it): shown in the start log, `/healthz`, `/metrics` (`yardmaster_build_info`) and the Home tab's
 * footer. `package.json` sits one level above this module both in `src/` and in the image's `dist/`.
 */
export const VERSION: string = readVersion();

function readVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      version?: unknown;
    };
    return typeof pkg.version === "string" ? pkg.version : "unknown";
  } catch {
    return "unknown";
  }
}
