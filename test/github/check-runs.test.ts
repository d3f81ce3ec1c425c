import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import type { QueueCheck } from "../../src/core/queue.js";
import { CheckRunReader } from "../../src/github/check-runs.js";
import { GitHubWrites } from "../../src/github/github-writes.js";
import type { Octokit } from "../../src/github/octokit-gateway.js";
import { blockPace, LocalWritePace } from "../../src/github/write-pace.js";
import { createLogger } from "../../src/logger.js";
import { Repo } from "../../src/repo.js";
import { TestOctokit } from "../helpers/github-app.js";

// Why a removal's checks failed, read from GitHub's check runs (HTTP mocked with nock).

const GH = "https://api.github.com";
const REPO = "/repos/acme/widgets";
const SHA = "a".repeat(40);
const DRAFT_SHA = "d".repeat(40);
const repo = Repo.from("acme/widgets");
const octokit = new TestOctokit({ auth: "token" }) as unknown as Octokit;

function reader(options: { timeoutMs?: number; pace?: GitHubWrites } = {}) {
  return new CheckRunReader({
    octokitFor: async () => octokit,
    githubWebUrl: "https://github.com",
    ...options,
  });
}

const check = (name: string, extra: Partial<QueueCheck> = {}): QueueCheck => ({
  name,
  url: `https://ci.example/${name}`,
  state: "failure",
  ...extra,
});

function run(id: number, name: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    name,
    head_sha: SHA,
    status: "completed",
    conclusion: "failure",
    html_url: `https://github.com/acme/widgets/runs/${id}`,
    details_url: `https://ci.example/job/${id}`,
    output: { title: `${name} failed`, summary: `**${name}**: 2 failures`, annotations_count: 0 },
    ...extra,
  };
}

function annotation(path: string, line: number, level = "failure", message = `broke at ${line}`) {
  return { path, start_line: line, end_line: line, annotation_level: level, message, title: "" };
}

afterEach(() => {
  nock.cleanAll();
});

describe("reading why a removal's checks failed", () => {
  it("reads the commit's check runs, their output and their first failure annotations, 50 a page", async () => {
    const runs = [
      run(1, "ci/test", {
        output: { title: "3 tests failed", summary: "## Failures", annotations_count: 60 },
      }),
    ];
    const api = nock(GH)
      .get(`${REPO}/commits/${SHA}/check-runs`)
      .query({ filter: "latest", per_page: "100", page: "1" })
      .reply(200, { total_count: 1, check_runs: runs })
      .get(`${REPO}/check-runs/1/annotations`)
      .query({ per_page: "50", page: "1" })
      .reply(200, [
        ...Array.from({ length: 49 }, (_, i) => annotation(`lint/${i}.ts`, i + 1, "warning")),
        annotation("src/a b.ts", 7),
      ])
      .get(`${REPO}/check-runs/1/annotations`)
      .query({ per_page: "50", page: "2" })
      .reply(200, [annotation("src/b.ts", 9), annotation("src/c.ts", 0), annotation("src/d.ts", 11)]);
    const details = await reader().failures(repo, { sha: SHA, pull: null }, [check("ci/test")]);
    expect(api.isDone()).toBe(true);
    expect(details).toEqual({
      more: 0,
      checks: [
        {
          name: "ci/test",
          kind: "check-run",
          conclusion: "failure",
          url: "https://github.com/acme/widgets/runs/1",
          detailsUrl: "https://ci.example/job/1",
          title: "3 tests failed",
          summary: "## Failures",
          description: null,
          annotations: [
            {
              path: "src/a b.ts",
              line: 7,
              message: "broke at 7",
              url: `https://github.com/acme/widgets/blob/${SHA}/src/a%20b.ts#L7`,
            },
            {
              path: "src/b.ts",
              line: 9,
              message: "broke at 9",
              url: `https://github.com/acme/widgets/blob/${SHA}/src/b.ts#L9`,
            },
            // An annotation without a line links to the file.
            {
              path: "src/c.ts",
              line: null,
              message: "broke at 0",
              url: `https://github.com/acme/widgets/blob/${SHA}/src/c.ts`,
            },
          ],
        },
      ],
    });
  });

  it("details three failed checks and counts the rest; one GitHub does not list is a status with its description", async () => {
    nock(GH)
      .get(`${REPO}/commits/${SHA}/check-runs`)
      .query(true)
      .reply(200, {
        total_count: 2,
        check_runs: [run(1, "ci/test"), run(2, "lint", { conclusion: "timed_out" })],
      });
    const checks = [
      check("ci/test"),
      check("ci/legacy", { description: "Jenkins: build #12 failed" }),
      check("lint", { state: "timed_out" }),
      check("docs"),
      check("e2e"),
    ];
    const details = await reader().failures(repo, { sha: SHA, pull: null }, checks);
    expect(details.more).toBe(2);
    expect(details.checks.map((c) => [c.name, c.kind, c.conclusion, c.title ?? c.description])).toEqual([
      ["ci/test", "check-run", "failure", "ci/test failed"],
      ["ci/legacy", "status", "failure", "Jenkins: build #12 failed"],
      ["lint", "check-run", "timed_out", "lint failed"],
    ]);
  });

  it("reads a batch's draft pull request's head, and each failed run once however many removals name it", async () => {
    const api = nock(GH)
      .get(`${REPO}/pulls/90001`)
      .reply(200, { number: 90001, head: { sha: DRAFT_SHA } })
      .get(`${REPO}/commits/${DRAFT_SHA}/check-runs`)
      .query(true)
      .reply(200, {
        total_count: 1,
        check_runs: [
          run(5, "ci/test", {
            head_sha: DRAFT_SHA,
            output: { title: "t", summary: "s", annotations_count: 1 },
          }),
        ],
      })
      .get(`${REPO}/check-runs/5/annotations`)
      .query(true)
      .reply(200, [annotation("src/x.ts", 3)])
      // The second removal asks for the draft's head again (its pull request's), not for its runs.
      .get(`${REPO}/pulls/90001`)
      .reply(200, { number: 90001, head: { sha: DRAFT_SHA } });
    const read = reader();
    const [a, b] = await Promise.all([
      read.failures(repo, { sha: SHA, pull: 90001 }, [check("ci/test")]),
      read.failures(repo, { sha: "b".repeat(40), pull: 90001 }, [check("ci/test")]),
    ]);
    expect(api.isDone()).toBe(true);
    expect(a).toEqual(b);
    expect(a.checks[0]?.annotations[0]?.url).toBe(
      `https://github.com/acme/widgets/blob/${DRAFT_SHA}/src/x.ts#L3`,
    );
  });

  it("throws when GitHub refuses (no checks: read), and reads again the next time", async () => {
    nock(GH)
      .get(`${REPO}/commits/${SHA}/check-runs`)
      .query(true)
      .reply(403, { message: "Resource not accessible by integration" })
      .get(`${REPO}/commits/${SHA}/check-runs`)
      .query(true)
      .reply(200, { total_count: 1, check_runs: [run(1, "ci/test")] });
    const read = reader();
    await expect(read.failures(repo, { sha: SHA, pull: null }, [check("ci/test")])).rejects.toMatchObject({
      status: 403,
    });
    const again = await read.failures(repo, { sha: SHA, pull: null }, [check("ci/test")]);
    expect(again.checks[0]?.title).toBe("ci/test failed");
  });

  it("reads within the app's shared pace: a rate limit met by a read holds every replica's calls", async () => {
    const pace = new LocalWritePace("replica-a");
    const writes = new GitHubWrites({ logger: createLogger({ level: "silent" }), pace });
    const blockedUntil = () => pace.update((state) => ({ state, result: state.blockedUntil }));
    nock(GH)
      .get(`${REPO}/commits/${SHA}/check-runs`)
      .query(true)
      .reply(429, { message: "You have exceeded a secondary rate limit" }, { "retry-after": "60" });
    const before = Date.now();
    await expect(
      reader({ pace: writes }).failures(repo, { sha: SHA, pull: null }, [check("ci/test")]),
    ).rejects.toMatchObject({ status: 429 });
    // Recorded in the pace every replica asks: no write nor read for a minute.
    expect(await blockedUntil()).toBeGreaterThanOrEqual(before + 60_000);
    expect(writes.stats.rateLimited).toBe(1);
  });

  it("waits out a rate limit another replica met before it reads", async () => {
    const pace = new LocalWritePace("replica-a");
    const writes = new GitHubWrites({ logger: createLogger({ level: "silent" }), pace });
    const until = Date.now() + 300;
    await pace.update((state) => blockPace(state, until));
    let askedAt = 0;
    nock(GH)
      .get(`${REPO}/commits/${SHA}/check-runs`)
      .query(true)
      .reply(() => {
        askedAt = Date.now();
        return [200, { total_count: 1, check_runs: [run(1, "ci/test")] }];
      });
    const details = await reader({ pace: writes }).failures(repo, { sha: SHA, pull: null }, [
      check("ci/test"),
    ]);
    expect(details.checks[0]?.title).toBe("ci/test failed");
    expect(askedAt).toBeGreaterThanOrEqual(until);
  });

  it("gives up after its time limit", async () => {
    nock(GH)
      .get(`${REPO}/commits/${SHA}/check-runs`)
      .query(true)
      .delay(2_000)
      .reply(200, { total_count: 0, check_runs: [] });
    await expect(
      reader({ timeoutMs: 100 }).failures(repo, { sha: SHA, pull: null }, [check("ci/test")]),
    ).rejects.toThrow();
  });

  it("without a commit to read, says what the backend said (no GitHub call)", async () => {
    const details = await reader().failures(repo, null, [
      check("ci/test", { description: "3 tests failed" }),
    ]);
    expect(details.checks[0]).toMatchObject({ kind: "status", description: "3 tests failed", title: null });
  });
});
