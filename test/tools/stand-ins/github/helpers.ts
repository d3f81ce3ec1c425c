import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ProbotOctokit } from "probot";
import {
  type GitHubStandIn,
  type GitHubStandInOptions,
  generateAppKeyPair,
  startGitHubStandIn,
} from "../../../../tools/stand-ins/github/index.js";

export const WEBHOOK_SECRET = "stand-in-webhook-secret";

// One app key per test file: RSA 2048 generation is the slowest part of starting a stand-in.
let appKey: Promise<string> | undefined;
function sharedAppKey(): Promise<string> {
  if (!appKey) appKey = generateAppKeyPair().then((pair) => pair.privateKey);
  return appKey;
}

/** Probot's Octokit without retries or throttling, so refused requests fail at once. */
export const TestOctokit = ProbotOctokit.defaults((options: Record<string, unknown>) => ({
  ...options,
  retry: { enabled: false },
  throttle: { enabled: false },
  log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
}));
export type TestOctokit = InstanceType<typeof TestOctokit>;

/**
 * A stand-in with acme/widgets (private), users alice (write), bob (read), carol (no role),
 * pull request #1 by alice and issue #2 by bob. Its secondary rate limits are off unless `extra`
 * sets them (secondary-limits.test.ts): the other tests write as fast as they like.
 */
export async function startSeededStandIn(extra: Partial<GitHubStandInOptions> = {}): Promise<GitHubStandIn> {
  const standIn = await startGitHubStandIn({
    webhookSecret: WEBHOOK_SECRET,
    appId: 4242,
    privateKey: await sharedAppKey(),
    secondaryLimits: false,
    ...extra,
  });
  const { state } = standIn;
  state.addRepository("acme/widgets");
  state.addUser({ login: "alice", id: 501 });
  state.addUser({ login: "bob", id: 502 });
  state.addUser({ login: "carol", id: 503 });
  state.setPermission("acme/widgets", "alice", "write");
  state.setPermission("acme/widgets", "bob", "read");
  state.addPullRequest({
    repository: "acme/widgets",
    number: 1,
    title: "Add sprockets",
    author: "alice",
    head: "sprockets",
    headSha: "a".repeat(40),
    body: "Adds sprockets.",
  });
  state.addIssue({ repository: "acme/widgets", number: 2, title: "Widgets squeak", author: "bob" });
  return standIn;
}

/** Authenticated as the app (JWT), like Probot's `app.auth()`. */
export function appOctokit(standIn: GitHubStandIn): TestOctokit {
  return new TestOctokit({
    auth: { appId: standIn.appId, privateKey: standIn.privateKey },
    baseUrl: standIn.apiUrl,
  });
}

/** Authenticated as the installation on the repository's owner, like Probot's `app.auth(installationId)`. */
export async function installationOctokit(
  standIn: GitHubStandIn,
  repository = "acme/widgets",
): Promise<TestOctokit> {
  const { token } = (await appOctokit(standIn).auth({
    type: "installation",
    installationId: standIn.installationId(repository),
  })) as { token: string };
  return tokenOctokit(standIn, token);
}

export function tokenOctokit(standIn: GitHubStandIn, token: string): TestOctokit {
  return new TestOctokit({ auth: { token }, baseUrl: standIn.apiUrl });
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** A tiny HTTP server that records what it receives and answers with `answer`. */
export async function startReceiver(
  answer: (req: ReceivedRequest) => { status: number; body?: unknown } = () => ({
    status: 200,
    body: { ok: true },
  }),
): Promise<{ url: string; received: ReceivedRequest[]; close: () => Promise<void> }> {
  const received: ReceivedRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const request: ReceivedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      received.push(request);
      const { status, body } = answer(request);
      res.writeHead(status, { "content-type": "application/json" });
      res.end(body === undefined ? "" : JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The status and JSON body of a raw request to the stand-in. */
export async function call(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
  const response = await fetch(url, { redirect: "manual", ...init });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    json: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}
