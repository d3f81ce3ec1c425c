import { pass, warn } from "./line.js";
import type { SetupLine } from "./report.js";

const CHECK = "PUBLIC_URL";

/** PUBLIC_URL is https: GitHub's sign-in sends people back to it (a warning only: tests run on http). */
export function checkPublicUrl(publicUrl: string): SetupLine[] {
  if (publicUrl.startsWith("https://")) return [pass(CHECK, `${publicUrl} is https`)];
  return [
    warn(
      CHECK,
      `${publicUrl} is not https: the /mq login callback and the links Yardmaster hands out would travel unencrypted`,
      "set PUBLIC_URL to the https address GitHub and Slack reach Yardmaster at (e.g. https://yardmaster.example.com)",
    ),
  ];
}
