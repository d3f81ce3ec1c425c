// `npm run test:clocks`: the tests that depend on the date and the hour, once at each instant that has
// broken such tests (or TEST_NOW alone when it is set). Their clocks start there (test/helpers/clock.ts):
// the end-to-end world's, and the system clock of the unit tests. CI runs it after `npm test`.
import { spawnSync } from "node:child_process";
import { testNow } from "./helpers/clock.js";

/** Late evening in UTC (tomorrow is two hours away), the last minute of a year, and Europe/Paris's
 * spring-forward day 30 min before its clocks skip 02:00–03:00. */
const INSTANTS = ["2026-11-25T22:30:00Z", "2026-12-31T23:59:00Z", "2027-03-28T00:30:00Z"];

/**
 * The files whose tests read the date or the hour: timed pauses ("until 18:00", "resumes at"), time
 * zones, stats days and weekly digests, the notifier's times, logins' expiry, and the Home tab.
 */
const DATE_DEPENDENT = [
  "test/test-now.test.ts",
  "test/commands/grammar/resume-time.test.ts",
  "test/commands/timed-pause.test.ts",
  "test/timed-pauses/runner.test.ts",
  "test/history/figures.test.ts",
  "test/commands/notify.test.ts",
  "test/digests/schedule.test.ts",
  "test/notifier/personal-notices.test.ts",
  "test/github/render-markdown.test.ts",
  "test/slack/render-blocks.test.ts",
  "test/slack/home/render.test.ts",
  "test/slack/user-time-zone.test.ts",
  "test/identity/linking.test.ts",
  "test/e2e/timed-pause.e2e.test.ts",
  "test/e2e/digest.e2e.test.ts",
  "test/e2e/stats.e2e.test.ts",
  "test/e2e/notifier.e2e.test.ts",
  "test/e2e/personal-notices.e2e.test.ts",
  "test/e2e/home-tab.e2e.test.ts",
  "test/e2e/relay-answers.e2e.test.ts",
  "test/e2e/slack.e2e.test.ts",
  "test/e2e/freeze.e2e.test.ts",
  "test/e2e/github-queue-freeze.e2e.test.ts",
  "test/e2e/github-queue-gate.e2e.test.ts",
  "test/e2e/queue-health.e2e.test.ts",
  "test/e2e/personal-notices-queuer.e2e.test.ts",
  "test/e2e/outside-merges-github.e2e.test.ts",
  "test/e2e/outside-merges-mergify.e2e.test.ts",
  "test/health",
  "test/freezes",
];

function main(): number {
  const given = process.env.TEST_NOW?.trim();
  const instants = given ? [testNow().toISOString()] : INSTANTS;
  for (const at of instants) {
    process.stdout.write(`\nTEST_NOW=${at}\n`);
    const run = spawnSync("npx", ["vitest", "run", ...DATE_DEPENDENT, ...process.argv.slice(2)], {
      stdio: "inherit",
      env: { ...process.env, TEST_NOW: at },
    });
    if (run.status !== 0) {
      process.stderr.write(`The date-dependent tests failed at TEST_NOW=${at}.\n`);
      return run.status ?? 1;
    }
  }
  return 0;
}

process.exitCode = main();
