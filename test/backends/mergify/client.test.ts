import nock from "nock";
import { describe, expect, it } from "vitest";
import {
  type CallRecord,
  MergeQueueError,
  MergeQueueErrorCode,
} from "../../../src/backends/mergify/index.js";
import {
  BASE_URL,
  eventsBody,
  makeClient,
  ORIGIN,
  pauseCreateEvent,
  pauseState,
  pullRequestDetails,
  queueEnterEvent,
  queueStatus,
  REPO,
  REPO_PATH,
  TOKEN,
} from "./fixtures.js";

function api() {
  return nock(ORIGIN, {
    reqheaders: { authorization: `Bearer ${TOKEN}`, accept: "application/json", "user-agent": "yardmaster" },
  });
}

describe("MergeQueueClient endpoints", () => {
  it("lists branches with active merge queues", async () => {
    const scope = api()
      .get(`${REPO_PATH}/merge-queue/branches`)
      .reply(200, { branches: ["main", "release/1.x"] });
    await expect(makeClient().listBranches(REPO)).resolves.toEqual(["main", "release/1.x"]);
    expect(scope.isDone()).toBe(true);
  });

  it("reads the status without a branch, parsing batches, sub-batches and waiting pull requests", async () => {
    const scope = api().get(`${REPO_PATH}/merge-queue/status`).reply(200, queueStatus());
    const status = await makeClient().getStatus(REPO);
    expect(scope.isDone()).toBe(true);
    expect(status.mode).toBe("parallel");
    expect(status.batches).toHaveLength(2);
    expect(status.batches[0]?.pull_requests[0]?.author.login).toBe("james");
    expect(status.batches[1]?.status.code).toBe("bisecting");
    expect(status.batches[1]?.sub_batches?.[1]?.pull_requests[0]?.number).toBe(1422);
    expect(status.waiting_pull_requests[0]?.number).toBe(1430);
    expect(status.scope_queues?.__default__).toHaveLength(2);
    expect(status.pause).toBeNull();
  });

  it("sends the branch in the query string, encoded", async () => {
    const scope = api()
      .get(`${REPO_PATH}/merge-queue/status`)
      .query({ branch: "feature/a+b&c=d" })
      .reply(200, queueStatus());
    await makeClient().getStatus(REPO, { branch: "feature/a+b&c=d" });
    expect(scope.isDone()).toBe(true);
  });

  it("tolerates a trailing slash on the base URL and sets a custom user agent", async () => {
    const scope = nock(ORIGIN, { reqheaders: { "user-agent": "yardmaster-test/1.0" } })
      .get(`${REPO_PATH}/merge-queue/branches`)
      .reply(200, { branches: [] });
    const client = makeClient({ baseUrl: `${BASE_URL}/`, userAgent: "yardmaster-test/1.0" });
    await expect(client.listBranches(REPO)).resolves.toEqual([]);
    expect(scope.isDone()).toBe(true);
  });

  it("works against a loopback base URL with a port (the simulator)", async () => {
    const scope = nock("http://127.0.0.1:4010")
      .get("/v1/repos/acme/widgets/merge-queue/branches")
      .reply(200, {
        branches: ["main"],
      });
    const client = makeClient({ baseUrl: "http://127.0.0.1:4010/v1" });
    await expect(client.listBranches(REPO)).resolves.toEqual(["main"]);
    expect(scope.isDone()).toBe(true);
  });

  it("reads one pull request's queue details", async () => {
    const scope = api().get(`${REPO_PATH}/merge-queue/pull/42`).reply(200, pullRequestDetails(42));
    const details = await makeClient().getPullRequest(REPO, 42);
    expect(scope.isDone()).toBe(true);
    expect(details.position).toBe(0);
    expect(details.mergeability_check?.checks[0]?.name).toBe("ci/test");
    expect(
      details.mergeability_check?.conditions_evaluation?.subconditions?.[0]?.evaluations?.[0],
    ).toMatchObject({
      related_checks: ["ci/test"],
    });
    expect(details.queue_rule.config).toEqual({ batch_size: 5, merge_method: "squash" });
  });

  it("pauses with a JSON body carrying the trimmed reason", async () => {
    let sent: unknown;
    const scope = api()
      .matchHeader("content-type", "application/json")
      .put(`${REPO_PATH}/merge-queue/pause`, (body) => {
        sent = body;
        return true;
      })
      .reply(200, pauseState());
    const state = await makeClient().pause(REPO, "  release freeze \n");
    expect(scope.isDone()).toBe(true);
    expect(sent).toEqual({ reason: "release freeze" });
    expect(state).toEqual(pauseState());
  });

  it("unpauses: DELETE answered 204 with no body", async () => {
    const scope = api().delete(`${REPO_PATH}/merge-queue/pause`).reply(204);
    await expect(makeClient().unpause(REPO)).resolves.toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it("reads the pause data, with nullable fields absent", async () => {
    const scope = api().get(`${REPO_PATH}/merge-queue/pause`).reply(200, { paused: false });
    await expect(makeClient().getPause(REPO)).resolves.toEqual({ paused: false });
    expect(scope.isDone()).toBe(true);
  });

  it("reads an events page with repeated filters, ISO times and per_page", async () => {
    let query: unknown;
    const scope = api()
      .get(`${REPO_PATH}/logs`)
      .query((q) => {
        query = q;
        return true;
      })
      .reply(200, eventsBody([queueEnterEvent(), pauseCreateEvent()], 50));
    const page = await makeClient().getEventsPage(REPO, {
      pullRequests: [42, 43, 42],
      eventTypes: ["action.queue.enter", "queue.pause.create"],
      baseRef: "main",
      receivedFrom: new Date("2025-11-05T13:00:00Z"),
      receivedTo: "2025-11-05T16:00:00+01:00",
      perPage: 50,
    });
    expect(scope.isDone()).toBe(true);
    expect(query).toEqual({
      pull_request: ["42", "43"],
      event_type: ["action.queue.enter", "queue.pause.create"],
      base_ref: "main",
      received_from: "2025-11-05T13:00:00.000Z",
      received_to: "2025-11-05T15:00:00.000Z",
      per_page: "50",
    });
    expect(page).toMatchObject({ size: 2, perPage: 50, next: null, prev: null });
    expect(page.events.map((event) => event.type)).toEqual(["action.queue.enter", "queue.pause.create"]);
  });

  it("sends no query string for an empty event query", async () => {
    const scope = api().get(`${REPO_PATH}/logs`).reply(200, eventsBody([]));
    await expect(makeClient().getEventsPage(REPO, {})).resolves.toMatchObject({ events: [], next: null });
    expect(scope.isDone()).toBe(true);
  });

  it("reports every attempt to onCall with the templated route", async () => {
    const calls: CallRecord[] = [];
    nock(ORIGIN).get(`${REPO_PATH}/merge-queue/pull/7`).reply(200, pullRequestDetails(7));
    await makeClient({ onCall: (call) => calls.push(call) }).getPullRequest(REPO, 7);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      method: "GET",
      route: "/repos/{owner}/{repository}/merge-queue/pull/{pr_number}",
      status: 200,
    });
    expect(calls[0]?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("is not broken by an onCall that throws", async () => {
    nock(ORIGIN).get(`${REPO_PATH}/merge-queue/branches`).reply(200, { branches: [] });
    const client = makeClient({
      onCall: () => {
        throw new Error("metrics down");
      },
    });
    await expect(client.listBranches(REPO)).resolves.toEqual([]);
  });

  it("refuses bad options at construction", () => {
    for (const options of [
      { baseUrl: "not a url" },
      { baseUrl: "ftp://api.mergify.com/v1" },
      { token: "" },
      { token: "a\r\nX-Evil: 1" },
      { timeoutMs: 0 },
    ]) {
      expect(() => makeClient(options)).toThrow(MergeQueueError);
      try {
        makeClient(options);
      } catch (error) {
        expect((error as MergeQueueError).code).toBe(MergeQueueErrorCode.InvalidInput);
      }
    }
  });
});
