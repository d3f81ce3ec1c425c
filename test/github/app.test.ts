import nock from "nock";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { githubApp } from "../../src/github/app.js";
import { SUMMARY_MARKER } from "../../src/github/summary-comment.js";
import { createLogger } from "../../src/logger.js";
import { createMetrics } from "../../src/metrics.js";
import type { CommandStepStore } from "../../src/store/index.js";
import {
  ORIGIN as MQ,
  makeClient,
  mergifyQueues,
  pauseState,
  pullRequestDetails,
  queueStatus,
} from "../backends/mergify/fixtures.js";
import { DEFAULT_PERMISSIONS, inlineJobs, testProbot, testWrites } from "../helpers/github-app.js";

const GH = "https://api.github.com";
const REPO = "/repos/acme/widgets";
const MQ_REPO = "/v1/repos/acme/widgets";

function payload(body: string, options: { login?: string; type?: string; pull?: boolean } = {}) {
  return {
    action: "created",
    issue: {
      number: 42,
      title: "Add widgets",
      html_url: "https://github.com/acme/widgets/pull/42",
      ...(options.pull === false ? {} : { pull_request: { url: `${GH}${REPO}/pulls/42` } }),
      user: { login: "alice", id: 1, type: "User" },
    },
    comment: {
      id: 900,
      body,
      html_url: "https://github.com/acme/widgets/pull/42#issuecomment-900",
      user: { login: options.login ?? "alice", id: 1, type: options.type ?? "User" },
    },
    repository: { id: 5, name: "widgets", full_name: "acme/widgets", owner: { login: "acme", id: 2 } },
    installation: { id: 77 },
    sender: { login: options.login ?? "alice", id: 1, type: options.type ?? "User" },
  };
}

async function setup(
  options: {
    seenAfterMs?: number;
    answerRetryDelayMs?: number;
    writeRetries?: number;
    takenOver?: boolean;
    commandSteps?: CommandStepStore;
  } = {},
) {
  const lines: string[] = [];
  const probot = testProbot(createLogger({ level: "info" }, { write: (line: string) => lines.push(line) }));
  const metrics = createMetrics();
  const writes = testWrites({ retries: options.writeRetries ?? 0 });
  await probot.load(
    githubApp({
      // 👀 after a minute unless a test says otherwise: "answered at once" must not depend on how busy
      // the machine is (the 👀 test sets 20 ms).
      seenAfterMs: options.seenAfterMs ?? 60_000,
      answerRetryDelayMs: options.answerRetryDelayMs ?? 10,
      appSlug: "yardmaster",
      queues: mergifyQueues(makeClient({ retry: { retries: 0 } })),
      permissions: DEFAULT_PERMISSIONS,
      commandPrefix: "@mergifyio",
      metrics,
      logger: createLogger({ level: "silent" }),
      jobs: inlineJobs({ held: !options.takenOver }),
      writes,
      ...(options.commandSteps ? { commandSteps: options.commandSteps } : {}),
    }),
  );
  let delivery = 0;
  const receive = (body: string, options?: Parameters<typeof payload>[1], id = `d-${++delivery}`) =>
    probot.receive({ id, name: "issue_comment", payload: payload(body, options) } as never);
  const logs = () => lines.map((line) => JSON.parse(line) as { level: number; msg: string; status?: number });
  return { probot, metrics, receive, logs, writes };
}

/**
 * GitHub as seen by the app: installation token, reactions, and the summary comment. `writes`: the
 * reactions and summaries in the order GitHub took them; `holdSummary`: what the summary's answer waits for.
 */
function github(permission = "write", holdSummary: () => Promise<unknown> = async () => undefined) {
  const reactions: string[] = [];
  const writes: string[] = [];
  const written: { method: string; body: string }[] = [];
  const scope = nock(GH)
    .post("/app/installations/77/access_tokens")
    .reply(201, { token: "ghs_test", expires_at: "2099-01-01T00:00:00Z" })
    .persist()
    .post(`${REPO}/issues/comments/900/reactions`)
    .reply(201, (_uri, body) => {
      const { content } = body as { content: string };
      reactions.push(content);
      writes.push(`react ${content}`);
      return { id: 500 + reactions.length, content };
    })
    .delete(/\/issues\/comments\/900\/reactions\/\d+$/)
    .reply(204, (uri) => {
      const id = Number(uri.split("/").pop());
      const content = reactions[id - 501];
      reactions.splice(reactions.indexOf(content ?? ""), 1);
      return "";
    })
    .get(`${REPO}/collaborators/alice/permission`)
    .reply(200, { permission, role_name: permission, user: { login: "alice" } })
    .get(`${REPO}/issues/42/comments`)
    .query(true)
    .reply(200, [])
    .post(`${REPO}/issues/42/comments`)
    .reply(async (_uri, body) => {
      await holdSummary();
      written.push({ method: "POST", body: (body as { body: string }).body });
      writes.push("summary");
      return [
        201,
        { id: 1000 + written.length, html_url: `https://github.com/acme/widgets/pull/42#c${written.length}` },
      ];
    });
  return {
    scope,
    reactions,
    written,
    writes,
    summary: () => written.filter((w) => w.body.includes(SUMMARY_MARKER)),
  };
}

/** GET /repos/acme/widgets/pulls/42 as GitHub answers it. */
function pullReply(base = "main", title = "Add widgets") {
  return {
    number: 42,
    title,
    html_url: "https://github.com/acme/widgets/pull/42",
    state: "open",
    merged: false,
    base: { ref: base },
    head: { sha: "abc" },
    user: { login: "alice", id: 1 },
  };
}

describe("GitHub comment commands", () => {
  beforeEach(() => nock.cleanAll());

  it("pauses the queue for a writer, reacts 👍 (no 👀: answered at once), and says so in the summary", async () => {
    const gh = github("write");
    const mq = nock(MQ)
      .put(`${MQ_REPO}/merge-queue/pause`, { reason: "release freeze" })
      .reply(200, { ...pauseState(), reason: "release freeze" });
    const { receive, metrics } = await setup();
    await receive("@yardmaster pause release freeze");
    expect(mq.isDone()).toBe(true);
    expect(gh.reactions).toEqual(["+1"]);
    const [summary] = gh.summary();
    expect(summary?.body).toContain("is **paused**: release freeze");
    expect(summary?.body).toContain("by **alice**");
    expect(await metrics.registry.metrics()).toContain(
      'yardmaster_commands_total{command="pause",outcome="success",surface="github"} 1\n',
    );
  });

  it("refuses a reader without calling the merge queue", async () => {
    const gh = github("read");
    const { receive } = await setup();
    await receive("@yardmaster pause release freeze");
    expect(gh.reactions).toEqual(["confused"]);
    expect(gh.summary()[0]?.body).toContain(
      "`pause` needs **write** permission on `acme/widgets`; alice has **read**.",
    );
  });

  it("refuses an unknown command with a suggestion, asking nobody's permission", async () => {
    const gh = github();
    const { receive } = await setup();
    await receive("@yardmaster qeue");
    expect(gh.reactions).toEqual(["confused"]);
    expect(gh.summary()[0]?.body).toContain("`qeue` is not a command. Did you mean `queue`?");
    expect(gh.scope.pendingMocks()).toContain(`GET ${GH}:443${REPO}/collaborators/alice/permission`);
  });

  it("relays queue to the merge queue and reports the position it got", async () => {
    const gh = github();
    nock(GH).get(`${REPO}/pulls/42`).reply(200, pullReply("main", "Add widgets"));
    nock(MQ)
      .get(`${MQ_REPO}/merge-queue/pull/42`)
      .reply(200, { ...pullRequestDetails(42), position: 2, queue_rule_name: "urgent" });
    const { receive } = await setup();
    await receive("@yardmaster queue urgent");
    const relay = gh.written.find((w) => !w.body.includes(SUMMARY_MARKER));
    expect(relay?.body.split("\n")[0]).toBe("@mergifyio queue urgent");
    expect(relay?.body).toContain("Requested by **alice**");
    expect(gh.summary()[0]?.body).toContain("#42 is in the merge queue `urgent` at position 3");
    expect(gh.reactions).toEqual(["+1"]);
  });

  it("says truthfully when the merge queue has not picked a relayed command up yet", async () => {
    const gh = github();
    nock(GH).get(`${REPO}/pulls/42`).reply(200, pullReply("main", "t"));
    nock(MQ).get(`${MQ_REPO}/merge-queue/pull/42`).reply(404, { detail: "Pull request not found" });
    const { receive } = await setup();
    await receive("@yardmaster queue");
    expect(gh.summary()[0]?.body).toContain("the merge queue has not picked it up yet");
  });

  it("edits the summary comment in place instead of writing a new one", async () => {
    nock(GH)
      .get(`${REPO}/issues/42/comments`)
      .query(true)
      .reply(200, [
        { id: 5, body: `quoting ${SUMMARY_MARKER}`, user: { login: "mallory", type: "User" } },
        { id: 6, body: `${SUMMARY_MARKER}\nold`, user: { login: "yardmaster[bot]", type: "Bot" } },
      ]);
    let edited = "";
    nock(GH)
      .patch(`${REPO}/issues/comments/6`)
      .reply(200, (_uri, body) => {
        edited = (body as { body: string }).body;
        return { id: 6 };
      });
    const gh = github();
    nock(MQ).get(`${MQ_REPO}/merge-queue/status`).query({ branch: "release/1.x" }).reply(200, queueStatus());
    const { receive } = await setup();
    await receive("@yardmaster status release/1.x");
    expect(gh.written).toEqual([]);
    expect(edited).toContain("#### Merge queue of acme/widgets\n\nbranch `release/1.x`");
    expect(edited).toContain("| Batch 1 | CI running |");
  });

  it("writes nothing for a command another replica took over (this one's claim lapsed while it ran)", async () => {
    const gh = github();
    const mq = nock(MQ)
      .put(`${MQ_REPO}/merge-queue/pause`)
      .reply(200, { ...pauseState(), reason: "deploy" });
    const { receive, logs } = await setup({ takenOver: true });
    await receive("@yardmaster pause deploy");
    expect(mq.isDone()).toBe(true);
    expect(gh.summary()).toEqual([]);
    expect(gh.reactions).toEqual([]);
    expect(logs().map((l) => l.msg)).toContain(
      "another replica took this command over: its answer is left to it",
    );
  });

  it("turns merge-queue errors into sentences, escaping the service's detail", async () => {
    const gh = github();
    nock(MQ).put(`${MQ_REPO}/merge-queue/pause`).reply(403, { detail: "Forbidden" });
    const { receive } = await setup();
    await receive("@yardmaster pause deploy");
    expect(gh.summary()[0]?.body).toContain("its API token has no access to this repository");
    expect(gh.reactions).toEqual(["confused"]);

    nock.cleanAll();
    const gh2 = github();
    nock(MQ).put(`${MQ_REPO}/merge-queue/pause`).reply(422, { detail: "Reason <b>@here</b> rejected" });
    await receive("@yardmaster pause deploy");
    const body = gh2.summary()[0]?.body ?? "";
    expect(body).toContain(
      "The merge queue rejected the request (422). The merge queue said: Reason &lt;b&gt;",
    );
    expect(body).not.toMatch(/@here/);
  });

  it("escapes what the person typed wherever it is shown", async () => {
    const gh = github();
    nock(MQ)
      .put(`${MQ_REPO}/merge-queue/pause`)
      .reply(200, { paused: true, reason: "@channel <script> **x**", paused_at: null });
    const { receive } = await setup();
    await receive("@yardmaster pause @channel <script> **x**");
    const body = gh.summary()[0]?.body ?? "";
    // Inside code spans text is literal (no mention, no HTML); everywhere else it must be escaped.
    const outsideCode = body.replace(/(`+)[^`]*?\1/g, "");
    expect(outsideCode).toContain("@\u200bchannel &lt;script&gt; \\*\\*x\\*\\*");
    expect(outsideCode).not.toMatch(/@channel|<script>|\*\*x\*\*/);
  });

  it("ignores bots, other first lines and redelivered webhooks", async () => {
    nock.emitter.removeAllListeners("no match");
    const unmatched: string[] = [];
    nock.emitter.on("no match", (req: { path?: string }) => unmatched.push(String(req.path)));
    const { receive } = await setup();
    await receive("@yardmaster pause x", { login: "mergify[bot]", type: "Bot" });
    await receive("@yardmaster pause x", { login: "ci-bot", type: "Bot" });
    await receive("> @yardmaster pause x");
    await receive("please @yardmaster pause x");
    expect(unmatched).toEqual([]);

    const gh = github();
    nock(MQ).put(`${MQ_REPO}/merge-queue/pause`).once().reply(200, pauseState());
    await receive("@yardmaster pause x", undefined, "same-delivery");
    await receive("@yardmaster pause x", undefined, "same-delivery");
    expect(gh.reactions).toEqual(["+1"]);
    nock.emitter.removeAllListeners("no match");
  });

  it("refuses queue on an issue and explains where it works", async () => {
    const gh = github();
    const { receive } = await setup();
    await receive("@yardmaster queue", { pull: false });
    expect(gh.summary()[0]?.body).toContain("`queue` works on a pull request, not on an issue.");
  });

  it("shows the status of the pull request's base branch by default", async () => {
    const gh = github();
    nock(GH).get(`${REPO}/pulls/42`).reply(200, pullReply("release/1.x", "t"));
    const mq = nock(MQ)
      .get(`${MQ_REPO}/merge-queue/status`)
      .query({ branch: "release/1.x" })
      .reply(200, {
        ...queueStatus(),
        pause: { paused: true, reason: "freeze", paused_at: "2025-11-05T13:00:00Z" },
      });
    const { receive } = await setup();
    await receive("@yardmaster status");
    expect(mq.isDone()).toBe(true);
    expect(gh.summary()[0]?.body).toContain("⏸️ **Paused** since 2025-11-05 13:00 UTC: freeze");
  });
});

describe("GitHub answers: when 👀 is sent, and an answer GitHub would not take", () => {
  beforeEach(() => nock.cleanAll());

  it("sends 👀 for a command still running after the threshold, before its answer", async () => {
    const gh = github();
    nock(GH).get(`${REPO}/pulls/42`).reply(200, pullReply());
    let eyesSeen: () => void = () => undefined;
    const seen = new Promise<void>((resolve) => {
      eyesSeen = resolve;
    });
    // The merge queue answers only once 👀 is on the comment: the command is slower than the threshold.
    const timer = setInterval(() => gh.reactions.includes("eyes") && eyesSeen(), 5);
    nock(MQ)
      .get(`${MQ_REPO}/merge-queue/status`)
      .query(true)
      .reply(async () => {
        await seen;
        return [200, queueStatus()];
      });
    const { receive } = await setup({ seenAfterMs: 20 });
    try {
      await receive("@yardmaster status");
    } finally {
      clearInterval(timer);
    }
    expect(gh.reactions).toEqual(["eyes", "+1"]);
    expect(gh.summary()).toHaveLength(1);
  });

  it("drops the 👀 that waited behind the answer once GitHub took the answer, though recording it takes a while", async () => {
    // GitHub answers the summary once the 👀 (after a second) waits behind it in the write queue (or went
    // before it, on a machine so slow that the command took longer). The answer's step is recorded after
    // it, slowly (a store across the network): the 👀 must not go meanwhile.
    let seenQueued = () => false;
    const gh = github("write", () =>
      vi.waitFor(() => expect(seenQueued()).toBe(true), { timeout: 15_000, interval: 5 }),
    );
    nock(GH).get(`${REPO}/pulls/42`).reply(200, pullReply());
    nock(MQ).get(`${MQ_REPO}/merge-queue/status`).query(true).reply(200, queueStatus());
    const steps = new Map<string, unknown>();
    const commandSteps: CommandStepStore = {
      commandStep: async (runId, step) =>
        steps.has(`${runId} ${step}`) ? { result: steps.get(`${runId} ${step}`) } : null,
      recordCommandStep: async (runId, step, result) => {
        await new Promise((resolve) => setTimeout(resolve, 200));
        steps.set(`${runId} ${step}`, result);
        return true;
      },
      beginCommandStep: async () => {},
      commandStepBegun: async () => false,
      forgetCommandStep: async (runId, step) => {
        steps.delete(`${runId} ${step}`);
      },
    };
    const { receive, writes } = await setup({ seenAfterMs: 1_000, commandSteps });
    seenQueued = () => writes.pending.seen === 1 || gh.reactions.includes("eyes");
    await receive("@yardmaster status");
    expect(gh.summary()).toHaveLength(1);
    expect(gh.writes.slice(gh.writes.indexOf("summary"))).toEqual(["summary", "react +1"]);
  });

  it("sends no 👀 for a command answered within the threshold", async () => {
    const gh = github();
    nock(GH).get(`${REPO}/pulls/42`).reply(200, pullReply());
    nock(MQ).get(`${MQ_REPO}/merge-queue/status`).query(true).reply(200, queueStatus());
    const { receive } = await setup();
    await receive("@yardmaster status");
    expect(gh.reactions).toEqual(["+1"]);
  });

  it("ends with 😕 when GitHub answers 500 to the summary, logs why, and writes it once more later: then 👍", async () => {
    let attempts = 0;
    nock(GH)
      .post(`${REPO}/issues/42/comments`)
      .times(2)
      .reply(() => {
        attempts += 1;
        return [500, { message: "Server Error" }];
      });
    const gh = github();
    nock(MQ).put(`${MQ_REPO}/merge-queue/pause`).reply(200, pauseState());
    const { receive, logs } = await setup({ writeRetries: 1 });
    await receive("@yardmaster pause deploy");
    expect(attempts).toBe(2);
    expect(gh.summary()).toHaveLength(1);
    expect(gh.reactions).toEqual(["+1"]);
    const errors = logs().filter((l) => l.level === 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      status: 500,
      msg: "could not write the answer (the summary comment): GitHub answered 500 (Server Error); trying once more later",
    });
    expect(logs().some((l) => l.msg === "the answer was written on the later try")).toBe(true);
  });

  it("keeps 😕 when the later try fails too, and tries no more", async () => {
    let attempts = 0;
    nock(GH)
      .post(`${REPO}/issues/42/comments`)
      .times(4)
      .reply(() => {
        attempts += 1;
        return [502, { message: "Bad Gateway" }];
      });
    const gh = github();
    nock(MQ).put(`${MQ_REPO}/merge-queue/pause`).reply(200, pauseState());
    const { receive, logs } = await setup({ writeRetries: 1 });
    await receive("@yardmaster pause deploy");
    expect(attempts).toBe(4);
    expect(gh.summary()).toHaveLength(0);
    expect(gh.reactions).toEqual(["confused"]);
    expect(
      logs()
        .filter((l) => l.level === 50)
        .map((l) => l.msg),
    ).toEqual([
      "could not write the answer (the summary comment): GitHub answered 502 (Bad Gateway); trying once more later",
      "could not write the answer on the later try either: GitHub answered 502 (Bad Gateway)",
    ]);
  });

  it("does not try again later when GitHub refused the summary for good (422)", async () => {
    let attempts = 0;
    nock(GH)
      .post(`${REPO}/issues/42/comments`)
      .reply(() => {
        attempts += 1;
        return [422, { message: "Validation Failed" }];
      });
    const gh = github();
    nock(MQ).put(`${MQ_REPO}/merge-queue/pause`).reply(200, pauseState());
    const { receive, logs } = await setup({ writeRetries: 1 });
    await receive("@yardmaster pause deploy");
    expect(attempts).toBe(1);
    expect(gh.reactions).toEqual(["confused"]);
    expect(
      logs()
        .filter((l) => l.level === 50)
        .map((l) => l.msg),
    ).toEqual(["could not write the answer (the summary comment): GitHub answered 422 (Validation Failed)"]);
  });
});
