import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Actor } from "../../src/commands/command.js";
import { describeResult } from "../../src/commands/describe.js";
import { CommandError, CommandErrorCode } from "../../src/commands/errors.js";
import type { GitHubGateway, Ports } from "../../src/commands/ports.js";
import { execute } from "../../src/commands/run.js";
import { Repo } from "../../src/repo.js";
import { plainFormat } from "../../src/slack/mrkdwn.js";
import { openStore, type Store } from "../../src/store/index.js";
import { markdownFormat } from "../../src/wording/markdown.js";
import { makeClient, mergifyQueues, ORIGIN } from "../backends/mergify/fixtures.js";

const repo = Repo.of("acme", "widgets");
const PATH = "/v1/repos/acme/widgets/merge-queue/pause";
const NOW = new Date("2026-11-23T16:40:00Z");
const alice: Actor = { surface: "github", githubLogin: "alice", display: "alice" };
const slackAlice: Actor = {
  surface: "slack",
  githubLogin: "alice",
  display: "<@U1>",
  slack: { teamId: "T1", userId: "U1", channelId: "C1" },
};
const github: GitHubGateway = {
  permission: async () => "write",
  pullRequest: async () => null,
  comment: async () => ({ id: 1, url: "x" }),
};

let store: Store;
const zonesAsked: string[] = [];

beforeEach(async () => {
  store = await openStore({ kind: "sqlite", path: ":memory:" });
  zonesAsked.length = 0;
});
afterEach(async () => {
  await store.close();
});

function ports(zone: string | null = null): Ports {
  return {
    github,
    queues: mergifyQueues(makeClient({ retry: { retries: 0 }, timeoutMs: 5_000 })),
    commandPrefix: "@mergifyio",
    now: () => NOW,
    attributePause: (a) => store.putPauseAttribution(a),
    pauseAttribution: (r) => store.getPauseAttribution(r),
    unpauseSchedule: {
      now: () => NOW,
      put: (u) => store.putScheduledUnpause(u),
      cancel: (r) => store.deleteScheduledUnpause(r),
    },
    slackTimeZone: async ({ userId }) => {
      zonesAsked.push(userId);
      return zone;
    },
  };
}

function paused(reason: string) {
  return { paused: true, reason, paused_at: NOW.toISOString() };
}

function words(result: Awaited<ReturnType<typeof execute>>, surface: "github" | "slack", now = NOW): string {
  const f = surface === "github" ? markdownFormat("yardmaster") : plainFormat();
  return describeResult(result, { surface, now, githubWebUrl: "https://github.com" }).summary(f);
}

describe("a timed pause", () => {
  it("pauses, keeps when it ends, and says so", async () => {
    const put = nock(ORIGIN).put(PATH, { reason: "release freeze" }).reply(200, paused("release freeze"));
    const result = await execute(
      { name: "pause", repo, reason: "release freeze", resume: { kind: "for", ms: 80 * 60_000 } },
      alice,
      ports(),
    );
    expect(put.isDone()).toBe(true);
    expect(await store.getScheduledUnpause(repo)).toEqual({
      repository: repo,
      reason: "release freeze",
      resumesAt: new Date("2026-11-23T18:00:00Z"),
      scheduledBy: "alice",
      surface: "github",
      createdAt: NOW,
    });
    expect(await store.getPauseAttribution(repo)).toMatchObject({
      action: "pause",
      resumesAt: new Date("2026-11-23T18:00:00Z"),
    });
    expect(words(result, "github")).toContain(
      "is **paused**: release freeze · resumes at 18:00 UTC (in 1 h 20 min)",
    );
  });

  it("reads a bare time in the Slack user's zone, and shows it in both", async () => {
    nock(ORIGIN).put(PATH).reply(200, paused("freeze"));
    const result = await execute(
      {
        name: "pause",
        repo,
        reason: "freeze",
        resume: { kind: "until", date: null, hour: 18, minute: 0, zone: null },
      },
      slackAlice,
      ports("Europe/Paris"),
    );
    expect(zonesAsked).toEqual(["U1"]);
    expect((await store.getScheduledUnpause(repo))?.resumesAt).toEqual(new Date("2026-11-23T17:00:00Z"));
    expect(words(result, "slack")).toContain("freeze · resumes at 17:00 UTC (18:00 Europe/Paris, in 20 min)");
  });

  it("reads it in UTC on GitHub, and when Slack does not say", async () => {
    nock(ORIGIN).put(PATH).times(2).reply(200, paused("freeze"));
    const until = { kind: "until" as const, date: null, hour: 18, minute: 0, zone: null };
    await execute({ name: "pause", repo, reason: "freeze", resume: until }, alice, ports("Europe/Paris"));
    expect(zonesAsked).toEqual([]);
    expect((await store.getScheduledUnpause(repo))?.resumesAt).toEqual(new Date("2026-11-23T18:00:00Z"));
    await execute({ name: "pause", repo, reason: "freeze", resume: until }, slackAlice, ports(null));
    expect((await store.getScheduledUnpause(repo))?.resumesAt).toEqual(new Date("2026-11-23T18:00:00Z"));
  });

  it("refuses a time past, calling nothing", async () => {
    let error: unknown;
    try {
      await execute(
        {
          name: "pause",
          repo,
          reason: "freeze",
          resume: { kind: "until", date: { year: 2026, month: 11, day: 1 }, hour: 9, minute: 0, zone: null },
        },
        alice,
        ports(),
      );
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CommandError);
    expect((error as CommandError).code).toBe(CommandErrorCode.InvalidArgument);
    expect((error as CommandError).details.detail).toContain("2026-11-01 09:00 UTC is in the past");
    expect(await store.getScheduledUnpause(repo)).toBeNull();
  });

  it("says so when the pause happened but its end could not be kept", async () => {
    nock(ORIGIN).put(PATH).reply(200, paused("freeze"));
    const broken: Ports = {
      ...ports(),
      unpauseSchedule: {
        now: () => NOW,
        put: async () => {
          throw new Error("database is gone");
        },
        cancel: async () => false,
      },
    };
    let error: unknown;
    try {
      await execute(
        { name: "pause", repo, reason: "freeze", resume: { kind: "for", ms: 60_000 } },
        alice,
        broken,
      );
    } catch (e) {
      error = e;
    }
    expect((error as CommandError).code).toBe(CommandErrorCode.Unavailable);
    expect((error as CommandError).details.detail).toBe(
      "the merge queue of acme/widgets is paused, but Yardmaster could not keep when it ends: unpause it by hand",
    );
  });

  it("is replaced by a pause without an end, and cancelled by an unpause", async () => {
    nock(ORIGIN).put(PATH).times(3).reply(200, paused("freeze")).delete(PATH).reply(204);
    const timed = {
      name: "pause" as const,
      repo,
      reason: "freeze",
      resume: { kind: "for" as const, ms: 3_600_000 },
    };
    await execute(timed, alice, ports());
    await execute({ name: "pause", repo, reason: "freeze" }, alice, ports());
    expect(await store.getScheduledUnpause(repo)).toBeNull();
    expect((await store.getPauseAttribution(repo))?.resumesAt).toBeNull();
    await execute(timed, alice, ports());
    expect(await store.getScheduledUnpause(repo)).not.toBeNull();
    await execute({ name: "unpause", repo }, alice, ports());
    expect(await store.getScheduledUnpause(repo)).toBeNull();
  });
});

describe("status of a timed pause", () => {
  const status = (reason: string) => ({
    batches: [],
    waiting_pull_requests: [],
    scope_queues: {},
    pause: paused(reason),
  });

  it("says who paused and when it resumes, while the pause is theirs", async () => {
    nock(ORIGIN).put(PATH).reply(200, paused("release freeze"));
    await execute(
      { name: "pause", repo, reason: "release freeze", resume: { kind: "for", ms: 80 * 60_000 } },
      alice,
      ports(),
    );
    nock(ORIGIN).get("/v1/repos/acme/widgets/merge-queue/status").reply(200, status("release freeze"));
    const result = await execute({ name: "status", repo }, alice, ports());
    expect(words(result, "slack")).toContain(
      "paused by alice since 2026-11-23 16:40 UTC: release freeze · resumes at 18:00 UTC (in 1 h 20 min)",
    );
    // Paused again by someone else, for another reason: neither alice nor the end is theirs.
    nock(ORIGIN).get("/v1/repos/acme/widgets/merge-queue/status").reply(200, status("incident"));
    const other = await execute({ name: "status", repo }, alice, ports());
    expect(words(other, "slack")).toContain("paused since 2026-11-23 16:40 UTC: incident;");
  });
});
