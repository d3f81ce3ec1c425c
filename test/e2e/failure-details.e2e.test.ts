import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUMMARY_MARKER } from "../../src/github/summary-comment.js";
import { METADATA_EVENT_TYPE } from "../../src/slack/slack-poster.js";
import type { CheckOutput } from "../../tools/stand-ins/github/ci-check-runs.js";
import { eventually, linkSlackUser, startWorld, subscribeChannel, type World } from "../helpers/e2e.js";

/**
 * Why a check failed, in the removal's notices and the pull request's summary comment (docs/notifications.md,
 * "Why a check failed"), end to end on both queues with MERGE_QUEUE_PROVIDER=auto: `acme/cogs` on the
 * merge-queue simulator (Mergify), `acme/ships` on the GitHub stand-in's own merge queue. CI's failed check
 * runs carry an output and annotations (the stand-in's `checkRuns.failWith`), written to try escaping:
 * a mention of the channel, a person and a team, a link elsewhere, and 55 warnings before the failures
 * (the annotations are read 50 a page).
 */
const COGS = "acme/cogs";
const SHIPS = "acme/ships";
const CHANNEL = "C0FAILS";
const ALICE = "U0ALICE";
let world: World;

const noise = Array.from({ length: 55 }, (_, i) => ({
  path: `src/lint/${i}.ts`,
  line: i + 1,
  level: "warning" as const,
  message: `style ${i}`,
}));

const COGS_OUTPUT: CheckOutput = {
  title: "2 tests failed, 98 passed",
  summary: [
    "## Failures <!channel>",
    "- `cogs › meshes` expected **2** teeth, got 3 @here <@U0BOSS>",
    "- see [the evil page](https://evil.example/steal) and [the log](https://github.com/acme/cogs/actions)",
    "",
    "x".repeat(400),
  ].join("\n"),
  text: "the full log",
  annotations: [
    ...noise,
    { path: "src/cogs/mesh.ts", line: 12, message: "Expected 2 teeth, received 3 @acme/reviewers" },
    { path: "src/cogs/gear.ts", line: 40, message: "Timed out after 5000 ms" },
  ],
};

const SHIPS_OUTPUT: CheckOutput = {
  title: "Build failed: 1 error",
  summary: "The hull does not compile on the merge group's commit.\n\n**1 error**, 0 warnings.",
  annotations: [
    { path: "src/hull/plates.rs", line: 57, message: "mismatched types: expected `u32`, found `i64`" },
    { path: "src/hull/mod.rs", line: 3, message: "could not compile `hull`" },
  ],
};

beforeAll(async () => {
  world = await startWorld({ MERGE_QUEUE_PROVIDER: "auto" });
  const { state } = world.github;
  world.sim.state.addRepository(COGS, { branches: ["main"] });
  for (const repository of [COGS, SHIPS]) {
    state.addRepository(repository);
    state.setPermission(repository, "alice", "write");
  }
  world.github.mergeQueues.enable(SHIPS, "main");
  state.addPullRequest({ repository: COGS, number: 41, author: "alice", title: "Faster cogs", base: "main" });
  state.addPullRequest({
    repository: SHIPS,
    number: 11,
    author: "alice",
    title: "Thicker hull",
    base: "main",
  });
  world.github.checkRuns.failWith(COGS, "ci/test", COGS_OUTPUT);
  world.github.checkRuns.failWith(SHIPS, "ci", SHIPS_OUTPUT);
  world.slack.state.addUser({ id: ALICE, name: "alice" });
  await linkSlackUser(world, ALICE, "alice", 1);
  await subscribeChannel(world, CHANNEL, [COGS, SHIPS], ["queue"]);
  world.sim.clock.advance(60_000);
});
afterAll(async () => {
  await world?.close();
});

/** The blocks of the notices about a pull request that say it left the queue, in a channel. */
function removals(channelId: string | undefined, pull: number): string[] {
  if (!channelId) return [];
  return world.slack.state
    .messages(channelId)
    .flatMap((top) => [top, ...top.replies])
    .filter((m) => m.metadata?.event_type === METADATA_EVENT_TYPE)
    .map((m) => JSON.stringify(m.blocks ?? []))
    .filter((blocks) => blocks.includes("Left the merge queue") && blocks.includes(`#${pull}`));
}

/** The app's summary comment on a pull request. */
const summary = (repository: string, pull: number) =>
  world.github.state.comments(repository, pull).find((c) => c.viaApp && c.body.includes(SUMMARY_MARKER))
    ?.body;

/** Ticks the poller (and delivers) until `read` gives something: the details come on their own time. */
async function until<T>(read: () => T | undefined | null | false): Promise<T> {
  return eventually(async () => {
    await world.github.settle();
    await world.yardmaster.poller!.tick();
    return read();
  }, 30_000);
}

describe("a removal for a failed check says why, on both queues", () => {
  it("Mergify: the thread, the author's direct message and the summary comment show the check run's title, summary and annotations", async () => {
    world.sim.state.relayCommand(COGS, {
      body: "@mergifyio queue",
      pull_request: { number: 41, title: "Faster cogs", base_ref: "main", author: { id: 1, login: "alice" } },
    });
    world.sim.state.setChecks(COGS, 41, "failure", "ci/test");
    await world.yardmaster.poller!.tick();
    // The fill wait, then the checks (the simulator's engine): CI fails ci/test, the pull request leaves.
    world.sim.clock.advance(15_000);
    world.sim.clock.advance(70_000);
    const [notice] = await until(() => {
      const found = removals(CHANNEL, 41).filter((b) => b.includes("2 tests failed"));
      return found.length > 0 && found;
    });
    const text = notice ?? "";
    expect(text).toContain("its checks failed");
    expect(text).toContain("*2 tests failed, 98 passed*");
    // The summary's first lines, in mrkdwn, escaped: no mention of the channel, a person or a team.
    expect(text).toContain("*Failures &lt;!channel&gt;*");
    expect(text).toContain("`cogs › meshes` expected *2* teeth, got 3 @\u200bhere &lt;@\u200bU0BOSS&gt;");
    expect(text).not.toMatch(/<!channel>|<@U0BOSS>/);
    // Links only to GitHub and the run's own CI: the evil page is its words, not a link.
    expect(text).toContain("the evil page");
    expect(text).not.toContain("evil.example");
    // Cut: at most 300 characters of the summary.
    expect(text).not.toContain("x".repeat(300));
    // The first failure annotations, past the 55 warnings (the second page of 50), linked to the file.
    expect(text).toMatch(
      /<http:\/\/[^|]+\/acme\/cogs\/blob\/[0-9a-f]{40}\/src\/cogs\/mesh\.ts#L12\|src\/cogs\/mesh\.ts:12> — Expected 2 teeth, received 3 @\u200bacme\/reviewers/,
    );
    expect(text).toContain("src/cogs/gear.ts:40> — Timed out after 5000 ms");
    expect(text).not.toContain("src/lint/");

    const dm = await until(() => {
      const found = removals(world.slack.state.directChannel(ALICE)?.id, 41).filter((b) =>
        b.includes("2 tests failed"),
      );
      return found.length > 0 && found;
    });
    expect(dm[0]).toContain("src/cogs/mesh.ts:12> — Expected 2 teeth");

    const comment = await until(() => summary(COGS, 41));
    expect(comment).toContain("left the merge queue `default` without merging: its checks failed");
    expect(comment).toContain("**2 tests failed, 98 passed**");
    expect(comment).toMatch(
      /\[src\/cogs\/mesh\\\.ts\\:12\]\(http:\/\/[^)]+\/acme\/cogs\/blob\/[0-9a-f]{40}\/src\/cogs\/mesh\.ts#L12\) — Expected 2 teeth, received 3 @\u200bacme\/reviewers/,
    );
    expect(comment).toContain("@\u200bhere");
    expect(comment).not.toContain("evil.example");
    // The failed run was read once: its annotations, 50 a page, two pages.
    const reads = world.github.findRequests({ path: /\/acme\/cogs\/check-runs\/\d+\/annotations$/ });
    expect(reads.map((r) => [r.query.per_page, r.query.page])).toEqual([
      ["50", "1"],
      ["50", "2"],
    ]);
  });

  it("GitHub's merge queue: the merge group's failed check says why in the thread and the summary comment", async () => {
    await world.github.deliverIssueComment({
      repository: SHIPS,
      number: 11,
      body: "@yardmaster queue",
      author: "alice",
    });
    await until(() => world.github.mergeQueues.entries(SHIPS, "main").length === 1);
    world.github.mergeQueues.completeChecks(SHIPS, 11, { ci: "failure" });
    const [notice] = await until(() => {
      const found = removals(CHANNEL, 11).filter((b) => b.includes("Build failed"));
      return found.length > 0 && found;
    });
    expect(notice).toContain("its merge group's required checks failed");
    expect(notice).toContain("*Build failed: 1 error*");
    expect(notice).toContain("The hull does not compile on the merge group's commit.");
    expect(notice).toMatch(
      /\/acme\/ships\/blob\/[0-9a-f]{40}\/src\/hull\/plates\.rs#L57\|src\/hull\/plates\.rs:57> — mismatched types/,
    );
    expect(notice).toContain("src/hull/mod.rs:3>");

    const comment = await until(() => {
      const body = summary(SHIPS, 11);
      return body?.includes("Build failed") && body;
    });
    // GitHub Markdown, its punctuation escaped (GitHub shows "Build failed: 1 error" in bold).
    expect(comment).toContain("**Build failed\\: 1 error**");
    expect(comment).toMatch(
      /\[src\/hull\/plates\\\.rs\\:57\]\(http:\/\/[^)]+#L57\) — mismatched types\\: expected/,
    );
  });
});
