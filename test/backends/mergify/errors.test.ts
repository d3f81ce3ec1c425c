import nock from "nock";
import { describe, expect, it } from "vitest";
import { extractErrorDetail } from "../../../src/backends/mergify/http-status.js";
import {
  type CallRecord,
  MergeQueueError,
  MergeQueueErrorCode,
} from "../../../src/backends/mergify/index.js";
import { makeClient, ORIGIN, queueStatus, REPO, REPO_PATH, TOKEN } from "./fixtures.js";

const STATUS_PATH = `${REPO_PATH}/merge-queue/status`;

/** The error a call rejects with (fails the test if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<MergeQueueError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MergeQueueError);
  return error as MergeQueueError;
}

const noRetry = { retry: { retries: 0 } };

describe("error statuses", () => {
  it.each([
    [403, MergeQueueErrorCode.Forbidden],
    [401, MergeQueueErrorCode.Forbidden],
    [404, MergeQueueErrorCode.NotFound],
    [409, MergeQueueErrorCode.Conflict],
    [422, MergeQueueErrorCode.Invalid],
    [400, MergeQueueErrorCode.Invalid],
  ])("maps %i to %s with status and detail", async (status, code) => {
    nock(ORIGIN).get(STATUS_PATH).reply(status, { detail: "Nope, not for you" });
    const error = await rejection(makeClient().getStatus(REPO));
    expect(error.code).toBe(code);
    expect(error.status).toBe(status);
    expect(error.detail).toBe("Nope, not for you");
    expect(error.message).toContain(`${status}`);
    expect(error.message).toContain("Nope, not for you");
  });

  it("maps 404 on a pull request to NotInQueue", async () => {
    nock(ORIGIN)
      .get(`${REPO_PATH}/merge-queue/pull/42`)
      .reply(404, { detail: "Pull request not found in any merge queue" });
    const error = await rejection(makeClient().getPullRequest(REPO, 42));
    expect(error.code).toBe(MergeQueueErrorCode.NotInQueue);
    expect(error.message).toBe("pull request #42 is not in any merge queue");
    expect(error.status).toBe(404);
    expect(error.detail).toBe("Pull request not found in any merge queue");
  });

  it("keeps other errors of a pull request as they are", async () => {
    nock(ORIGIN).get(`${REPO_PATH}/merge-queue/pull/42`).reply(403, { detail: "forbidden" });
    const error = await rejection(makeClient().getPullRequest(REPO, 42));
    expect(error.code).toBe(MergeQueueErrorCode.Forbidden);
  });

  it("joins a FastAPI validation list into the detail", async () => {
    nock(ORIGIN)
      .put(`${REPO_PATH}/merge-queue/pause`)
      .reply(422, {
        detail: [
          {
            loc: ["body", "reason"],
            msg: "String should have at most 255 characters",
            type: "string_too_long",
          },
          { loc: ["path", "owner"], msg: "String should match pattern", type: "string_pattern_mismatch" },
        ],
      });
    const error = await rejection(makeClient().pause(REPO, "freeze"));
    expect(error.code).toBe(MergeQueueErrorCode.Invalid);
    expect(error.detail).toBe(
      "body.reason: String should have at most 255 characters; path.owner: String should match pattern",
    );
  });

  it("maps 500 to Unavailable", async () => {
    nock(ORIGIN).get(STATUS_PATH).reply(500, { detail: "Internal Server Error" });
    const error = await rejection(makeClient(noRetry).getStatus(REPO));
    expect(error.code).toBe(MergeQueueErrorCode.Unavailable);
    expect(error.status).toBe(500);
    expect(error.detail).toBe("Internal Server Error");
  });

  it("copes with an error body that is not JSON", async () => {
    nock(ORIGIN)
      .get(STATUS_PATH)
      .reply(502, "<html><body>Bad Gateway</body></html>", { "content-type": "text/html" });
    const error = await rejection(makeClient(noRetry).getStatus(REPO));
    expect(error.code).toBe(MergeQueueErrorCode.Unavailable);
    expect(error.status).toBe(502);
    expect(error.detail).toBeUndefined();
  });

  it("copes with a JSON error body without detail, and with an empty one", async () => {
    nock(ORIGIN).get(STATUS_PATH).reply(403, { message: "Bad credentials" });
    const first = await rejection(makeClient().getStatus(REPO));
    expect(first.code).toBe(MergeQueueErrorCode.Forbidden);
    expect(first.detail).toBeUndefined();

    nock(ORIGIN).get(STATUS_PATH).reply(409);
    const second = await rejection(makeClient().getStatus(REPO));
    expect(second.code).toBe(MergeQueueErrorCode.Conflict);
    expect(second.detail).toBeUndefined();
  });

  it("maps a network failure to Unavailable, without the token in the message", async () => {
    const calls: CallRecord[] = [];
    nock(ORIGIN).get(STATUS_PATH).replyWithError(`connect ECONNREFUSED (Bearer ${TOKEN})`);
    const error = await rejection(makeClient({ ...noRetry, onCall: (c) => calls.push(c) }).getStatus(REPO));
    expect(error.code).toBe(MergeQueueErrorCode.Unavailable);
    expect(error.status).toBeUndefined();
    expect(error.message).not.toContain(TOKEN);
    expect(calls.map((c) => c.status)).toEqual(["network"]);
  });

  it("maps a slow answer to Timeout", async () => {
    const calls: CallRecord[] = [];
    nock(ORIGIN).get(STATUS_PATH).delay(300).reply(200, queueStatus());
    const client = makeClient({ ...noRetry, timeoutMs: 30, onCall: (c) => calls.push(c) });
    const error = await rejection(client.getStatus(REPO));
    expect(error.code).toBe(MergeQueueErrorCode.Timeout);
    expect(error.message).toContain("timed out after 30 ms");
    expect(calls.map((c) => c.status)).toEqual(["timeout"]);
  });
});

describe("malformed success answers", () => {
  it("names the field path that failed", async () => {
    const body = queueStatus();
    (body.batches[0]?.status as { code: unknown }).code = 42;
    nock(ORIGIN).get(STATUS_PATH).reply(200, body);
    const error = await rejection(makeClient().getStatus(REPO));
    expect(error.code).toBe(MergeQueueErrorCode.MalformedResponse);
    expect(error.field).toBe("batches[0].status.code");
    expect(error.status).toBe(200);
    expect(error.message).toContain("batches[0].status.code");
  });

  it("names a missing required field", async () => {
    const { waiting_pull_requests: _, ...body } = queueStatus();
    nock(ORIGIN).get(STATUS_PATH).reply(200, body);
    const error = await rejection(makeClient().getStatus(REPO));
    expect(error.code).toBe(MergeQueueErrorCode.MalformedResponse);
    expect(error.field).toBe("waiting_pull_requests");
  });

  it("refuses a success body that is not JSON", async () => {
    nock(ORIGIN).get(STATUS_PATH).reply(200, "<html>maintenance</html>");
    const error = await rejection(makeClient().getStatus(REPO));
    expect(error.code).toBe(MergeQueueErrorCode.MalformedResponse);
    expect(error.field).toBe("(root)");
  });

  it("refuses an empty success body where JSON is expected", async () => {
    nock(ORIGIN).get(`${REPO_PATH}/merge-queue/pause`).reply(200);
    const error = await rejection(makeClient().getPause(REPO));
    expect(error.code).toBe(MergeQueueErrorCode.MalformedResponse);
  });
});

describe("extractErrorDetail", () => {
  it.each([
    ['{"detail": "text"}', "text"],
    ['{"detail": [{"loc": ["query", "per_page"], "msg": "too big"}]}', "query.per_page: too big"],
    ['{"detail": [{"msg": "no location"}, "plain"]}', "no location; plain"],
    ['{"detail": {"nested": true}}', undefined],
    ['{"detail": ""}', undefined],
    ['{"detail": []}', undefined],
    ["[1, 2]", undefined],
    ["null", undefined],
    ["not json", undefined],
    ["", undefined],
  ])("%s → %s", (body, expected) => {
    expect(extractErrorDetail(body)).toBe(expected);
  });

  it("cuts a very long detail", () => {
    const detail = extractErrorDetail(JSON.stringify({ detail: "x".repeat(5_000) }));
    expect(detail?.length).toBeLessThan(1_100);
  });
});
