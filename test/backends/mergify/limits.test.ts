import nock from "nock";
import { describe, expect, it } from "vitest";
import {
  branchSchema,
  type MergeQueueClient,
  MergeQueueError,
  MergeQueueErrorCode,
  ownerSchema,
  pauseReasonSchema,
  pullNumberSchema,
  repositorySchema,
} from "../../../src/backends/mergify/index.js";
import { Repo } from "../../../src/repo.js";
import {
  eventsBody,
  makeClient,
  ORIGIN,
  pauseState,
  pullRequestDetails,
  queueStatus,
  REPO,
} from "./fixtures.js";

/** A catch-all scope: the refused call must not reach it. */
function anyRequest() {
  return nock(ORIGIN).get(/.*/).reply(200, {}).put(/.*/).reply(200, {}).delete(/.*/).reply(204);
}

async function expectRefused(
  call: (client: MergeQueueClient) => Promise<unknown>,
  field: string,
  message: string,
) {
  const scope = anyRequest();
  const error = await call(makeClient()).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(MergeQueueError);
  expect((error as MergeQueueError).code).toBe(MergeQueueErrorCode.InvalidInput);
  expect((error as MergeQueueError).field).toBe(field);
  expect((error as MergeQueueError).message).toBe(message);
  expect(scope.pendingMocks()).toHaveLength(3);
}

const OWNER = 'owner must be 1 to 40 letters, digits or "-"';
const REPOSITORY = 'repository must be 1 to 100 letters, digits, "_", "-" or "." (and not "." or "..")';
const BRANCH = "branch must be 1 to 255 characters, without spaces or control characters";
const BASE_REF = "base_ref must be 1 to 255 characters, without spaces or control characters";
const REASON = "pause reason must be 1 to 255 characters";
const PER_PAGE = "per_page must be a whole number from 1 to 100";
const PULL = "pull request number must be a whole number from 0 to 9007199254740991";

/** A repository that skipped Repo's own checks: the client checks again before sending. */
function forged(owner: string, name: string): Repo {
  return { owner, name, fullName: `${owner}/${name}` } as unknown as Repo;
}

describe("owner and repository", () => {
  it("accepts the longest owner and repository", async () => {
    const repo = Repo.of("o".repeat(40), `${"r".repeat(97)}._-`);
    const scope = nock(ORIGIN).get(`/v1/repos/${repo.owner}/${repo.name}/merge-queue/branches`).reply(200, {
      branches: [],
    });
    await makeClient().listBranches(repo);
    expect(scope.isDone()).toBe(true);
  });

  it.each([
    ["41 characters", "o".repeat(41)],
    ["empty", ""],
    ["an underscore", "my_org"],
    ["a slash", "acme/evil"],
    ["a space", "ac me"],
  ])("refuses an owner with %s", async (_, owner) => {
    await expectRefused((c) => c.listBranches(forged(owner, "widgets")), "owner", OWNER);
  });

  it.each([
    ["101 characters", "r".repeat(101)],
    ["empty", ""],
    ["a slash", "widgets/../x"],
    ["a percent sign", "wid%2Fgets"],
    ["only a dot", "."],
    ["two dots", ".."],
  ])("refuses a repository with %s", async (_, repo) => {
    await expectRefused((c) => c.getStatus(forged("acme", repo)), "repository", REPOSITORY);
  });

  it("refuses a missing repository reference", async () => {
    await expectRefused((c) => c.getPause(undefined as never), "owner", OWNER);
  });
});

describe("pause reason", () => {
  it("accepts 255 characters, counting characters not UTF-16 units, after trimming", async () => {
    const reason = "🚦".repeat(255);
    let sent: unknown;
    nock(ORIGIN)
      .put("/v1/repos/acme/widgets/merge-queue/pause", (body) => {
        sent = body;
        return true;
      })
      .reply(200, pauseState());
    await makeClient().pause(REPO, `   ${reason}   `);
    expect(sent).toEqual({ reason });
  });

  it.each([
    ["256 characters", "x".repeat(256)],
    ["only white space", "   \n\t "],
    ["nothing", ""],
  ])("refuses %s", async (_, reason) => {
    await expectRefused((c) => c.pause(REPO, reason), "reason", REASON);
  });
});

describe("branch and base_ref", () => {
  it("accepts a 255-character branch", async () => {
    const branch = `release/${"b".repeat(247)}`;
    const scope = nock(ORIGIN)
      .get("/v1/repos/acme/widgets/merge-queue/status")
      .query({ branch })
      .reply(200, queueStatus());
    await makeClient().getStatus(REPO, { branch });
    expect(scope.isDone()).toBe(true);
  });

  it.each([
    ["256 characters", "b".repeat(256)],
    ["nothing", ""],
    ["a space", "my branch"],
    ["a newline", "main\n"],
  ])("refuses a branch of %s", async (_, branch) => {
    await expectRefused((c) => c.getStatus(REPO, { branch }), "branch", BRANCH);
  });

  it("accepts a 255-character base_ref and refuses 256", async () => {
    const baseRef = "b".repeat(255);
    const scope = nock(ORIGIN)
      .get("/v1/repos/acme/widgets/logs")
      .query({ base_ref: baseRef })
      .reply(200, eventsBody([]));
    await makeClient().getEventsPage(REPO, { baseRef });
    expect(scope.isDone()).toBe(true);
    await expectRefused((c) => c.getEventsPage(REPO, { baseRef: `${baseRef}b` }), "base_ref", BASE_REF);
  });
});

describe("per_page", () => {
  it("accepts 1 and 100", async () => {
    for (const perPage of [1, 100]) {
      const scope = nock(ORIGIN)
        .get("/v1/repos/acme/widgets/logs")
        .query({ per_page: String(perPage) })
        .reply(200, eventsBody([], perPage));
      await makeClient().getEventsPage(REPO, { perPage });
      expect(scope.isDone()).toBe(true);
    }
  });

  it.each([0, 101, 1.5, Number.NaN])("refuses %s", async (perPage) => {
    await expectRefused((c) => c.getEventsPage(REPO, { perPage }), "per_page", PER_PAGE);
  });
});

describe("pull request numbers", () => {
  it("accepts 0 and 2^53-1 exactly, never rounded", async () => {
    for (const number of [0, Number.MAX_SAFE_INTEGER]) {
      const scope = nock(ORIGIN)
        .get(`/v1/repos/acme/widgets/merge-queue/pull/${number}`)
        .reply(200, pullRequestDetails(number));
      await makeClient().getPullRequest(REPO, number);
      expect(scope.isDone()).toBe(true);
    }
    expect(String(Number.MAX_SAFE_INTEGER)).toBe("9007199254740991");
  });

  it.each([2 ** 53, 2 ** 53 + 2, 2 ** 63, -1, 1.5, Number.POSITIVE_INFINITY, Number.NaN])(
    "refuses %s",
    async (n) => {
      await expectRefused((c) => c.getPullRequest(REPO, n), "pull_request", PULL);
    },
  );

  it("checks every pull request number of an event query, naming the one at fault", async () => {
    await expectRefused(
      (c) => c.getEventsPage(REPO, { pullRequests: [1, 2, 2 ** 53] }),
      "pull_request[2]",
      PULL,
    );
  });
});

describe("event query", () => {
  it("refuses an unreadable time and a reversed range", async () => {
    await expectRefused(
      (c) => c.getEventsPage(REPO, { receivedFrom: "yesterday-ish" }),
      "received_from",
      "received_from must be a valid date",
    );
    await expectRefused(
      (c) => c.getEventsPage(REPO, { receivedTo: new Date(Number.NaN) }),
      "received_to",
      "received_to must be a valid date",
    );
    await expectRefused(
      (c) =>
        c.getEventsPage(REPO, { receivedFrom: "2025-11-05T12:00:00Z", receivedTo: "2025-11-05T11:00:00Z" }),
      "received_from",
      "received_from must not be after received_to",
    );
  });

  it("refuses an empty event type", async () => {
    await expectRefused(
      (c) => c.iterateEvents(REPO, { eventTypes: ["action.queue.enter", ""] }).next(),
      "event_type[1]",
      "event type must be a non-empty string",
    );
  });
});

describe("limit schemas, for reuse by the command layer", () => {
  it("carry messages that name the field and the limit", () => {
    expect(ownerSchema.safeParse("a".repeat(41)).error?.issues[0]?.message).toBe(OWNER);
    expect(repositorySchema.safeParse("").error?.issues[0]?.message).toBe(REPOSITORY);
    expect(branchSchema.safeParse("").error?.issues[0]?.message).toBe(BRANCH);
    expect(pauseReasonSchema.safeParse(" ").error?.issues[0]?.message).toBe(REASON);
    expect(pullNumberSchema.safeParse(2 ** 53).error?.issues[0]?.message).toBe(PULL);
  });

  it("trim the pause reason", () => {
    expect(pauseReasonSchema.parse("  freeze for release  ")).toBe("freeze for release");
  });
});
