import { verify } from "@octokit/webhooks-methods";
import { afterEach, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../../../tools/simulator/index.js";
import type { GitHubStandIn, GitHubStandInOptions } from "../../../../tools/stand-ins/github/index.js";
import {
  appOctokit,
  type ReceivedRequest,
  startReceiver,
  startSeededStandIn,
  WEBHOOK_SECRET,
} from "./helpers.js";

const REPO = "acme/widgets";
const HEAD_SHA = "a".repeat(40);

// biome-ignore lint/suspicious/noExplicitAny: payloads are checked with toMatchObject
type Payload = Record<string, any>;

interface Setup {
  sim: Simulator;
  standIn: GitHubStandIn;
  receiver: Awaited<ReturnType<typeof startReceiver>>;
  unfollow: () => void;
}

let open: Setup | undefined;
afterEach(async () => {
  if (!open) return;
  await open.standIn.close();
  await open.sim.close();
  await open.receiver.close();
  open = undefined;
});

/**
 * The seeded stand-in (acme/widgets, pull request #1 by alice on `sprockets` at HEAD_SHA) following a
 * simulator on a manual clock with acme/widgets, whose checks last 1 s and whose batches start at once.
 */
async function setup(
  options: { batchSize?: number; batchMaxWaitMs?: number; standIn?: Partial<GitHubStandInOptions> } = {},
): Promise<Setup> {
  const receiver = await startReceiver();
  const standIn = await startSeededStandIn({
    webhookUrl: `${receiver.url}/api/github/webhooks`,
    ...options.standIn,
  });
  const sim = await startSimulator({
    token: "t",
    engine: {
      batchSize: options.batchSize ?? 1,
      batchMaxWaitMs: options.batchMaxWaitMs ?? 0,
      checksDurationMs: 1_000,
    },
  });
  sim.state.addRepository(REPO);
  const unfollow = standIn.followMergeQueue(sim.state.log);
  open = { sim, standIn, receiver, unfollow };
  return open;
}

function queue(sim: Simulator, number: number, extra: { checks?: "success" | "failure" } = {}) {
  const result = sim.state.relayCommand(REPO, {
    body: "@mergifyio queue",
    pull_request: {
      number,
      title: `Change ${number}`,
      author: { id: 501, login: "alice" },
      base_ref: "main",
      ...(number === 1 ? { head_sha: HEAD_SHA } : {}),
      ...extra,
    },
  });
  expect(result.accepted).toBe(true);
}

const payloadOf = (request: ReceivedRequest): Payload => JSON.parse(request.body) as Payload;

/** `event action [check name] #number` of each delivery, in the order received. */
function summary(received: ReceivedRequest[]): string[] {
  return received.map((request) => {
    const event = String(request.headers["x-github-event"]);
    const payload = payloadOf(request);
    if (event === "check_run") {
      const run = payload.check_run;
      const conclusion = run.conclusion ? ` ${run.conclusion}` : "";
      return `check_run ${payload.action} ${run.name}${conclusion} #${run.pull_requests[0].number}`;
    }
    if (event === "check_suite") {
      const suite = payload.check_suite;
      return `check_suite ${payload.action} ${suite.conclusion} #${suite.pull_requests[0].number}`;
    }
    return `${event} ${payload.action} #${payload.number}`;
  });
}

describe("GitHub stand-in: webhooks as the merge queue moves", () => {
  it("announces a pull request's way through the queue with signed check_run and pull_request webhooks", async () => {
    const { sim, standIn, receiver } = await setup();
    queue(sim, 1);
    sim.clock.advance(1_000);
    await standIn.settle();

    expect(summary(receiver.received)).toEqual([
      "check_run created Rule: default (queue) #1",
      "check_run created Queue: Embarked in merge queue #1",
      "check_run completed Queue: Embarked in merge queue success #1",
      "pull_request closed #1",
      "check_run completed Rule: default (queue) success #1",
      "check_suite completed success #1",
    ]);
    for (const request of receiver.received) {
      const signature = String(request.headers["x-hub-signature-256"]);
      expect(await verify(WEBHOOK_SECRET, request.body, signature)).toBe(true);
      expect(request.headers).toMatchObject({
        "x-github-delivery": expect.any(String),
        "x-github-hook-installation-target-id": "4242",
        "user-agent": expect.stringMatching(/^GitHub-Hookshot\//),
      });
      expect(payloadOf(request)).toMatchObject({
        repository: { full_name: REPO, owner: { login: "acme" } },
        organization: { login: "acme" },
        installation: { id: standIn.installationId(REPO) },
        sender: { login: "mergify[bot]", type: "Bot" },
      });
    }

    const [created, embarked, completed] = receiver.received.map(payloadOf);
    expect(created?.check_run).toMatchObject({
      name: "Rule: default (queue)",
      head_sha: HEAD_SHA,
      status: "in_progress",
      conclusion: null,
      completed_at: null,
      app: { slug: "mergify", name: "Mergify" },
      pull_requests: [
        {
          number: 1,
          url: `${standIn.apiUrl}/repos/${REPO}/pulls/1`,
          head: { ref: "sprockets", sha: HEAD_SHA },
          base: { ref: "main" },
        },
      ],
      check_suite: { head_sha: HEAD_SHA, head_branch: "sprockets", app: { slug: "mergify" } },
    });
    expect(completed?.check_run).toMatchObject({
      id: embarked?.check_run.id,
      status: "completed",
      conclusion: "success",
      completed_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    });
    const merged = payloadOf(receiver.received[3]!);
    expect(merged).toMatchObject({
      action: "closed",
      number: 1,
      pull_request: {
        number: 1,
        state: "closed",
        merged: true,
        merged_by: { login: "mergify[bot]" },
        merge_commit_sha: expect.stringMatching(/^[0-9a-f]{40}$/),
        head: { ref: "sprockets", sha: HEAD_SHA },
        base: { ref: "main" },
        user: { login: "alice" },
      },
    });
    expect(standIn.state.getIssue(REPO, 1)?.pull?.merged).toBe(true);
    expect(standIn.deliveries.every((d) => d.mode === "background" && d.status === 200)).toBe(true);
    expect(standIn.deliveryCounts()).toEqual({ check_run: 4, pull_request: 1, check_suite: 1 });
  });

  it("opens and closes the batch's draft pull request, and marks each member's checks", async () => {
    const { sim, standIn, receiver } = await setup({ batchSize: 2, batchMaxWaitMs: 10_000 });
    standIn.state.addPullRequest({ repository: REPO, number: 3, author: "bob", head: "gears" });
    queue(sim, 1);
    queue(sim, 3);
    sim.clock.advance(1_000);
    await standIn.settle();

    const lines = summary(receiver.received);
    const draft = receiver.received.map(payloadOf).find((p) => p.action === "opened");
    const draftNumber = draft?.number as number;
    expect(draft?.pull_request).toMatchObject({
      draft: true,
      state: "open",
      title: "merge queue: embarking #1, #3 together",
      user: { login: "mergify[bot]" },
      head: { ref: expect.stringMatching(/^mergify\/merge-queue\//) },
      base: { ref: "main" },
    });
    expect(lines).toEqual([
      "check_run created Rule: default (queue) #1",
      "check_run created Rule: default (queue) #3",
      `pull_request opened #${draftNumber}`,
      "check_run created Queue: Embarked in merge queue #1",
      "check_run created Queue: Embarked in merge queue #3",
      "check_run completed Queue: Embarked in merge queue success #1",
      `pull_request closed #${draftNumber}`,
      "check_run completed Queue: Embarked in merge queue success #3",
      "pull_request closed #1",
      "check_run completed Rule: default (queue) success #1",
      "check_suite completed success #1",
      "pull_request closed #3",
      "check_run completed Rule: default (queue) success #3",
      "check_suite completed success #3",
    ]);
    const closedDraft = receiver.received.map(payloadOf).filter((p) => p.number === draftNumber)[1];
    expect(closedDraft?.pull_request).toMatchObject({ state: "closed", merged: false });
  });

  it("concludes failure when checks fail and cancelled on a manual dequeue", async () => {
    const { sim, standIn, receiver } = await setup();
    standIn.state.addPullRequest({ repository: REPO, number: 3, author: "bob" });
    queue(sim, 1, { checks: "failure" });
    sim.clock.advance(1_000);
    queue(sim, 3);
    sim.state.relayCommand(REPO, { body: "@mergifyio dequeue", pull_request: 3 });
    await standIn.settle();

    expect(summary(receiver.received)).toEqual([
      "check_run created Rule: default (queue) #1",
      "check_run created Queue: Embarked in merge queue #1",
      "check_run completed Queue: Embarked in merge queue failure #1",
      "check_run completed Rule: default (queue) failure #1",
      "check_suite completed failure #1",
      "check_run created Rule: default (queue) #3",
      "check_run created Queue: Embarked in merge queue #3",
      "check_run completed Queue: Embarked in merge queue cancelled #3",
      "check_run completed Rule: default (queue) cancelled #3",
      "check_suite completed cancelled #3",
    ]);
    expect(standIn.state.getIssue(REPO, 1)?.pull?.merged).toBe(false);
  });

  it("sends nothing for a pause: GitHub shows none", async () => {
    const { sim, standIn, receiver } = await setup();
    sim.state.pause(REPO, "release freeze");
    sim.state.unpause(REPO);
    await standIn.settle();
    expect(receiver.received).toEqual([]);
    expect(standIn.deliveryCounts()).toEqual({});
  });

  it("makes up a pull request GitHub's stand-in does not know from the merge queue's data", async () => {
    const { sim, standIn, receiver } = await setup();
    queue(sim, 7);
    await standIn.settle();
    const [rule] = receiver.received.map(payloadOf);
    expect(rule?.check_run.pull_requests).toEqual([
      expect.objectContaining({
        number: 7,
        head: expect.objectContaining({ sha: sim.state.getPullRequest(REPO, 7)?.headSha }),
        base: expect.objectContaining({ ref: "main" }),
      }),
    ]);
    expect(standIn.state.getIssue(REPO, 7)).toBeUndefined();
  });

  it("sends no doorbell events to an installation without them", async () => {
    const { sim, standIn, receiver } = await setup({ standIn: { installationEvents: ["issue_comment"] } });
    queue(sim, 1);
    sim.clock.advance(1_000);
    await standIn.settle();
    expect(receiver.received).toEqual([]);
    expect(standIn.deliveries).toEqual([]);
    // The merge queue did move.
    expect(sim.state.events(REPO).some((e) => e.type === "action.queue.merged")).toBe(true);
  });

  it("sends nothing about a repository without the app installed", async () => {
    const { sim, standIn, receiver } = await setup();
    standIn.state.addRepository("solo/tools", { installed: false });
    sim.state.addRepository("solo/tools");
    sim.state.relayCommand("solo/tools", {
      body: "@mergifyio queue",
      pull_request: { number: 5, title: "Tool", author: { id: 9, login: "sam" }, base_ref: "main" },
    });
    sim.clock.advance(1_000);
    queue(sim, 1);
    await standIn.settle();
    expect(sim.state.events("solo/tools").some((e) => e.type === "action.queue.merged")).toBe(true);
    const repositories = receiver.received.map((r) => payloadOf(r).repository.full_name);
    expect(repositories.length).toBeGreaterThan(0);
    expect(new Set(repositories)).toEqual(new Set([REPO]));
    await expect(
      appOctokit(standIn).request("GET /repos/{owner}/{repo}/installation", { owner: "solo", repo: "tools" }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it("sends nothing without a webhook URL, and nothing once it stops following", async () => {
    const { sim, standIn, receiver, unfollow } = await setup();
    standIn.setWebhookUrl("");
    queue(sim, 1);
    await standIn.settle();
    expect(standIn.deliveries).toEqual([]);
    standIn.setWebhookUrl(`${receiver.url}/api/github/webhooks`);
    unfollow();
    sim.clock.advance(1_000);
    await standIn.settle();
    expect(receiver.received).toEqual([]);
    expect(sim.state.events(REPO).some((e) => e.type === "action.queue.merged")).toBe(true);
  });

  it("sends a check_run by hand, signed, and counts deliveries by event", async () => {
    const { standIn, receiver } = await setup();
    const result = await standIn.sendCheckRun(REPO, 1, { action: "completed", conclusion: "failure" });
    expect(result.status).toBe(200);
    const [request] = receiver.received;
    expect(request?.headers["x-github-event"]).toBe("check_run");
    expect(request?.headers["x-github-delivery"]).toBe(result.deliveryId);
    expect(
      await verify(WEBHOOK_SECRET, request?.body ?? "", String(request?.headers["x-hub-signature-256"])),
    ).toBe(true);
    expect(payloadOf(request!)).toMatchObject({
      action: "completed",
      check_run: {
        name: "Queue: Embarked in merge queue",
        status: "completed",
        conclusion: "failure",
        head_sha: HEAD_SHA,
        app: { slug: "mergify" },
        pull_requests: [{ number: 1, head: { ref: "sprockets", sha: HEAD_SHA }, base: { ref: "main" } }],
      },
      repository: { full_name: REPO },
      installation: { id: standIn.installationId(REPO) },
      sender: { login: "mergify[bot]" },
    });
    await standIn.sendCheckRun(REPO, 1, { action: "created" });
    expect(payloadOf(receiver.received[1]!).check_run).toMatchObject({
      status: "in_progress",
      conclusion: null,
    });
    expect(standIn.deliveryCounts()).toEqual({ check_run: 2 });
  });
});

describe("GitHub stand-in: installations' events and permissions", () => {
  it("lists the doorbell's events and the permissions they need", async () => {
    const { standIn } = await setup();
    const octokit = appOctokit(standIn);
    const id = standIn.installationId(REPO);
    const expected = {
      id,
      // app.yml's default_events.
      events: ["issue_comment", "merge_group", "check_run", "check_suite", "pull_request", "status"],
      permissions: {
        issues: "write",
        metadata: "read",
        pull_requests: "write",
        members: "read",
        contents: "write",
        // app.yml asks checks: write for the gate check of GitHub's merge queue.
        checks: "write",
        statuses: "read",
      },
    };
    const list = await octokit.request("GET /app/installations");
    expect(list.data).toEqual([expect.objectContaining(expected)]);
    const one = await octokit.request("GET /app/installations/{installation_id}", { installation_id: id });
    expect(one.data).toMatchObject(expected);
    const byRepo = await octokit.request("GET /repos/{owner}/{repo}/installation", {
      owner: "acme",
      repo: "widgets",
    });
    expect(byRepo.data).toMatchObject(expected);
    const app = await octokit.request("GET /app");
    expect(app.data?.events).toEqual(expected.events);
    const token = await octokit.request("POST /app/installations/{installation_id}/access_tokens", {
      installation_id: id,
    });
    expect(token.data.permissions).toMatchObject({ checks: "write", statuses: "read" });
  });

  it("lists only issue_comment, without checks or statuses, for an installation without the doorbell", async () => {
    const { standIn } = await setup({ standIn: { installationEvents: ["issue_comment"] } });
    const { data } = await appOctokit(standIn).request("GET /repos/{owner}/{repo}/installation", {
      owner: "acme",
      repo: "widgets",
    });
    expect(data.events).toEqual(["issue_comment"]);
    expect(data.permissions).not.toHaveProperty("checks");
    expect(data.permissions).not.toHaveProperty("statuses");
    await expect(
      appOctokit(standIn).request("POST /app/installations/{installation_id}/access_tokens", {
        installation_id: data.id,
        permissions: { checks: "read" },
      }),
    ).rejects.toMatchObject({ status: 422 });
  });

  it("changes one installation's events at a time", async () => {
    const { standIn } = await setup();
    standIn.state.addRepository("other/repo");
    standIn.state.setInstallationEvents("other", ["issue_comment"]);
    expect(standIn.state.installationFor("other/repo").events).toEqual(["issue_comment"]);
    expect(standIn.state.installationFor(REPO).events).toContain("check_run");
  });
});
