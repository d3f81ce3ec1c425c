import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type Logger, pino } from "pino";
import { generateAppKeyPair, InstallationTokens, importAppPrivateKey } from "./app-auth.js";
import { addAppCheckRoutes } from "./app-checks.js";
import { addAppRoutes } from "./app-routes.js";
import { addCiCheckRoutes, CiCheckRuns } from "./ci-check-runs.js";
import { createComment, emitCreated, issueCommentPayload } from "./comment-flow.js";
import { addCommentRoutes } from "./comment-routes.js";
import type { StandInContext } from "./context.js";
import { addDirectMergeRoute, DirectMerges } from "./direct-merge.js";
import { GitHubFaults } from "./faults.js";
import {
  HttpError,
  notFound,
  type RecordedAuth,
  type RouteRequest,
  Router,
  readBody,
  sendJson,
} from "./http.js";
import { MergeQueueAnswers } from "./merge-queue-answers.js";
import { type ForwardRecord, MergeQueueForwarder, type MergeQueueOptions } from "./merge-queue-forwarder.js";
import { addGraphQLRoute, GitHubMergeQueues } from "./merge-queue-graphql.js";
import {
  type MergeQueueSource,
  MergeQueueWebhooks,
  type SendCheckRunOptions,
} from "./merge-queue-webhooks.js";
import { addOAuthWebRoutes, addUserRoutes, UserTokens } from "./oauth.js";
import { addRepoRoutes } from "./repo-routes.js";
import {
  type AppWrite,
  classifyRequest,
  GITHUB_SECONDARY_LIMITS,
  type SecondaryLimitHit,
  type SecondaryLimitOptions,
  SecondaryLimits,
} from "./secondary-limits.js";
import { GitHubState, timestamp } from "./state.js";
import {
  type DeliverOptions,
  type DeliveryRecord,
  WebhookSender,
  type WebhookTransport,
} from "./webhooks.js";

export interface GitHubStandInOptions {
  /** Default 0 (an ephemeral port). */
  port?: number;
  /** Default "127.0.0.1". */
  host?: string;
  /** Default 1. */
  appId?: number;
  /** Default "yardmaster"; the app's bot user is `<slug>[bot]`. */
  appSlug?: string;
  webhookSecret: string;
  /**
   * The app's RSA private key (PEM, PKCS#1 or PKCS#8). Default: a new RSA 2048 key each start. Pass one
   * to keep Yardmaster's PRIVATE_KEY valid across restarts of a sandbox, or to save key generation in tests.
   */
  privateKey?: string;
  /** Yardmaster's `POST /api/github/webhooks`; settable later with `setWebhookUrl`. */
  webhookUrl?: string;
  /** The app's OAuth credentials; without them the /login/oauth endpoints answer 404. */
  oauth?: { clientId: string; clientSecret: string };
  /** The merge-queue simulator's base URL (no /v1) and token; without it nothing is forwarded. */
  mergeQueue?: MergeQueueOptions;
  /**
   * Also send `issue_comment` webhooks (in the background) for comments created, edited or deleted
   * through the REST API and for the merge queue's replies, as GitHub does. Default true.
   */
  apiEvents?: boolean;
  /**
   * GitHub's secondary rate limits on the app's writes (secondary-limits.ts): GitHub's figures by
   * default; other figures (tests drive the same rules faster), or false for none.
   */
  secondaryLimits?: Partial<SecondaryLimitOptions> | false;
  /**
   * The webhook events installations are subscribed to (and so the permissions they grant). Default:
   * `issue_comment`, `check_run`, `check_suite`, `pull_request`, `status` (app.yml's), `merge_group`. `["issue_comment"]` plays an
   * installation that has not accepted the doorbell's events.
   */
  installationEvents?: string[];
  /**
   * How long after the merge queue's log append its webhooks go out (`followMergeQueue`), ms. Default 0:
   * right after the append (queued in the background, never blocking the merge queue).
   */
  mergeQueueWebhookDelayMs?: number;
  logger?: Logger;
}

export interface RecordedRequest {
  method: string;
  /** Full path without the query, e.g. "/api/v3/repos/acme/widgets/issues/1/comments". */
  path: string;
  query: Record<string, string>;
  /** Parsed JSON or form fields; the raw text otherwise; undefined when empty. */
  body: unknown;
  /** Request headers (lower-case), without `authorization`. */
  headers: Record<string, string | string[] | undefined>;
  /** How the request authenticated ("invalid": it tried and was refused). */
  auth: RecordedAuth;
  /** The status answered (0 until answered). */
  status: number;
  at: string;
}

export interface RequestFilter {
  method?: string;
  /** An exact path (with or without the "/api/v3" prefix) or a pattern tested against the full path. */
  path?: string | RegExp;
}

export interface DeliverIssueCommentArgs {
  /** "owner/name". */
  repository: string;
  number: number;
  body: string;
  /** The login of the comment's author (an existing user). */
  author: string;
  deliveryId?: string;
  /** Where the webhook goes, instead of the webhook URL (e.g. one replica of several). */
  url?: string;
  /** Resolve with the receiver's answer, without waiting for it to be done (DeliverOptions.answerOnly). */
  answerOnly?: boolean;
}

export interface GitHubStandIn {
  /** "http://127.0.0.1:PORT". */
  url: string;
  /** "127.0.0.1:PORT": Yardmaster's GHE_HOST (with GHE_PROTOCOL=http). */
  host: string;
  /** url + "/api/v3". */
  apiUrl: string;
  /** PKCS#1 PEM: Yardmaster's PRIVATE_KEY. */
  privateKey: string;
  appId: number;
  appSlug: string;
  state: GitHubState;
  /** Every request received, oldest first. */
  requests: RecordedRequest[];
  findRequests(filter?: RequestFilter): RecordedRequest[];
  /** Every webhook sent, oldest first. */
  deliveries: DeliveryRecord[];
  /** Every comment forwarded to the merge queue's command hook, oldest first. */
  forwards: ForwardRecord[];
  /** The limits in force (null: none). */
  secondaryLimits: SecondaryLimitOptions | null;
  /** Every secondary-rate-limit answer (403 with retry-after) given, oldest first. */
  secondaryLimitHits: SecondaryLimitHit[];
  /**
   * The app's writes (installation tokens) as the secondary limits counted them, oldest first: when each
   * arrived, whether it creates content, whether it was refused. Recorded with the limits off too.
   */
  appWrites: AppWrite[];
  /** Failures to answer and writes to hold, for tests. */
  faults: GitHubFaults;
  /** GitHub's own merge queue (GraphQL): `enable` gives a branch one. */
  mergeQueues: GitHubMergeQueues;
  /**
   * What CI's failed check runs say (`failWith(repo, name, { title, summary, text, annotations })`), on
   * merge groups and on the commits Mergify's checks ran on (README.md, "Check runs' output and annotations").
   */
  checkRuns: CiCheckRuns;
  /**
   * Merges a pull request as `login` would with GitHub's merge button (direct-merge.ts): on a branch with
   * GitHub's merge queue, only an admin may (an admin's bypass). Throws (an HttpError) as GitHub refuses.
   */
  mergeDirectly(repository: string, number: number, login: string): { sha: string };
  /** Hears each pull request merged directly (not by a merge queue); returns the function that stops. */
  onDirectMerge(listener: (repository: string, number: number) => void): () => void;
  /** The installation id for a repository (the installation on its owner account). */
  installationId(repository: string): number;
  /** A user access token for `login`, as if the person had gone through the OAuth flow. */
  userToken(login: string): string;
  deliverIssueComment(
    args: DeliverIssueCommentArgs,
  ): Promise<{ status: number; deliveryId: string; commentId: number }>;
  deliverWebhook(
    event: string,
    payload: object,
    opts?: DeliverOptions,
  ): Promise<{ status: number; body: string }>;
  /**
   * Sends, in the background, the `check_run`, `check_suite` and `pull_request` webhooks GitHub would send
   * as this merge queue's log grows (README.md, "Merge-queue webhooks"). Returns the function that stops.
   */
  followMergeQueue(source: MergeQueueSource): () => void;
  /**
   * Sends one of the merge queue's `check_run` webhooks on a pull request now (signed, awaited, whatever
   * the installation's events), and returns the receiver's status.
   */
  sendCheckRun(
    repository: string,
    number: number,
    options?: SendCheckRunOptions,
  ): Promise<{ status: number; deliveryId: string; payload: Record<string, unknown> }>;
  /** How many webhooks were sent so far, by event name (`X-GitHub-Event`). */
  deliveryCounts(): Record<string, number>;
  /** GitHub's "Redeliver": a recorded delivery sent again, same payload and delivery id (to `url` if given). */
  redeliver(deliveryId: string, url?: string): Promise<{ status: number }>;
  setWebhookUrl(url: string): void;
  /**
   * A receiver that answers a webhook before it is done with it (Yardmaster answers a command's webhook
   * once it is recorded, and runs it after): `done` resolves once it is. Every delivery then resolves
   * (and `settle` too) only once `done` did, so that a test reads what the webhook caused; a delivery
   * with `answerOnly` resolves with the answer alone, as GitHub sees it.
   */
  setReceiverDone(done: (() => Promise<unknown>) | null): void;
  /** How webhooks travel (webhooks.ts, WebhookTransport); null: a fetch from this process. */
  setWebhookTransport(transport: WebhookTransport | null): void;
  /** Resolves when every background webhook queued so far has been delivered (or has failed). */
  settle(): Promise<void>;
  close(): Promise<void>;
}

function matches(record: RecordedRequest, filter: RequestFilter): boolean {
  if (filter.method && record.method !== filter.method.toUpperCase()) return false;
  const path = filter.path;
  if (path === undefined) return true;
  if (typeof path === "string") return record.path === path || record.path === `/api/v3${path}`;
  return path.test(record.path);
}

const API_PREFIX = "/api/v3";

export async function startGitHubStandIn(options: GitHubStandInOptions): Promise<GitHubStandIn> {
  const logger = (options.logger ?? pino({ level: "silent" })).child({ component: "github-stand-in" });
  const appId = options.appId ?? 1;
  const appSlug = options.appSlug ?? "yardmaster";
  const { privateKey, publicKey } = options.privateKey
    ? importAppPrivateKey(options.privateKey)
    : await generateAppKeyPair();
  const state = new GitHubState(
    appSlug,
    options.installationEvents ? { installationEvents: options.installationEvents } : {},
  );
  const ctx: StandInContext = {
    state,
    app: {
      id: appId,
      slug: appSlug,
      name: appSlug.charAt(0).toUpperCase() + appSlug.slice(1),
      owner: { login: `${appSlug}-developers`, id: 41_000_000, type: "Organization" },
      clientId: options.oauth?.clientId ?? null,
      createdAt: timestamp(),
    },
    urls: { web: "", api: "" },
    publicKey,
    installationTokens: new InstallationTokens(),
    userTokens: new UserTokens(state),
    webhooks: new WebhookSender(options.webhookSecret, appId, logger, options.webhookUrl),
    forwarder: options.mergeQueue ? new MergeQueueForwarder(options.mergeQueue, logger) : undefined,
    oauth: options.oauth,
    apiEvents: options.apiEvents ?? true,
    logger,
  };

  const checkRuns = new CiCheckRuns();
  const mergeQueueWebhooks = new MergeQueueWebhooks(ctx, options.mergeQueueWebhookDelayMs ?? 0, checkRuns);
  const answers = new MergeQueueAnswers(ctx);
  ctx.answers = answers;

  const mergeQueues = new GitHubMergeQueues(ctx, undefined, checkRuns);
  const directMerges = new DirectMerges(ctx, mergeQueues);
  const api = new Router();
  addAppRoutes(api, ctx);
  addRepoRoutes(api, ctx, { mergeQueues, checkRuns, drafts: mergeQueueWebhooks });
  addDirectMergeRoute(api, ctx, directMerges);
  addAppCheckRoutes(api, ctx, mergeQueues.appChecks, mergeQueues);
  addCiCheckRoutes(api, ctx, checkRuns, mergeQueues);
  addCommentRoutes(api, ctx);
  addUserRoutes(api, ctx);
  const web = new Router();
  addOAuthWebRoutes(web, ctx);
  addGraphQLRoute(web, ctx, mergeQueues);

  const requests: RecordedRequest[] = [];
  const limits =
    options.secondaryLimits === false
      ? null
      : new SecondaryLimits({ ...GITHUB_SECONDARY_LIMITS, ...options.secondaryLimits });
  const faults = new GitHubFaults();
  const appWrites: AppWrite[] = [];

  /**
   * The app's own writes (installation tokens) count against its limits when they arrive, as GitHub
   * counts them, then wait while held (GitHub slow to answer).
   */
  async function admit(method: string, fullPath: string, routePath: string, request: RouteRequest) {
    const { write, content } = classifyRequest(method, routePath);
    await faults.gate(method, fullPath);
    const credential = /^(?:token|bearer)\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "")?.[1];
    if (write && credential !== undefined && ctx.installationTokens.find(credential)) {
      request.auth = "installation";
      const counted: AppWrite = { at: Date.now(), method, path: routePath, content, limited: false };
      appWrites.push(counted);
      try {
        limits?.admit(method, routePath, content, counted.at);
      } catch (error) {
        counted.limited = true;
        throw error;
      }
      await faults.writeGate();
    }
    faults.apply(method, fullPath);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://stand-in");
    const method = (req.method ?? "GET").toUpperCase();
    const { authorization: _authorization, ...headers } = req.headers;
    const record: RecordedRequest = {
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body: undefined,
      headers,
      auth: "none",
      status: 0,
      at: new Date().toISOString(),
    };
    requests.push(record);
    const routeRequest: RouteRequest = {
      method,
      path: url.pathname,
      params: {},
      query: url.searchParams,
      headers: req.headers,
      body: { raw: "", value: undefined },
      auth: "none",
    };
    try {
      routeRequest.body = await readBody(req);
      record.body = routeRequest.body.value;
      const isApi = url.pathname === API_PREFIX || url.pathname.startsWith(`${API_PREFIX}/`);
      const routePath = isApi ? url.pathname.slice(API_PREFIX.length) || "/" : url.pathname;
      const match = (isApi ? api : web).match(method, routePath);
      if (!match) throw notFound();
      if (isApi) await admit(method, url.pathname, routePath, routeRequest);
      routeRequest.params = match.params;
      await match.handler(routeRequest, res);
    } catch (error) {
      if (res.headersSent) {
        logger.error({ err: error, method, path: url.pathname }, "error after answering");
      } else if (error instanceof HttpError) {
        sendJson(res, error.status, error.toJSON(), error.headers);
      } else {
        logger.error({ err: error, method, path: url.pathname }, "stand-in error");
        sendJson(res, 500, { message: "Server Error", error: String(error) });
      }
    } finally {
      record.auth = routeRequest.auth;
      record.status = res.statusCode;
    }
  }

  const server = createServer((req, res) => {
    void handle(req, res);
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostName = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const host = `${hostName}:${address.port}`;
  const url = `http://${host}`;
  ctx.urls.web = url;
  ctx.urls.api = `${url}${API_PREFIX}`;
  logger.info({ url }, "GitHub stand-in listening");

  let closed = false;
  return {
    url,
    host,
    apiUrl: ctx.urls.api,
    privateKey,
    appId,
    appSlug,
    state,
    requests,
    findRequests: (filter = {}) => requests.filter((r) => matches(r, filter)),
    deliveries: ctx.webhooks.deliveries,
    forwards: ctx.forwarder?.records ?? [],
    secondaryLimits: limits?.options ?? null,
    secondaryLimitHits: limits?.hits ?? [],
    appWrites,
    faults,
    mergeQueues,
    checkRuns,
    mergeDirectly(repository, number, login) {
      const user = state.getUser(login);
      if (!user) throw new Error(`GitHub stand-in: unknown user ${login} (add it with state.addUser)`);
      const found = state.getRepository(repository);
      if (!found) throw new Error(`GitHub stand-in: no repository ${repository}`);
      return { sha: directMerges.merge(found.fullName, number, user, state.roleOf(found, login)).sha };
    },
    onDirectMerge: (listener) => directMerges.onMerged(listener),
    installationId: (repository) => state.installationFor(repository).id,
    userToken: (login) => ctx.userTokens.issue(login),

    async deliverIssueComment(args) {
      const issue = state.getIssue(args.repository, args.number);
      if (!issue)
        throw new Error(`GitHub stand-in: no issue or pull request ${args.repository}#${args.number}`);
      const author = state.getUser(args.author);
      if (!author)
        throw new Error(`GitHub stand-in: unknown user ${args.author} (add it with state.addUser)`);
      if (!args.url && !ctx.webhooks.webhookUrl)
        throw new Error("GitHub stand-in: no webhook URL (call setWebhookUrl)");
      const { comment, replies } = await createComment(ctx, issue, author, args.body, false);
      try {
        const payload = issueCommentPayload(ctx, "created", comment);
        const delivered = await ctx.webhooks.deliver("issue_comment", payload, {
          ...(args.deliveryId ? { deliveryId: args.deliveryId } : {}),
          ...(args.url ? { url: args.url } : {}),
          ...(args.answerOnly ? { answerOnly: true } : {}),
        });
        return { status: delivered.status, deliveryId: delivered.deliveryId, commentId: comment.id };
      } finally {
        emitCreated(ctx, replies);
      }
    },

    async deliverWebhook(event, payload, opts = {}) {
      const { status, body } = await ctx.webhooks.deliver(event, payload, opts);
      return { status, body };
    },

    followMergeQueue(source) {
      const stopWebhooks = mergeQueueWebhooks.follow(source);
      const stopAnswers = answers.follow(source);
      return () => {
        stopWebhooks();
        stopAnswers();
      };
    },

    async sendCheckRun(repository, number, opts = {}) {
      const payload = mergeQueueWebhooks.checkRunPayload(repository, number, opts);
      const delivered = await ctx.webhooks.deliver(
        "check_run",
        payload,
        opts.deliveryId ? { deliveryId: opts.deliveryId } : {},
      );
      return { status: delivered.status, deliveryId: delivered.deliveryId, payload };
    },

    deliveryCounts() {
      const counts: Record<string, number> = {};
      for (const delivery of ctx.webhooks.deliveries)
        counts[delivery.event] = (counts[delivery.event] ?? 0) + 1;
      return counts;
    },

    redeliver: (deliveryId, url) => ctx.webhooks.redeliver(deliveryId, url),
    setWebhookUrl: (webhookUrl) => ctx.webhooks.setUrl(webhookUrl),
    setReceiverDone: (done) => ctx.webhooks.setReceiverDone(done),
    setWebhookTransport: (transport) => ctx.webhooks.setTransport(transport),
    async settle() {
      await mergeQueueWebhooks.settle();
      await ctx.webhooks.settle();
    },

    async close() {
      if (closed) return;
      closed = true;
      mergeQueueWebhooks.close();
      await ctx.webhooks.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
