import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { type Logger, LogLevel, WebClient } from "@slack/web-api";
import { type SlackStandIn, startSlackStandIn } from "../../../../tools/stand-ins/slack/index.js";

export const SIGNING_SECRET = "test-signing-secret";
export const BOT_TOKEN = "xoxb-test-bot-token";

/** A WebClient logger that keeps what the client says instead of printing it. */
export function quietLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const keep =
    (level: string) =>
    (...msg: unknown[]) => {
      lines.push(`${level} ${msg.map(String).join(" ")}`);
    };
  return {
    lines,
    debug: keep("debug"),
    info: keep("info"),
    warn: keep("warn"),
    error: keep("error"),
    setLevel: () => {},
    getLevel: () => LogLevel.DEBUG,
    setName: () => {},
  };
}

export function clientFor(
  slack: SlackStandIn,
  token = BOT_TOKEN,
  options: { rejectRateLimitedCalls?: boolean; retries?: number } = {},
): WebClient {
  return new WebClient(token, {
    slackApiUrl: slack.apiUrl,
    retryConfig: { retries: options.retries ?? 0, factor: 1, minTimeout: 0, maxTimeout: 0 },
    rejectRateLimitedCalls: options.rejectRateLimitedCalls ?? false,
    logger: quietLogger(),
  });
}

export async function startTestSlack(eventsUrl?: string): Promise<SlackStandIn> {
  const slack = await startSlackStandIn({
    signingSecret: SIGNING_SECRET,
    botToken: BOT_TOKEN,
    ...(eventsUrl !== undefined ? { eventsUrl } : {}),
  });
  slack.state.addChannel({ id: "C0MERGE", name: "merge-queue" });
  slack.state.addChannel({ id: "C0OUT", name: "elsewhere", botIsMember: false });
  slack.state.addUser({ id: "U0ALICE", name: "alice", realName: "Alice Liddell", tz: "Europe/London" });
  return slack;
}

/** The Slack error code a WebClient call was refused with. */
export async function slackError(
  call: Promise<unknown>,
): Promise<{ code: string; error?: string; data?: unknown }> {
  try {
    await call;
  } catch (error) {
    const coded = error as { code: string; data?: { error?: string } };
    return { code: coded.code, error: coded.data?.error, data: coded.data };
  }
  throw new Error("expected the call to fail");
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  form: URLSearchParams;
  signatureValid: boolean;
  timestampFresh: boolean;
}

export interface Reply {
  status?: number;
  body?: string;
  contentType?: string;
}

/**
 * A stand-in for Yardmaster's `POST /slack/events`: verifies Slack's signature on its own (node:crypto),
 * answers 401 like Bolt when it is wrong or older than five minutes, else what `respond` says.
 */
export async function startReceiver(
  respond: (request: ReceivedRequest) => Reply | Promise<Reply> = () => ({}),
): Promise<{ url: string; received: ReceivedRequest[]; close: () => Promise<void> }> {
  const received: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      const timestamp = String(req.headers["x-slack-request-timestamp"] ?? "");
      const expected = `v0=${createHmac("sha256", SIGNING_SECRET).update(`v0:${timestamp}:${rawBody}`).digest("hex")}`;
      const signature = String(req.headers["x-slack-signature"] ?? "");
      const request: ReceivedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        rawBody,
        form: new URLSearchParams(rawBody),
        signatureValid:
          signature.length === expected.length &&
          timingSafeEqual(Buffer.from(signature), Buffer.from(expected)),
        timestampFresh: Math.abs(Date.now() / 1000 - Number(timestamp)) < 300,
      };
      received.push(request);
      if (!request.signatureValid || !request.timestampFresh) {
        res.writeHead(401).end();
        return;
      }
      const reply = await respond(request);
      res.writeHead(reply.status ?? 200, reply.contentType ? { "content-type": reply.contentType } : {});
      res.end(reply.body ?? "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/slack/events`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** POSTs JSON to a response_url, as Bolt's `respond` does. */
export async function postToResponseUrl(
  url: string,
  body: unknown,
): Promise<{ status: number; text: string }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}
