// `npx tsx tools/sandbox/screenshot.ts [out.png]`: starts the sandbox, plays a short scene in headless
// Chromium (a queue command on a pull request, a pause from Slack, notifications arriving) and saves a
// screenshot of the page (default docs/sandbox.png).

import { launchChromium } from "./browser.js";
import { startSandbox } from "./start-sandbox.js";

const out = process.argv[2] ?? "docs/sandbox.png";
const sandbox = await startSandbox({ pollIntervalSeconds: 1 });
const browser = await launchChromium();
try {
  const page = await (await browser.newContext({ viewport: { width: 1600, height: 1000 } })).newPage();
  await page.goto(`${sandbox.url}?as=octocat&pr=101`);
  await page.getByRole("textbox", { name: "Comment" }).fill("@yardmaster queue");
  await page.getByRole("button", { name: "Comment" }).click();
  await page.getByText("is in the merge queue").waitFor({ timeout: 30_000 });
  // Let the queue move a little: batches finish their checks and merge, notifications arrive.
  await page.waitForTimeout(25_000);
  const slack = page.getByRole("textbox", { name: "Message" });
  await slack.fill("/mq pr acme/widgets#101");
  await slack.press("Enter");
  await page.locator(".sl-msg.ephemeral").first().waitFor({ timeout: 30_000 });
  await slack.fill("/mq pause acme/widgets release freeze");
  await slack.press("Enter");
  await page.getByText("was paused by").waitFor({ timeout: 30_000 });
  // The latest thread opened, as a person would, to show its replies.
  await page.locator(".sl-thread-toggle").last().click();
  await page.mouse.move(0, 0);
  await page.waitForTimeout(1500);
  await page.locator("#sl-scroll").evaluate((element) => {
    element.scrollTop = element.scrollHeight;
  });
  await page.screenshot({ path: out });
  process.stdout.write(`screenshot: ${out}\n`);
} finally {
  await browser.close();
  await sandbox.close();
}
