import nock from "nock";
import { describe, expect, it } from "vitest";
import { MergeQueueClient } from "../../../src/backends/mergify/index.js";
import { checkMergeQueueToken } from "../../../src/backends/mergify/setup-check.js";
import { Repo } from "../../../src/repo.js";

const BASE = "https://mq.test";
const client = new MergeQueueClient({ baseUrl: `${BASE}/v1`, token: "t", retry: { retries: 0 } });
const status = { batches: [], waiting_pull_requests: [], scope_queues: {} };
const repo = (name: string) => Repo.from(name);
const statusOf = (name: string) => `/v1/repos/${name}/merge-queue/status`;
const logsOf = (name: string) => `/v1/repos/${name}/logs`;
const emptyLog = { events: [], size: 0, per_page: 1, total: 0 };

describe("the merge-queue token check", () => {
  it("reads each subscribed repository's queue and event log, and explains 401, 403 and 404 per repository", async () => {
    nock(BASE)
      .get(statusOf("acme/ok"))
      .reply(200, status)
      .get(logsOf("acme/ok"))
      .query(true)
      .reply(200, emptyLog)
      .get(statusOf("acme/hidden"))
      .reply(403, { detail: "No access" })
      .get(statusOf("acme/unknown"))
      .reply(404, { detail: "Not Found" })
      .get(statusOf("acme/queue-only"))
      .reply(200, status)
      .get(logsOf("acme/queue-only"))
      .query(true)
      .reply(403, { detail: "Forbidden" });
    const lines = await checkMergeQueueToken(
      client,
      ["acme/ok", "acme/hidden", "acme/unknown", "acme/queue-only"].map(repo),
    );
    expect(lines.map((l) => [l.check, l.status])).toEqual([
      ["merge-queue token: acme/ok", "pass"],
      ["merge-queue token: acme/hidden", "fail"],
      ["merge-queue token: acme/unknown", "fail"],
      ["merge-queue token: acme/queue-only", "fail"],
    ]);
    expect(lines[1]?.message).toBe("the token may not read its queue (403: No access)");
    expect(lines[1]?.fix).toContain("access to this repository");
    expect(lines[2]?.message).toContain("does not know this repository (404");
    expect(lines[3]?.message).toContain("reads the queue but not the event log (403)");
  });

  it("says the token itself is refused on 401", async () => {
    nock(BASE).get(statusOf("acme/ok")).reply(401, { detail: "Invalid token" });
    const [line] = await checkMergeQueueToken(client, [repo("acme/ok")]);
    expect(line).toMatchObject({
      status: "fail",
      message: "the merge queue does not accept the token (401: Invalid token)",
    });
    expect(line?.fix).toContain("MERGE_QUEUE_API_TOKEN");
  });

  it("passes with nothing to read when no repository is subscribed", async () => {
    expect(await checkMergeQueueToken(client, [])).toMatchObject([{ status: "pass" }]);
  });
});
