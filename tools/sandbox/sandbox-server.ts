// The sandbox page's server: the page's static files and a small JSON API over the stand-ins.
//   GET  /api/state?as=<login>&pr=<number>   what the page shows (see view-state.ts)
//   POST /api/comment {as, number, body}     a comment on a pull request
//   POST /api/slash   {as, text}             `/mq ...` (or a plain message, unfurled if it holds a
//                     pull-request link of the GitHub stand-in) in the channel
//   POST /api/click   {as, actionId, value, messageTs, place, url}   a Block Kit button (place:
//                     "channel", "dm" for the person's direct messages, "home" for their Home tab,
//                     "unfurl" for a link's unfurl in the channel, `url` its link)
//   POST /api/form/submit {as, viewId, values}   submits the person's open form (values by block_id)
//   POST /api/form/close  {as, viewId}           cancels it
//   POST /api/home    {as}                   the person opens the app's Home tab
//   POST /api/digest  {as}                   the channel's weekly digest, posted now
//   POST /api/github-queue/fail-checks {as}  CI fails the checks of the head of acme/ships' queue (GitHub's
//                     own merge queue): removed with CI_FAILURE, the groups behind made anew
//   POST /api/github-queue/merge       {as}  the head of acme/ships' queue passes its checks and merges
//                     (both 409 when the queue is empty)
//   POST /api/github-queue/bypass      {as}  acme/ships' admin merges its first open pull request past the
//                     queue (409 when none is open)

import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { Logger } from "pino";
import {
  ActionError,
  bypassGitHubQueue,
  clickButton,
  closeForm,
  failGitHubQueueHead,
  mergeGitHubQueueHead,
  openHome,
  postComment,
  sendToChannel,
  submitForm,
} from "./actions.js";
import { findPerson, type SandboxPerson } from "./demo-people.js";
import { type TypedCommand, type ViewParts, viewState } from "./view-state.js";

export interface SandboxServerOptions extends ViewParts {
  host: string;
  port: number;
  logger: Logger;
  /** Posts the channel's weekly digest now (what Monday 09:00 would post); false when there is none. */
  runDigest: () => Promise<boolean>;
}

const PAGE_DIR = fileURLToPath(new URL("./page/", import.meta.url));
/** The page's files: a plain name (no folders, so nothing outside page/ can be named). */
const STATIC_FILE = /^\/([a-z][a-z-]*\.(?:html|js|css))$/;
const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
};
const MAX_BODY = 256 * 1024;
const DEFAULT_PULL = 101;

export async function startSandboxServer(options: SandboxServerOptions) {
  const { logger } = options;
  const parts: ViewParts = { sim: options.sim, github: options.github, slack: options.slack };
  const typed: TypedCommand[] = [];

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://sandbox");
    const file = url.pathname === "/" ? "index.html" : STATIC_FILE.exec(url.pathname)?.[1];
    if (req.method === "GET" && file) {
      const type = TYPES[file.split(".").pop() ?? ""] ?? "application/octet-stream";
      const body = await readFile(`${PAGE_DIR}${file}`).catch(() => null);
      if (body === null) {
        sendJson(res, 404, { error: "not found" });
        return;
      }
      res.writeHead(200, { "content-type": type, "cache-control": "no-store" }).end(body);
      return;
    }
    if (req.method === "GET" && url.pathname === "/api/state") {
      const person = requirePerson(url.searchParams.get("as"));
      const pull = Number(url.searchParams.get("pr") ?? DEFAULT_PULL);
      sendJson(res, 200, viewState(parts, person, Number.isSafeInteger(pull) ? pull : DEFAULT_PULL, typed));
      return;
    }
    if (req.method === "POST" && url.pathname.startsWith("/api/")) {
      const input = await readJson(req);
      const person = requirePerson(input.as);
      switch (url.pathname) {
        case "/api/comment":
          sendJson(res, 200, await postComment(parts, person, input.number, input.body));
          return;
        case "/api/slash":
          sendJson(res, 200, await sendToChannel(parts.slack, person, input.text, typed, parts.github.host));
          return;
        case "/api/form/submit":
          sendJson(res, 200, await submitForm(parts.slack, person, input));
          return;
        case "/api/form/close":
          sendJson(res, 200, closeForm(parts.slack, person, input));
          return;
        case "/api/click":
          sendJson(res, 200, await clickButton(parts.slack, person, input));
          return;
        case "/api/digest":
          if (!(await options.runDigest())) throw new ActionError(409, "the channel has no weekly digest");
          sendJson(res, 200, { status: 200 });
          return;
        case "/api/home":
          sendJson(res, 200, await openHome(parts.slack, person));
          return;
        case "/api/github-queue/fail-checks":
          sendJson(res, 200, failGitHubQueueHead(parts.github));
          return;
        case "/api/github-queue/merge":
          sendJson(res, 200, mergeGitHubQueueHead(parts.github));
          return;
        case "/api/github-queue/bypass":
          sendJson(res, 200, bypassGitHubQueue(parts.github));
          return;
      }
    }
    if (url.pathname === "/favicon.ico") {
      res.writeHead(204).end();
      return;
    }
    sendJson(res, 404, { error: "not found" });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (error instanceof ActionError) {
        sendJson(res, error.status, { error: error.message });
        return;
      }
      logger.error({ err: error, url: req.url }, "sandbox page request failed");
      if (!res.headersSent) sendJson(res, 500, { error: error instanceof Error ? error.message : "failed" });
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host}:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function requirePerson(login: unknown): SandboxPerson {
  const person = findPerson(typeof login === "string" ? login : null);
  if (!person) throw new ActionError(400, `"as" must be one of the sandbox's people`);
  return person;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new ActionError(413, "request too large");
    chunks.push(chunk);
  }
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      return value as Record<string, unknown>;
    }
  } catch {
    // answered below
  }
  throw new ActionError(400, "expected a JSON object");
}
