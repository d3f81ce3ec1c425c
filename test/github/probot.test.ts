import nock from "nock";
import { ProbotOctokit } from "probot";
import { afterEach, describe, expect, it, vi } from "vitest";
import { appOctokitClass } from "../../src/github/probot.js";

/** Creates three comments at once; how many reached GitHub within 200 ms of a fake clock. */
async function sentWithin200ms(Octokit: typeof ProbotOctokit): Promise<number> {
  let received = 0;
  nock("https://api.github.com")
    .post("/repos/acme/widgets/issues/1/comments")
    .times(3)
    .reply(201, () => {
      received += 1;
      return { id: received };
    });
  const octokit = new Octokit({ auth: { token: "ghs_test" } });
  for (let i = 0; i < 3; i++) {
    octokit.rest.issues
      .createComment({ owner: "acme", repo: "widgets", issue_number: 1, body: "x" })
      .catch(() => undefined);
  }
  for (let i = 0; i < 20; i++) await vi.advanceTimersByTimeAsync(10);
  return received;
}

describe("Probot's Octokit for the app", () => {
  afterEach(() => {
    vi.useRealTimers();
    nock.cleanAll();
  });

  it("leaves the pacing of writes to the app's write queue: the throttle does not space them too", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    expect(await sentWithin200ms(appOctokitClass(ProbotOctokit))).toBe(3);
    // Probot's default: a write a second, a comment creation every three seconds, for the whole process.
    expect(await sentWithin200ms(ProbotOctokit)).toBe(1);
  });
});
