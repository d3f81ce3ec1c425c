import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../tools/sandbox/browser.js";
import { type Sandbox, startSandbox } from "../../tools/sandbox/start-sandbox.js";

/** Notifications come within a poll interval; the merge queue and Yardmaster answer within seconds. */
const WAIT = 30_000;
const TEST_TIMEOUT = 90_000;

let sandbox: Sandbox;
let browser: Browser;
let page: Page;

const visible = (locator: Locator) => locator.waitFor({ state: "visible", timeout: WAIT });
const hidden = (locator: Locator) => locator.waitFor({ state: "hidden", timeout: WAIT });
const slackMessage = (text: string | RegExp) => page.locator("#messages .sl-msg", { hasText: text });
const composer = () => page.getByRole("textbox", { name: "Message" });

async function slash(text: string): Promise<void> {
  await composer().fill(text);
  await composer().press("Enter");
}

async function actAs(login: string): Promise<void> {
  await page.getByRole("radio", { name: new RegExp(`^${login}`) }).click();
  await visible(page.locator(`#people button[data-login="${login}"][aria-checked="true"]`));
}

/**
 * The sandbox page driven like a person would, in headless Chromium (tools/sandbox/browser.ts, through
 * playwright-core): a comment command on a pull request, a pause from Slack, notifications arriving,
 * and a read-only user refused. Assertions are on what is on screen.
 */
describe("the sandbox page, in a real browser", () => {
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, pollIntervalSeconds: 1 });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    page = await context.newPage();
    await page.goto(sandbox.url);
    await visible(page.getByRole("heading", { name: /export widgets as CSV/ }));
  }, TEST_TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await sandbox?.close();
  });

  it(
    "shows the thread of an unqueued pull request and the channel, acting as the writer",
    async () => {
      expect(await page.locator("#pull-select").inputValue()).toBe("101");
      await visible(page.locator("#pr-title .where", { hasText: "Not queued" }));
      await visible(page.locator("#channel-name", { hasText: "# merge-queue" }));
      expect(await page.getByRole("radio", { name: /^octocat/ }).getAttribute("aria-checked")).toBe("true");
      await visible(page.locator("#queues .queue", { hasText: "main" }).first());
    },
    TEST_TIMEOUT,
  );

  it(
    "queues the pull request from a comment: 👍, and the summary says where it is",
    async () => {
      await page.getByRole("textbox", { name: "Comment" }).fill("@yardmaster queue");
      await page.getByRole("button", { name: "Comment" }).click();

      const command = page
        .locator("article.gh-comment")
        .filter({ has: page.locator(".gh-box-head", { hasText: /^octocat commented/ }) })
        .filter({ hasText: "@yardmaster queue" });
      await visible(command.locator('.reaction[data-content="+1"]'));
      const reactions = await command.locator(".reaction").allTextContents();
      // 👀 only if the answer took more than a second (the sandbox paces writes as GitHub asks).
      expect(reactions.at(-1)).toBe("👍 1");
      expect(reactions.filter((r) => r !== "👀 1" && r !== "👍 1")).toEqual([]);

      const summary = page.locator("article.gh-comment.bot", { hasText: "latest command" });
      await visible(summary.getByText(/#101 is in the merge queue default at position \d+/));
      expect(await summary.count()).toBe(1);
      expect(await summary.locator(".gh-body").innerText()).toContain("@yardmaster queue by octocat");
      // The command was relayed to the merge queue, which answered on the pull request.
      // (the summary quotes that answer too: the first is the merge queue's own comment)
      await visible(
        page
          .locator("article.gh-comment", {
            hasText: /The pull request is the \d+\w\w in the queue to be merged/,
          })
          .first(),
      );
      await visible(page.locator("#pr-title .where", { hasText: "In the merge queue" }));
    },
    TEST_TIMEOUT,
  );

  it(
    "pauses from Slack: the result is posted in the channel, names the user and has an Unpause button",
    async () => {
      await slash("/mq pause acme/widgets release freeze");
      const result = slackMessage("paused the merge queue of acme/widgets: release freeze");
      await visible(result);
      expect(await result.locator(".mention").first().innerText()).toBe("@octocat");
      await visible(result.getByRole("button", { name: "Unpause" }));
      await visible(page.locator("#queues .pill.pause", { hasText: "paused: release freeze" }).first());
    },
    TEST_TIMEOUT,
  );

  it(
    "notifications arrive in the channel as the queue moves: the pause, and a thread for the pull request",
    async () => {
      const pause = slackMessage(/The merge queue of acme\/widgets was paused by .*: release freeze/);
      await visible(pause);
      await visible(pause.getByRole("button", { name: "Unpause" }));

      const parent = slackMessage(/#101 feat\(widgets\): export widgets as CSV/).first();
      await visible(parent);
      expect(await parent.locator(".sl-body").first().innerText()).toContain("Entered the merge queue");
      // Entering the queue also changed its size: that later event is a reply in the pull request's thread.
      const toggle = parent.locator(".sl-thread-toggle");
      await visible(toggle);
      await toggle.click();
      await visible(parent.locator(".sl-replies .sl-msg", { hasText: "#101" }).first());
    },
    TEST_TIMEOUT,
  );

  it(
    "refuses the read-only user, privately; the writer's Unpause button resumes the queue",
    async () => {
      await actAs("reader");
      await slash("/mq unpause acme/widgets");
      const refusal = page.locator("#messages .sl-msg.ephemeral", { hasText: "needs write permission" });
      await visible(refusal);
      expect(await refusal.innerText()).toContain("reader has read");
      await visible(refusal.getByText("Only visible to you"));
      expect(await page.locator("#queues .pill.pause").count()).toBeGreaterThan(0);

      await actAs("octocat");
      await hidden(refusal); // only its user sees it
      await slackMessage("paused the merge queue of acme/widgets: release freeze")
        .getByRole("button", { name: "Unpause" })
        .click();
      await visible(slackMessage("unpaused the merge queue of acme/widgets: it is running again"));
      await hidden(page.locator("#queues .pill.pause").first());
      await visible(slackMessage(/The merge queue of acme\/widgets was resumed/));
    },
    TEST_TIMEOUT,
  );
  it(
    "shows the author's direct messages about the pull request they queued, and their Home tab",
    async () => {
      await actAs("octocat");
      await page.getByRole("tab", { name: /direct messages/ }).click();
      await visible(page.locator("#channel-name", { hasText: "Yardmaster" }));
      await visible(slackMessage(/#101 feat\(widgets\): export widgets as CSV/));
      await page.getByRole("tab", { name: "Home tab" }).click();
      await visible(page.locator("#messages .sl-home", { hasText: "Linked to the GitHub account octocat" }));
      await visible(page.locator("#messages .sl-home", { hasText: "Your direct messages" }));
      await page.getByRole("tab", { name: "# merge-queue" }).click();
      await visible(page.locator("#channel-name", { hasText: "# merge-queue" }));
    },
    TEST_TIMEOUT,
  );
  it(
    "posts the channel's weekly digest when asked: the week's stats from the seeded history",
    async () => {
      await actAs("octocat");
      await page.getByRole("button", { name: "Run the weekly digest now" }).click();
      const digest = slackMessage("Weekly digest: queue health of acme/widgets");
      await visible(digest);
      // The demo seed's week: merges, two pull requests thrown out by their checks, an incident pause.
      expect(await digest.innerText()).toMatch(/Merged:?\s*\d+/);
      expect(await digest.innerText()).toContain("its checks failed ×");
    },
    TEST_TIMEOUT,
  );
  it(
    "fails the checks of the head of acme/ships' queue on GitHub's merge queue, then merges the next head",
    async () => {
      const ghq = page.locator("#gh-queue");
      await actAs("octocat");
      await visible(ghq.locator(".pill[data-number='1']"));
      await slash("/mq queue acme/ships#2");
      await visible(ghq.locator(".pill[data-number='2']"));
      await page.getByRole("button", { name: "Fail the checks of the head of acme/ships' queue" }).click();
      await hidden(ghq.locator(".pill[data-number='1']"));
      // #2's merge group made anew: Yardmaster's gate (required by the ruleset) passes, then it can merge.
      await visible(ghq.locator(".pill[data-number='2']", { hasText: "yardmaster/gate ✓" }));
      await page.getByRole("button", { name: "Merge the head of acme/ships' queue" }).click();
      await hidden(ghq.locator(".pill[data-number='2']"));
      await visible(ghq.locator(".pill", { hasText: "empty" }));
    },
    TEST_TIMEOUT,
  );
  it(
    "unfurls a pasted pull-request link with its queue state and a Queue button that works",
    async () => {
      await actAs("octocat");
      await slash(`is this ready? http://${sandbox.world.github.host}/acme/widgets/pull/102`);
      const unfurl = slackMessage("is this ready?").locator(".sl-unfurl");
      await visible(unfurl.getByText("Not queued."));
      await unfurl.getByRole("button", { name: "Queue" }).click();
      await visible(unfurl.getByRole("button", { name: "Dequeue" }));
    },
    TEST_TIMEOUT,
  );
  it(
    "opens the pause form for /mq pause alone: a blank reason is shown on its field, a reason pauses",
    async () => {
      await slash("/mq pause acme/widgets");
      const modal = page.getByRole("form", { name: "Pause a merge queue" });
      await visible(modal);
      await modal.getByRole("button", { name: "Pause" }).click();
      await visible(modal.getByText("Write why the queue is paused."));
      await modal.getByLabel("Reason").fill("form <freeze>");
      await modal.getByRole("button", { name: "Pause" }).click();
      await hidden(modal);
      await visible(slackMessage("paused the merge queue of acme/widgets: form <freeze>"));
    },
    TEST_TIMEOUT,
  );
});
