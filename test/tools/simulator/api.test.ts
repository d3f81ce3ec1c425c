import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, start } from "./helpers.js";
import { branchesSchema, pauseSchema, pullDetailsSchema, statusSchema } from "./schemas.js";

let api: Api;

beforeAll(async () => {
  api = await start({ seed: "demo" });
});

afterAll(async () => {
  await api.sim.close();
});

interface ValidationDetail {
  detail: { loc: (string | number)[]; msg: string; type: string }[];
}

async function expect422(response: Response, loc: (string | number)[], type?: string): Promise<void> {
  expect(response.status).toBe(422);
  const body = (await response.json()) as ValidationDetail;
  expect(Array.isArray(body.detail)).toBe(true);
  const item = body.detail.find((candidate) => JSON.stringify(candidate.loc) === JSON.stringify(loc));
  expect(item, JSON.stringify(body)).toBeDefined();
  expect(typeof item?.msg).toBe("string");
  if (type !== undefined) expect(item?.type).toBe(type);
}

describe("authentication", () => {
  it("answers 403 with a detail without a token or with a wrong one", async () => {
    const none = await fetch(`${api.sim.apiUrl}/repos/acme/widgets/merge-queue/branches`);
    expect(none.status).toBe(403);
    expect(await none.json()).toEqual({ detail: expect.any(String) });
    const wrong = await api.send("GET", "/repos/acme/widgets/merge-queue/branches", undefined, "nope");
    expect(wrong.status).toBe(403);
    expect(((await wrong.json()) as { detail: string }).detail).toMatch(/token/i);
    const basic = await fetch(`${api.sim.apiUrl}/repos/acme/widgets/logs`, {
      headers: { authorization: "Basic dGVzdC10b2tlbg==" },
    });
    expect(basic.status).toBe(403);
  });

  it("checks the token on the control endpoints too", async () => {
    const response = await fetch(`${api.sim.url}/__sim/requests`);
    expect(response.status).toBe(403);
  });
});

describe("branches", () => {
  it("lists the branches with a merge queue", async () => {
    const body = branchesSchema.parse(await api.getJson("/repos/acme/widgets/merge-queue/branches"));
    expect(body.branches).toEqual(["main", "release/1.x"]);
  });

  it("answers 404 with a detail for an unknown repository", async () => {
    for (const path of [
      "/repos/acme/nothing/merge-queue/branches",
      "/repos/acme/nothing/merge-queue/status",
      "/repos/acme/nothing/merge-queue/pull/1",
      "/repos/acme/nothing/merge-queue/pause",
      "/repos/acme/nothing/logs",
    ]) {
      const response = await api.get(path);
      expect(response.status, path).toBe(404);
      expect(((await response.json()) as { detail: string }).detail).toContain("acme/nothing");
    }
  });

  it("finds a repository case-insensitively", async () => {
    const response = await api.get("/repos/ACME/Widgets/merge-queue/branches");
    expect(response.status).toBe(200);
  });

  it("answers 404 on an unknown route and 405 on a wrong method", async () => {
    expect((await api.get("/repos/acme/widgets/nothing")).status).toBe(404);
    const wrong = await api.send("POST", "/repos/acme/widgets/merge-queue/status", {});
    expect(wrong.status).toBe(405);
  });
});

describe("422 validation", () => {
  it("limits owner to 1-40 letters, digits and hyphens", async () => {
    await expect422(
      await api.get(`/repos/${"a".repeat(41)}/widgets/logs`),
      ["path", "owner"],
      "string_too_long",
    );
    await expect422(await api.get("/repos/ac_me/widgets/logs"), ["path", "owner"], "string_pattern_mismatch");
    await expect422(
      await api.get("/repos//widgets/merge-queue/status"),
      ["path", "owner"],
      "string_too_short",
    );
    expect((await api.get(`/repos/${"a".repeat(40)}/widgets/logs`)).status).toBe(404);
  });

  it("limits repository to 1-100 word characters, hyphens and dots", async () => {
    await expect422(
      await api.get(`/repos/acme/${"r".repeat(101)}/logs`),
      ["path", "repository"],
      "string_too_long",
    );
    await expect422(
      await api.get("/repos/acme/wid%20gets/logs"),
      ["path", "repository"],
      "string_pattern_mismatch",
    );
    expect((await api.get(`/repos/acme/${"r".repeat(100)}/logs`)).status).toBe(404);
    expect((await api.get("/repos/acme/my_repo.js-2/logs")).status).toBe(404);
  });

  it("requires the pause reason, at most 255 characters", async () => {
    await expect422(
      await api.send("PUT", "/repos/acme/widgets/merge-queue/pause", {}),
      ["body", "reason"],
      "missing",
    );
    await expect422(
      await api.send("PUT", "/repos/acme/widgets/merge-queue/pause", { reason: "x".repeat(256) }),
      ["body", "reason"],
      "string_too_long",
    );
    await expect422(
      await api.send("PUT", "/repos/acme/widgets/merge-queue/pause", { reason: 42 }),
      ["body", "reason"],
      "string_type",
    );
    await expect422(await api.send("PUT", "/repos/acme/widgets/merge-queue/pause"), ["body"], "missing");
    await expect422(await api.send("PUT", "/repos/acme/widgets/merge-queue/pause", "{not json"), ["body", 0]);
    expect((await api.getJson<{ paused: boolean }>("/repos/acme/widgets/merge-queue/pause")).paused).toBe(
      false,
    );
  });

  it("limits base_ref to 1-255 characters and per_page to 1-100", async () => {
    await expect422(
      await api.get("/repos/acme/widgets/logs?base_ref="),
      ["query", "base_ref"],
      "string_too_short",
    );
    await expect422(
      await api.get(`/repos/acme/widgets/logs?base_ref=${"b".repeat(256)}`),
      ["query", "base_ref"],
      "string_too_long",
    );
    await expect422(
      await api.get("/repos/acme/widgets/logs?per_page=0"),
      ["query", "per_page"],
      "greater_than_equal",
    );
    await expect422(
      await api.get("/repos/acme/widgets/logs?per_page=101"),
      ["query", "per_page"],
      "less_than_equal",
    );
    await expect422(
      await api.get("/repos/acme/widgets/logs?per_page=ten"),
      ["query", "per_page"],
      "int_parsing",
    );
    expect((await api.get("/repos/acme/widgets/logs?per_page=100")).status).toBe(200);
  });

  it("limits pull request numbers to integers from 0 to 9223372036854776000", async () => {
    await expect422(
      await api.get("/repos/acme/widgets/merge-queue/pull/-1"),
      ["path", "pr_number"],
      "greater_than_equal",
    );
    await expect422(
      await api.get("/repos/acme/widgets/merge-queue/pull/9223372036854776001"),
      ["path", "pr_number"],
      "less_than_equal",
    );
    await expect422(
      await api.get("/repos/acme/widgets/merge-queue/pull/1.5"),
      ["path", "pr_number"],
      "int_parsing",
    );
    await expect422(
      await api.get("/repos/acme/widgets/merge-queue/pull/abc"),
      ["path", "pr_number"],
      "int_parsing",
    );
    expect((await api.get("/repos/acme/widgets/merge-queue/pull/9223372036854776000")).status).toBe(404);
    expect((await api.get("/repos/acme/widgets/merge-queue/pull/0")).status).toBe(404);
    await expect422(
      await api.get("/repos/acme/widgets/logs?pull_request=1&pull_request=x"),
      ["query", "pull_request", 1],
      "int_parsing",
    );
    await expect422(await api.get("/repos/acme/widgets/logs?pull_request=-3"), ["query", "pull_request", 0]);
  });

  it("refuses bad dates and unknown event types", async () => {
    await expect422(await api.get("/repos/acme/widgets/logs?received_from=yesterday"), [
      "query",
      "received_from",
    ]);
    await expect422(await api.get("/repos/acme/widgets/logs?received_to=2024-13-01T00:00:00Z"), [
      "query",
      "received_to",
    ]);
    await expect422(
      await api.get("/repos/acme/widgets/logs?event_type=action.queue.enter&event_type=action.nope"),
      ["query", "event_type", 1],
      "enum",
    );
    await expect422(await api.get("/repos/acme/widgets/logs?cursor=garbage!"), ["query", "cursor"]);
  });

  it("reports every violated limit at once and validates before looking up the repository", async () => {
    const response = await api.get(`/repos/ac_me/nothing/logs?per_page=0&base_ref=`);
    expect(response.status).toBe(422);
    const body = (await response.json()) as ValidationDetail;
    expect(body.detail.map((item) => item.loc.join("."))).toEqual([
      "path.owner",
      "query.base_ref",
      "query.per_page",
    ]);
  });
});

describe("status", () => {
  it("serves the default branch's status without a branch, with every required field", async () => {
    const status = statusSchema.parse(await api.getJson("/repos/acme/widgets/merge-queue/status"));
    expect(status.mode).toBe("parallel");
    expect(status.pause).toBeNull();
    expect(status.batches.map((batch) => batch.status.code)).toEqual([
      "running",
      "bisecting",
      "waiting_for_previous_batches",
    ]);
    const [running, bisecting, waiting] = status.batches;
    expect(running?.pull_requests.map((pull) => pull.number)).toEqual([231, 233]);
    expect(bisecting?.sub_batches).toHaveLength(2);
    expect(bisecting?.parent_ids).toEqual([running?.id]);
    expect(waiting?.parent_ids).toEqual([running?.id, bisecting?.id]);
    expect(status.waiting_pull_requests.map((pull) => pull.number)).toEqual([237, 236, 238]);
    expect(status.scope_queues).toEqual({
      __default__: [running?.id, bisecting?.id],
      frontend: [waiting?.id],
    });
    const raw = await api.getJson("/repos/acme/widgets/merge-queue/status");
    const explicit = await api.getJson("/repos/acme/widgets/merge-queue/status?branch=main");
    expect(explicit).toEqual(raw);
  });

  it("serves another branch, and an empty status for a branch without a queue", async () => {
    const release = statusSchema.parse(
      await api.getJson("/repos/acme/widgets/merge-queue/status?branch=release/1.x"),
    );
    expect(release.batches.map((batch) => batch.pull_requests.map((pull) => pull.number))).toEqual([[240]]);
    expect(release.waiting_pull_requests.map((pull) => pull.number)).toEqual([241]);
    const none = statusSchema.parse(await api.getJson("/repos/acme/widgets/merge-queue/status?branch=nope"));
    expect(none.batches).toEqual([]);
    expect(none.waiting_pull_requests).toEqual([]);
  });
});

describe("pull request details", () => {
  it("serves every field for a pull request in a running batch", async () => {
    const details = pullDetailsSchema.parse(await api.getJson("/repos/acme/widgets/merge-queue/pull/233"));
    expect(details.number).toBe(233);
    expect(details.position).toBe(1);
    expect(details.queue_rule.name).toBe("default");
    expect(details.queue_rule_name).toBe("default");
    expect(details.mergeability_check?.check_type).toBe("draft_pr");
    expect(details.mergeability_check?.ci_state).toBe("pending");
    expect(details.mergeability_check?.checks.length).toBeGreaterThan(0);
    expect(details.mergeability_check?.conditions_evaluation?.subconditions?.length).toBeGreaterThan(0);
    expect(details.estimated_time_of_merge).not.toBeNull();
    expect(details.checks_timeout_at).not.toBeNull();
  });

  it("counts positions across batches then waiting pull requests", async () => {
    const positions: number[] = [];
    for (const number of [231, 233, 226, 228, 229, 234, 235, 237, 236, 238]) {
      const details = pullDetailsSchema.parse(
        await api.getJson(`/repos/acme/widgets/merge-queue/pull/${number}`),
      );
      positions.push(details.position);
    }
    expect(positions).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const waiting = pullDetailsSchema.parse(await api.getJson("/repos/acme/widgets/merge-queue/pull/238"));
    expect(waiting.mergeability_check).toBeNull();
    const release = pullDetailsSchema.parse(await api.getJson("/repos/acme/widgets/merge-queue/pull/241"));
    expect(release.position).toBe(1);
  });

  it("answers 404 with a detail for a pull request in no queue", async () => {
    const response = await api.get("/repos/acme/widgets/merge-queue/pull/101");
    expect(response.status).toBe(404);
    expect(((await response.json()) as { detail: string }).detail).toMatch(/#101/);
  });
});

describe("pause data", () => {
  it("is not paused at start", async () => {
    const pause = pauseSchema.parse(await api.getJson("/repos/acme/widgets/merge-queue/pause"));
    expect(pause).toEqual({ paused: false, reason: null, paused_at: null });
  });
});
