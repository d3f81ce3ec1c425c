// Headless Chromium for the sandbox's browser test and screenshot, driven by playwright-core (which
// downloads no browser): CHROMIUM_PATH, else the system's /usr/bin/chromium, else the Chromium build
// that the registry package @sparticuz/chromium ships (unpacked into the temporary folder on first use).

import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

const SYSTEM_CHROMIUM = "/usr/bin/chromium";

/** Nothing leaves loopback: no sandbox (it needs privileges), no GPU, no background or update traffic. */
const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

export async function chromiumPath(): Promise<string> {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  if (existsSync(SYSTEM_CHROMIUM)) return SYSTEM_CHROMIUM;
  const { default: packaged } = await import("@sparticuz/chromium");
  return packaged.executablePath();
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: await chromiumPath(), args: FLAGS, headless: true });
}
