import { verify } from "@octokit/webhooks-methods";
import { afterEach, describe, expect, it } from "vitest";
import { type Servers, type ServersOptions, startServers } from "../../../../tools/world.js";
import { startReceiver } from "./helpers.js";

const REPO = "acme/widgets";

let open: { servers: Servers; receiver: Awaited<ReturnType<typeof startReceiver>> } | undefined;
afterEach(async () => {
  await open?.servers.close();
  await open?.receiver.close();
  open = undefined;
});

/** startServers (as the sandbox, the end-to-end tests and the benchmark start them), pull request #1 queued and merged. */
async function queueAndMerge(options: ServersOptions = {}) {
  const receiver = await startReceiver();
  const servers = await startServers({
    seed: "empty",
    engine: { batchSize: 1, batchMaxWaitMs: 0, checksDurationMs: 1_000 },
    ...options,
  });
  open = { servers, receiver };
  const { sim } = servers;
  const github = servers.github!;
  github.setWebhookUrl(`${receiver.url}/api/github/webhooks`);
  github.state.addRepository(REPO);
  github.state.addUser({ login: "alice" });
  github.state.addPullRequest({ repository: REPO, number: 1, author: "alice", headSha: "b".repeat(40) });
  sim.state.addRepository(REPO);
  sim.state.relayCommand(REPO, {
    body: "@mergifyio queue",
    pull_request: { number: 1, title: "Change", author: { id: 1, login: "alice" }, base_ref: "main" },
  });
  sim.clock.advance(1_000);
  await github.settle();
  return { servers, github, receiver };
}

describe("startServers: the GitHub stand-in follows the simulator's queue", () => {
  it("delivers signed check_run and pull_request webhooks with the world's webhook secret", async () => {
    const { servers, github, receiver } = await queueAndMerge();
    expect(github.deliveryCounts()).toEqual({ check_run: 4, pull_request: 1, check_suite: 1 });
    const secret = servers.settings.WEBHOOK_SECRET ?? "";
    for (const request of receiver.received) {
      expect(await verify(secret, request.body, String(request.headers["x-hub-signature-256"]))).toBe(true);
      const payload = JSON.parse(request.body) as {
        installation: { id: number };
        repository: { full_name: string };
      };
      expect(payload.installation.id).toBe(github.installationId(REPO));
      expect(payload.repository.full_name).toBe(REPO);
    }
  });

  it("delivers none to an installation with only issue_comment (githubEvents)", async () => {
    const { servers, github, receiver } = await queueAndMerge({ githubEvents: ["issue_comment"] });
    expect(servers.sim.state.events(REPO).some((e) => e.type === "action.queue.merged")).toBe(true);
    expect(github.state.installationFor(REPO).events).toEqual(["issue_comment"]);
    expect(receiver.received).toEqual([]);
    expect(github.deliveryCounts()).toEqual({});
  });

  it("delivers the same webhooks later with githubWebhookDelayMs (settle waits for them)", async () => {
    const { github, receiver } = await queueAndMerge({ githubWebhookDelayMs: 5 });
    expect(github.deliveryCounts()).toEqual({ check_run: 4, pull_request: 1, check_suite: 1 });
    expect(receiver.received.map((r) => r.headers["x-github-event"])).toEqual([
      "check_run",
      "check_run",
      "check_run",
      "pull_request",
      "check_run",
      "check_suite",
    ]);
  });
});
