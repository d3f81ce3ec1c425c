import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { verify } from "@octokit/webhooks-methods";
import { pino } from "pino";
import { createNodeMiddleware, Probot } from "probot";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { GitHubStandIn } from "../../../../tools/stand-ins/github/index.js";
import {
  installationOctokit,
  type ReceivedRequest,
  startReceiver,
  startSeededStandIn,
  TestOctokit,
  WEBHOOK_SECRET,
} from "./helpers.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("GitHub stand-in: signed webhooks", () => {
  let standIn: GitHubStandIn;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    receiver = await startReceiver(() => ({ status: 202, body: {} }));
    standIn = await startSeededStandIn({ webhookUrl: `${receiver.url}/api/github/webhooks` });
  });
  afterAll(async () => {
    await standIn.close();
    await receiver.close();
  });
  afterEach(async () => {
    await standIn.settle();
    receiver.received.length = 0;
  });

  // biome-ignore lint/suspicious/noExplicitAny: payloads are checked with toMatchObject
  const payloadOf = (r: ReceivedRequest | undefined): Record<string, any> => JSON.parse(r?.body ?? "{}");

  it("delivers issue_comment.created with GitHub's headers and a valid signature", async () => {
    const result = await standIn.deliverIssueComment({
      repository: "acme/widgets",
      number: 1,
      body: "@yardmaster queue",
      author: "alice",
    });
    expect(result.status).toBe(202);
    expect(result.deliveryId).toMatch(UUID);
    expect(standIn.state.getComment(result.commentId)?.body).toBe("@yardmaster queue");

    const request = receiver.received[0];
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe("/api/github/webhooks");
    expect(request?.headers).toMatchObject({
      "x-github-event": "issue_comment",
      "x-github-delivery": result.deliveryId,
      "x-github-hook-id": expect.stringMatching(/^\d+$/),
      "content-type": "application/json",
      "user-agent": expect.stringMatching(/^GitHub-Hookshot\//),
    });
    const signature = String(request?.headers["x-hub-signature-256"]);
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(await verify(WEBHOOK_SECRET, request?.body ?? "", signature)).toBe(true);
    expect(await verify("another-secret", request?.body ?? "", signature)).toBe(false);
  });

  it("shapes the issue_comment payload like GitHub's", async () => {
    const { commentId } = await standIn.deliverIssueComment({
      repository: "acme/widgets",
      number: 1,
      body: "@yardmaster status",
      author: "alice",
    });
    const payload = payloadOf(receiver.received[0]);
    expect(payload).toMatchObject({
      action: "created",
      issue: {
        number: 1,
        title: "Add sprockets",
        html_url: `${standIn.url}/acme/widgets/pull/1`,
        state: "open",
        user: { login: "alice", id: 501, type: "User" },
        pull_request: {
          url: `${standIn.apiUrl}/repos/acme/widgets/pulls/1`,
          html_url: `${standIn.url}/acme/widgets/pull/1`,
        },
      },
      comment: {
        id: commentId,
        body: "@yardmaster status",
        user: { login: "alice", id: 501, type: "User" },
        html_url: `${standIn.url}/acme/widgets/pull/1#issuecomment-${commentId}`,
        created_at: expect.stringMatching(/Z$/),
        author_association: "COLLABORATOR",
      },
      repository: {
        name: "widgets",
        full_name: "acme/widgets",
        owner: { login: "acme" },
        html_url: `${standIn.url}/acme/widgets`,
        default_branch: "main",
      },
      sender: { login: "alice", id: 501 },
      installation: { id: standIn.installationId("acme/widgets"), node_id: expect.any(String) },
    });
    expect(payload.repository.id).toEqual(expect.any(Number));
    expect(payload.repository.owner.id).toEqual(expect.any(Number));

    await standIn.deliverIssueComment({ repository: "acme/widgets", number: 2, body: "hi", author: "bob" });
    expect(payloadOf(receiver.received[1]).issue).not.toHaveProperty("pull_request");
  });

  it("sends through another transport when given one (a benchmark's sender process), signed the same", async () => {
    const sent: { url: string; headers: Record<string, string>; body: string }[] = [];
    standIn.setWebhookTransport(async (request) => {
      sent.push(request);
      return { status: 204, text: "" };
    });
    try {
      const result = await standIn.deliverIssueComment({
        repository: "acme/widgets",
        number: 1,
        body: "@yardmaster status",
        author: "alice",
      });
      expect(result.status).toBe(204);
      expect(receiver.received).toEqual([]);
      expect(sent).toHaveLength(1);
      expect(sent[0]?.url).toBe(`${receiver.url}/api/github/webhooks`);
      expect(sent[0]?.headers["x-github-delivery"]).toBe(result.deliveryId);
      expect(
        await verify(WEBHOOK_SECRET, sent[0]?.body ?? "", String(sent[0]?.headers["x-hub-signature-256"])),
      ).toBe(true);
    } finally {
      standIn.setWebhookTransport(null);
    }
  });

  it("sends a bad signature when asked, and any event with deliverWebhook", async () => {
    const result = await standIn.deliverWebhook(
      "ping",
      { zen: "Keep it logically awesome.", hook_id: 1 },
      { signature: "sha256=bad", deliveryId: "11111111-2222-3333-4444-555555555555" },
    );
    expect(result.status).toBe(202);
    const request = receiver.received[0];
    expect(request?.headers["x-github-event"]).toBe("ping");
    expect(request?.headers["x-github-delivery"]).toBe("11111111-2222-3333-4444-555555555555");
    expect(request?.headers["x-hub-signature-256"]).toBe("sha256=bad");
    expect(await verify(WEBHOOK_SECRET, request?.body ?? "", "sha256=bad")).toBe(false);
    expect(standIn.deliveries.at(-1)).toMatchObject({ event: "ping", status: 202, mode: "sync" });
  });

  it("sends issue_comment webhooks in the background for comments made through the API", async () => {
    const octokit = await installationOctokit(standIn);
    const { data } = await octokit.rest.issues.createComment({
      owner: "acme",
      repo: "widgets",
      issue_number: 2,
      body: "from the app",
    });
    await octokit.rest.issues.updateComment({
      owner: "acme",
      repo: "widgets",
      comment_id: data.id,
      body: "edited",
    });
    await standIn.settle();
    const events = receiver.received.map((r) => payloadOf(r));
    expect(events.map((p) => p.action)).toEqual(["created", "edited"]);
    expect(events[0]).toMatchObject({
      comment: { id: data.id, body: "from the app", user: { login: "yardmaster[bot]", type: "Bot" } },
      sender: { login: "yardmaster[bot]" },
    });
    expect(events[1]).toMatchObject({
      changes: { body: { from: "from the app" } },
      comment: { body: "edited" },
    });
    for (const r of receiver.received) {
      expect(await verify(WEBHOOK_SECRET, r.body, String(r.headers["x-hub-signature-256"]))).toBe(true);
    }
    expect(standIn.deliveries.filter((d) => d.mode === "background").length).toBeGreaterThanOrEqual(2);
  });

  it("refuses to deliver for an unknown author or issue", async () => {
    await expect(
      standIn.deliverIssueComment({ repository: "acme/widgets", number: 1, body: "x", author: "ghost" }),
    ).rejects.toThrow(/unknown user/);
    await expect(
      standIn.deliverIssueComment({ repository: "acme/widgets", number: 404, body: "x", author: "alice" }),
    ).rejects.toThrow(/no issue/);
  });
});

describe("GitHub stand-in: a real Probot app on the receiving end", () => {
  let standIn: GitHubStandIn;
  let server: Server;
  const handled: string[] = [];

  beforeAll(async () => {
    standIn = await startSeededStandIn({ apiEvents: true });
    const probot = new Probot({
      appId: standIn.appId,
      privateKey: standIn.privateKey,
      secret: WEBHOOK_SECRET,
      baseUrl: standIn.apiUrl,
      Octokit: TestOctokit,
      log: pino({ level: "silent" }),
    });
    const middleware = await createNodeMiddleware(
      (app) => {
        app.on("issue_comment.created", async (context) => {
          handled.push(context.payload.comment.body);
          if (context.isBot) return;
          await context.octokit.rest.reactions.createForIssueComment(
            context.repo({ comment_id: context.payload.comment.id, content: "eyes" as const }),
          );
          await context.octokit.rest.issues.createComment(context.issue({ body: "Got it." }));
        });
      },
      { probot, webhooksPath: "/api/github/webhooks" },
    );
    server = createServer((req, res) => {
      void middleware(req, res, () => {
        res.writeHead(404).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    standIn.setWebhookUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/github/webhooks`);
  });
  afterAll(async () => {
    await standIn.close();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  });

  it("verifies the signature, authenticates as the installation and answers through the API", async () => {
    const { status, commentId } = await standIn.deliverIssueComment({
      repository: "acme/widgets",
      number: 1,
      body: "@yardmaster help",
      author: "alice",
    });
    expect(status).toBe(200);
    expect(standIn.state.reactions(commentId).map((r) => [r.content, r.user.login])).toEqual([
      ["eyes", "yardmaster[bot]"],
    ]);
    expect(standIn.state.comments("acme/widgets", 1).map((c) => c.body)).toEqual([
      "@yardmaster help",
      "Got it.",
    ]);
    // The app's own comment comes back as a webhook; the app sees a bot and does nothing.
    await standIn.settle();
    expect(handled).toEqual(["@yardmaster help", "Got it."]);
    expect(standIn.state.comments("acme/widgets", 1)).toHaveLength(2);
  });

  it("is refused by Probot with a bad signature, and nothing runs", async () => {
    const before = handled.length;
    const { status } = await standIn.deliverWebhook(
      "issue_comment",
      { action: "created", comment: { id: 1, body: "forged" } },
      { signature: `sha256=${"0".repeat(64)}` },
    );
    expect(status).toBeGreaterThanOrEqual(400);
    expect(status).toBeLessThan(500);
    expect(handled.length).toBe(before);
  });
});
