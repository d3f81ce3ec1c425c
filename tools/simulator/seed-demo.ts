// The `demo` seed: repository acme/widgets (branches main and release/1.x) with a live queue and a
// week of realistic events, all relative to the clock's start time.
//
// main (mode parallel): Batch A running [#231, #233]; Batch B bisecting [#226, #228, #229] with a passed
// sub-batch [#226] and a running one [#228, #229] (#229's checks fail: advancing the clock finds it as
// the culprit); Batch C [#234, #235] (scope frontend) waiting for the previous batches; waiting #236,
// #237, #238. release/1.x: a running batch [#240] and waiting #241. Known, not queued: #101..#105 on
// main, #106 on release/1.x. #174, #182, #214 and #219 left with
// CHECKS_FAILED and can be requeued.

import { randomUUID } from "node:crypto";
import { failedCheck } from "./checks.js";
import * as events from "./event-factory.js";
import type { NewLogEvent } from "./log.js";
import type { Batch, KnownPullRequest, QueueEntry, Repository, SubBatch } from "./model.js";
import type { SimState } from "./state.js";
import type { Actor, PullRequestAuthor, PullRequestLabel } from "./types.js";

export const DEMO_REPOSITORY = "acme/widgets";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const people = {
  alice: { id: 5101, login: "alice-ng" },
  bob: { id: 5102, login: "bkowalski" },
  chen: { id: 5103, login: "chen-li" },
  dmitri: { id: 5104, login: "dmitri-v" },
  eva: { id: 5105, login: "eva-martins" },
  farah: { id: 5106, login: "farah-q" },
  gus: { id: 5107, login: "gus-ops" },
  renovate: { id: 29139614, login: "renovate[bot]" },
} satisfies Record<string, PullRequestAuthor>;

const LABELS: Record<string, PullRequestLabel> = {
  feature: { id: 7001, name: "feature", color: "0e8a16", default: false },
  bug: { id: 7002, name: "bug", color: "d73a4a", default: true },
  frontend: { id: 7003, name: "frontend", color: "1d76db", default: false },
  backend: { id: 7004, name: "backend", color: "5319e7", default: false },
  dependencies: { id: 7005, name: "dependencies", color: "0366d6", default: false },
  cleanup: { id: 7006, name: "cleanup", color: "fbca04", default: false },
  api: { id: 7007, name: "api", color: "c5def5", default: false },
  docs: { id: 7008, name: "documentation", color: "0075ca", default: true },
};

interface PullSpec {
  number: number;
  title: string;
  author: PullRequestAuthor;
  base?: string;
  labels?: string[];
  scopes?: string[];
  failing?: boolean;
}

class Seeder {
  private readonly drafts: NewLogEvent[] = [];
  private commentId = 2_000_000_000;

  constructor(
    private readonly state: SimState,
    private readonly repo: Repository,
    readonly t0: number,
  ) {}

  pull(spec: PullSpec): KnownPullRequest {
    const labels = (spec.labels ?? []).map((name) => LABELS[name]).filter((label) => label !== undefined);
    const pull = this.state.knowPullRequest(this.repo.fullName, {
      number: spec.number,
      title: spec.title,
      author: spec.author,
      base_ref: spec.base ?? "main",
      labels: labels.map((label) => label.name),
      github_labels: labels,
      scopes: spec.scopes ?? [],
      checks: spec.failing === true ? "failure" : "success",
    });
    return pull;
  }

  entry(pull: KnownPullRequest, queuedAt: number, queueName = "default"): QueueEntry {
    return {
      pull,
      queueName,
      queuedAt,
      sessionId: randomUUID(),
      seq: this.state.engine.nextSeq(),
      priorityRuleName: "default",
      priorityAlias: "medium",
    };
  }

  private base(at: number, trigger: string = events.TRIGGER_ENGINE) {
    return { repository: this.repo.fullName, at, trigger };
  }

  push(event: NewLogEvent): void {
    this.drafts.push(event);
  }

  /** command.queue, action.queue.enter, action.queue.change. */
  queued(entry: QueueEntry, size: number): void {
    const label = entry.queueName === "default" ? "queue" : `queue ${entry.queueName}`;
    const trigger = events.commandTrigger(label);
    this.commentId += 17;
    const pull = entry.pull;
    this.push(
      events.command(
        this.base(entry.queuedAt - 2000, trigger),
        "command.queue",
        true,
        { number: pull.number, baseRef: pull.baseRef, url: pull.url },
        { author: pull.author, commentId: this.commentId, sessionId: entry.sessionId },
      ),
    );
    this.push(events.queueEnter(this.base(entry.queuedAt, trigger), entry));
    this.push(
      events.queueChange(this.base(entry.queuedAt, trigger), entry, pull.baseRef, entry.queueName, size),
    );
  }

  /** checks_start (and checks_end when `endAt` is given) of one run. */
  run(
    entries: QueueEntry[],
    batch: { id: string; name: string; parents: string[] },
    run: { startAt: number; endAt: number | null; number: number; reason: string },
    failedChecks: string[] = [],
  ): void {
    const inPlace = entries.length === 1;
    const context = {
      batchId: batch.id,
      batchName: batch.name,
      scopes: [...new Set(entries.flatMap((entry) => entry.pull.scopes))],
      parentBatchIds: batch.parents,
    };
    const started = { queuePullNumber: run.number, inPlace, startedAt: run.startAt, ciFinishedAt: null };
    for (const entry of entries) {
      this.push(
        events.checksStart(
          this.base(run.startAt),
          entry,
          context,
          events.speculativeCheck(started, entries, "pending"),
          run.reason,
          null,
        ),
      );
    }
    if (run.endAt === null) return;
    const ended = { ...started, ciFinishedAt: run.endAt, checksEndAt: run.endAt, failedChecks };
    const unsuccessful = failedChecks.map((name) =>
      failedCheck(this.state.options, this.repo.fullName, ended, name),
    );
    for (const entry of entries) {
      this.push(
        events.checksEnd(
          this.base(run.endAt),
          entry,
          context,
          events.speculativeCheck(
            ended,
            entries,
            failedChecks.length > 0 ? "failure" : "success",
            unsuccessful,
          ),
          { aborted: false, abortCode: null, abortReason: null, abortStatus: "DEFINITIVE" },
        ),
      );
    }
  }

  private passedChecks(number: number) {
    const run = { queuePullNumber: number, inPlace: false, startedAt: 0, ciFinishedAt: 0, checksEndAt: 0 };
    return this.state.options.checkNames.map((name) => ({
      ...failedCheck(this.state.options, this.repo.fullName, { ...run, failedChecks: [] }, name),
      description: `${name} passed`,
      state: "success" as const,
    }));
  }

  merged(entries: QueueEntry[], at: number, batchId: string, draft: number, sizeAfter: number): void {
    for (const entry of entries) {
      const sha =
        `${entry.pull.headSha.slice(0, 30)}${(at % 0xfffffffff).toString(16).padStart(10, "0")}`.slice(0, 40);
      this.push(events.queueMerged(this.base(at), entry, sha));
      this.push(
        events.queueLeave(this.base(at), entry, {
          reason: `Pull request #${entry.pull.number} has been merged automatically at ${sha}`,
          merged: true,
          dequeueCode: "PR_MERGED",
          checks: this.passedChecks(draft),
          unsuccessfulChecks: [],
          batchId,
          scopes: entry.pull.scopes,
        }),
      );
    }
    const last = entries[entries.length - 1];
    if (last !== undefined) {
      this.push(events.queueChange(this.base(at), last, last.pull.baseRef, last.queueName, sizeAfter));
    }
  }

  failed(entry: QueueEntry, at: number, batchId: string, draft: number, failedName: string): void {
    const run = { queuePullNumber: draft, inPlace: true, startedAt: 0, ciFinishedAt: 0, checksEndAt: 0 };
    const failure = failedCheck(
      this.state.options,
      this.repo.fullName,
      { ...run, failedChecks: [failedName] },
      failedName,
    );
    const checks = this.passedChecks(draft).map((check) => (check.name === failedName ? failure : check));
    this.push(
      events.queueLeave(this.base(at), entry, {
        reason: `Pull request #${entry.pull.number} has been dequeued: checks failed`,
        merged: false,
        dequeueCode: "CHECKS_FAILED",
        checks,
        unsuccessfulChecks: [failure],
        batchId,
        scopes: entry.pull.scopes,
      }),
    );
    this.push(events.queueChange(this.base(at), entry, entry.pull.baseRef, entry.queueName, 0));
    this.repo.left.set(entry.pull.number, {
      queueName: entry.queueName,
      branch: entry.pull.baseRef,
      merged: false,
      leftAt: at,
      dequeueCode: "CHECKS_FAILED",
    });
  }

  flush(): void {
    this.drafts.sort((a, b) => a.receivedAt - b.receivedAt);
    for (const draft of this.drafts) this.state.log.append(this.repo.key, draft);
    this.drafts.length = 0;
  }
}

function batchOf(
  name: string,
  entries: QueueEntry[],
  fields: Partial<Batch> & Pick<Batch, "phase" | "createdAt">,
): Batch {
  return {
    id: randomUUID(),
    name,
    queueName: "default",
    entries,
    subBatches: null,
    bisection: null,
    previous: null,
    startReason: "Batch is full",
    startedAt: null,
    checksEndAt: null,
    ciFinishedAt: null,
    queuePullNumber: null,
    inPlace: entries.length === 1,
    failedChecks: null,
    ...fields,
  };
}

/** History of pull requests merged one batch at a time. */
function mergedHistory(
  seeder: Seeder,
  specs: PullSpec[][],
  startAt: number,
  gap: number,
  draftStart: number,
): number {
  let at = startAt;
  let draft = draftStart;
  let batchNumber = 1;
  for (const group of specs) {
    const entries = group.map((spec, index) => seeder.entry(seeder.pull(spec), at + index * 3 * MINUTE));
    entries.forEach((entry, index) => {
      seeder.queued(entry, index + 1);
    });
    const startChecks = at + group.length * 3 * MINUTE + MINUTE;
    const endChecks = startChecks + 14 * MINUTE + (batchNumber % 4) * 2 * MINUTE;
    const id = randomUUID();
    draft += 1;
    seeder.run(
      entries,
      { id, name: `Batch ${batchNumber}`, parents: [] },
      {
        startAt: startChecks,
        endAt: endChecks,
        number: entries.length === 1 ? (entries[0]?.pull.number ?? draft) : draft,
        reason: "Batch is full",
      },
    );
    seeder.merged(entries, endChecks + 40_000, id, draft, 0);
    at += gap;
    batchNumber += 1;
  }
  return draft;
}

/**
 * Days 4 to 7 before now: more merges, two pull requests thrown out by their checks and an incident
 * pause, so that `stats` and the weekly digest have a whole week (and the days before it) to show.
 */
function weekBefore(seeder: Seeder, now: number, draftStart: number): number {
  const { alice, bob, chen, eva, farah, gus, renovate } = people;
  let draft = mergedHistory(
    seeder,
    [
      [{ number: 171, title: "feat(cart): save carts across devices", author: alice, labels: ["feature"] }],
      [
        { number: 172, title: "fix(search): ignore accents when matching", author: chen, labels: ["bug"] },
        { number: 173, title: "chore(deps): bump vitest to 4.1", author: renovate, labels: ["dependencies"] },
      ],
      [{ number: 175, title: "docs: the checkout flow, step by step", author: eva, labels: ["docs"] }],
      [{ number: 176, title: "perf(api): cache price lookups", author: farah, labels: ["backend", "api"] }],
      [
        {
          number: 178,
          title: "fix(widgets): keep focus after resize",
          author: bob,
          labels: ["bug", "frontend"],
        },
        { number: 179, title: "chore(ci): split the e2e job", author: gus, labels: ["cleanup"] },
      ],
      [{ number: 181, title: "feat(admin): export orders as CSV", author: alice, labels: ["feature"] }],
      [{ number: 183, title: "fix(auth): log out on every tab", author: farah, labels: ["bug"] }],
    ],
    now - 7 * 24 * HOUR + 2 * HOUR,
    10 * HOUR,
    draftStart,
  );
  // Two pull requests thrown out by their checks.
  for (const [spec, ago, check] of [
    [
      { number: 174, title: "feat(search): synonyms for product names", author: chen, labels: ["feature"] },
      6 * 24,
      "ci/test",
    ],
    [
      {
        number: 182,
        title: "chore(deps): bump typescript to 6.0",
        author: renovate,
        labels: ["dependencies"],
      },
      4 * 24 + 6,
      "ci/lint",
    ],
  ] as const) {
    const queuedAt = now - ago * HOUR;
    const entry = seeder.entry(seeder.pull({ ...spec, labels: [...spec.labels], failing: true }), queuedAt);
    seeder.queued(entry, 1);
    const id = randomUUID();
    draft += 1;
    const start = queuedAt + MINUTE;
    const end = start + 14 * MINUTE;
    seeder.run(
      [entry],
      { id, name: `Batch ${spec.number}`, parents: [] },
      { startAt: start, endAt: end, number: spec.number, reason: "Batch is full" },
      [check],
    );
    seeder.failed(entry, end + 5_000, id, spec.number, check);
  }
  // An incident: merges held for an hour and a half.
  const gusActor: Actor = { type: "user", id: gus.id, name: gus.login };
  const dashboard = (at: number) => ({ repository: DEMO_REPOSITORY, at, trigger: "merge queue dashboard" });
  seeder.push(events.pauseCreate(dashboard(now - 5 * 24 * HOUR), "Incident: payments API outage", gusActor));
  seeder.push(events.pauseDelete(dashboard(now - 5 * 24 * HOUR + 90 * MINUTE), gusActor));
  return draft;
}

/**
 * `liveScale` multiplies how long the live queue's running checks have left (20, 30 and 40 s; default 1):
 * tests on a real clock shorten the wait for the seed's batches, the story unchanged.
 */
export function seedDemo(state: SimState, liveScale = 1): Repository {
  const repo = state.addRepository(DEMO_REPOSITORY, { branches: ["main", "release/1.x"], mode: "parallel" });
  const now = state.clock.now();
  const seeder = new Seeder(state, repo, now);
  const { alice, bob, chen, dmitri, eva, farah, gus, renovate } = people;

  // ---- history: three days of merges, a bisection, a failure, a pause ------------------------------
  let draft = mergedHistory(
    seeder,
    [
      [
        { number: 201, title: "feat(cart): show line-item discounts", author: alice, labels: ["feature"] },
        {
          number: 203,
          title: "fix(checkout): round tax per line, not per order",
          author: bob,
          labels: ["bug"],
        },
      ],
      [
        {
          number: 204,
          title: "chore(ci): cache the pnpm store between jobs",
          author: gus,
          labels: ["cleanup"],
        },
      ],
      [
        { number: 206, title: "docs: document the widget sizing API", author: eva, labels: ["docs"] },
        { number: 208, title: "feat(search): fuzzy-match product names", author: chen, labels: ["feature"] },
      ],
    ],
    now - 70 * HOUR,
    5 * HOUR,
    88_000,
  );
  draft = mergedHistory(
    seeder,
    [
      [
        {
          number: 209,
          title: "refactor(api): extract the pricing service",
          author: dmitri,
          labels: ["backend"],
        },
        {
          number: 211,
          title: "fix(auth): refresh tokens before they expire",
          author: farah,
          labels: ["bug"],
        },
      ],
      [
        {
          number: 216,
          title: "perf(catalog): paginate category listings",
          author: chen,
          labels: ["backend"],
        },
      ],
      [{ number: 218, title: "fix(i18n): missing German plural forms", author: eva, labels: ["bug"] }],
      [
        {
          number: 221,
          title: "fix(api): answer 409 on a duplicate SKU",
          author: bob,
          labels: ["bug", "api"],
        },
      ],
    ],
    now - 46 * HOUR,
    6 * HOUR,
    draft,
  );

  draft = weekBefore(seeder, now, draft);

  // A pause by a person during a release.
  const person: Actor = { type: "user", id: dmitri.id, name: dmitri.login };
  seeder.push(
    events.pauseCreate(
      { repository: repo.fullName, at: now - 50 * HOUR, trigger: "merge queue dashboard" },
      "Release 2.3.0 freeze: hold merges until the tag is cut",
      person,
    ),
  );
  seeder.push(
    events.pauseDelete(
      { repository: repo.fullName, at: now - 48 * HOUR - 25 * MINUTE, trigger: "merge queue dashboard" },
      person,
    ),
  );

  // A batch of two that failed: bisection finds the dependency bump, the feature merges.
  {
    const queuedAt = now - 40 * HOUR;
    const e212 = seeder.entry(
      seeder.pull({
        number: 212,
        title: "feat(widgets): add the compact widget layout",
        author: alice,
        labels: ["feature", "frontend"],
        scopes: ["frontend"],
      }),
      queuedAt,
    );
    const e214 = seeder.entry(
      seeder.pull({
        number: 214,
        title: "chore(deps): bump react-dom to 18.3.1",
        author: renovate,
        labels: ["dependencies"],
      }),
      queuedAt + 2 * MINUTE,
    );
    seeder.queued(e212, 1);
    seeder.queued(e214, 2);
    const id = randomUUID();
    const batch = { id, name: "Batch 9", parents: [] };
    draft += 1;
    const start = queuedAt + 3 * MINUTE;
    const end = start + 16 * MINUTE;
    seeder.run([e212, e214], batch, { startAt: start, endAt: end, number: draft, reason: "Batch is full" }, [
      "ci/test",
    ]);
    const context = {
      branch: "main",
      queueName: "default",
      priorityRuleName: "default",
      originalNumbers: [212, 214],
      sessionId: randomUUID(),
      batchId: id,
      batchName: batch.name,
    };
    seeder.push(
      events.bisectionStart({ repository: repo.fullName, at: end, trigger: events.TRIGGER_ENGINE }, context, {
        sizeBeforeSplit: 2,
        subBatches: 2,
        depth: 1,
      }),
    );
    const subEnd = end + 15 * MINUTE;
    seeder.run(
      [e212],
      { id: randomUUID(), name: "Batch 9 / sub-batch 1", parents: [] },
      { startAt: end + 30_000, endAt: subEnd, number: 212, reason: "Batch bisection: checking a sub-batch" },
    );
    seeder.run(
      [e214],
      { id: randomUUID(), name: "Batch 9 / sub-batch 2", parents: [] },
      { startAt: end + 30_000, endAt: subEnd, number: 214, reason: "Batch bisection: checking a sub-batch" },
      ["ci/test"],
    );
    seeder.push(
      events.bisectionEnd(
        { repository: repo.fullName, at: subEnd + 5000, trigger: events.TRIGGER_ENGINE },
        context,
        { culprits: [214], remaining: [212] },
      ),
    );
    seeder.failed(e214, subEnd + 5000, id, 214, "ci/test");
    seeder.push(
      events.comment(
        { repository: repo.fullName, at: subEnd + 60_000, trigger: "Rule: notify on dependency failures" },
        { number: 214, baseRef: "main" },
        "The dependency bump failed `ci/test` in the merge queue; @bkowalski can you have a look?",
      ),
    );
    seeder.merged([e212], subEnd + 45_000, id, draft, 0);
  }

  // A single pull request whose checks failed.
  {
    const queuedAt = now - 20 * HOUR;
    const e219 = seeder.entry(
      seeder.pull({
        number: 219,
        title: "feat(admin): bulk-edit widget prices",
        author: dmitri,
        labels: ["feature", "backend"],
        scopes: ["backend"],
      }),
      queuedAt,
    );
    seeder.queued(e219, 1);
    const start = queuedAt + 10_000;
    const end = start + 18 * MINUTE;
    const batchId = randomUUID();
    seeder.run(
      [e219],
      { id: batchId, name: "Batch 11", parents: [] },
      { startAt: start, endAt: end, number: 219, reason: "Batch max wait time reached" },
      ["ci/test"],
    );
    seeder.failed(e219, end + 5000, batchId, 219, "ci/test");
    seeder.push(
      events.label(
        { repository: repo.fullName, at: end + 20_000, trigger: "Rule: label on CI failure" },
        { number: 219, baseRef: "main" },
        ["ci-failed"],
        [],
      ),
    );
  }

  // Other, non-queue events.
  seeder.push(
    events.label(
      { repository: repo.fullName, at: now - 30 * HOUR, trigger: "Rule: label frontend changes" },
      { number: 216, baseRef: "main" },
      ["backend"],
      ["needs-triage"],
    ),
  );
  seeder.push(
    events.comment(
      { repository: repo.fullName, at: now - 6 * HOUR, trigger: "Rule: welcome first-time contributors" },
      { number: 237, baseRef: "main" },
      "Thanks for your contribution! A maintainer will review it soon.",
    ),
  );
  seeder.push(
    events.label(
      { repository: repo.fullName, at: now - 5 * HOUR, trigger: "Rule: label frontend changes" },
      { number: 237, baseRef: "main" },
      ["frontend"],
      [],
    ),
  );

  // release/1.x: a merged backport.
  mergedHistory(
    seeder,
    [
      [
        {
          number: 222,
          title: "backport: fix(checkout) round tax per line (#203)",
          author: bob,
          base: "release/1.x",
          labels: ["bug"],
        },
      ],
    ],
    now - 60 * HOUR,
    HOUR,
    draft + 10,
  );

  // ---- the live queue of main ---------------------------------------------------------------------
  const main = repo.queues.get("main");
  const release = repo.queues.get("release/1.x");
  if (main === undefined || release === undefined) throw new Error("demo seed: queues missing");

  const a1 = seeder.entry(
    seeder.pull({
      number: 231,
      title: "feat(cart): persist carts across sessions",
      author: alice,
      labels: ["feature"],
    }),
    now - 9 * MINUTE,
  );
  const a2 = seeder.entry(
    seeder.pull({
      number: 233,
      title: "fix(api): handle an empty SKU list in bulk lookups",
      author: bob,
      labels: ["bug", "api"],
    }),
    now - 8 * MINUTE,
  );
  const b1 = seeder.entry(
    seeder.pull({
      number: 226,
      title: "feat(widgets): drag-and-drop widget ordering",
      author: chen,
      labels: ["feature"],
    }),
    now - 7 * MINUTE,
  );
  const b2 = seeder.entry(
    seeder.pull({
      number: 228,
      title: "fix(ui): visible focus ring on dark-theme buttons",
      author: eva,
      labels: ["bug"],
    }),
    now - 6 * MINUTE,
  );
  const b3 = seeder.entry(
    seeder.pull({
      number: 229,
      title: "chore(deps): bump webpack to 5.94.0",
      author: renovate,
      labels: ["dependencies"],
      failing: true,
    }),
    now - 6 * MINUTE + 20_000,
  );
  const c1 = seeder.entry(
    seeder.pull({
      number: 234,
      title: "feat(frontend): dark mode for the widget gallery",
      author: farah,
      labels: ["feature", "frontend"],
      scopes: ["frontend"],
    }),
    now - 5 * MINUTE,
  );
  const c2 = seeder.entry(
    seeder.pull({
      number: 235,
      title: "fix(frontend): blurry gallery thumbnails on retina screens",
      author: eva,
      labels: ["bug", "frontend"],
      scopes: ["frontend"],
    }),
    now - 4 * MINUTE,
  );
  const w1 = seeder.entry(
    seeder.pull({
      number: 236,
      title: "feat(api): webhooks for widget stock changes",
      author: dmitri,
      labels: ["feature", "api", "backend"],
      scopes: ["backend"],
    }),
    now - 3 * MINUTE,
  );
  const w2 = seeder.entry(
    seeder.pull({
      number: 237,
      title: "fix(frontend): tooltip overflow on small screens",
      author: alice,
      labels: ["bug", "frontend"],
      scopes: ["frontend"],
    }),
    now - 2 * MINUTE,
    "urgent",
  );
  const w3 = seeder.entry(
    seeder.pull({
      number: 238,
      title: "chore: remove the legacy /v0 widget endpoints",
      author: gus,
      labels: ["cleanup", "backend"],
      scopes: ["backend"],
    }),
    now - MINUTE,
  );
  [a1, a2, b1, b2, b3, c1, c2, w1, w2, w3].forEach((entry, index) => {
    seeder.queued(entry, index + 1);
  });

  repo.batchCounter = 20;
  const batchA = batchOf("Batch 21", [a1, a2], {
    phase: "running",
    createdAt: now - 8 * MINUTE,
    startedAt: now - 40_000,
    checksEndAt: now + 20_000 * liveScale,
    queuePullNumber: 91_021,
    inPlace: false,
  });
  const batchB = batchOf("Batch 22", [b1, b2, b3], {
    phase: "bisecting",
    createdAt: now - 6 * MINUTE,
    startedAt: now - 4 * MINUTE,
    checksEndAt: now - 3 * MINUTE,
    ciFinishedAt: now - 3 * MINUTE,
    queuePullNumber: 91_022,
    inPlace: false,
    failedChecks: ["ci/test"],
  });
  const subOf = (
    name: string,
    entries: QueueEntry[],
    fields: Partial<SubBatch> & Pick<SubBatch, "phase">,
  ): SubBatch => ({
    id: randomUUID(),
    name,
    entries,
    startedAt: null,
    checksEndAt: null,
    ciFinishedAt: null,
    queuePullNumber: null,
    inPlace: entries.length === 1,
    failedChecks: null,
    ...fields,
  });
  batchB.subBatches = [
    subOf("Batch 22 / sub-batch 1", [b1], {
      phase: "passed",
      startedAt: now - 170_000,
      checksEndAt: now - 110_000,
      ciFinishedAt: now - 110_000,
      queuePullNumber: 226,
      failedChecks: [],
    }),
    subOf("Batch 22 / sub-batch 2", [b2, b3], {
      phase: "running",
      startedAt: now - 30_000,
      checksEndAt: now + 30_000 * liveScale,
      queuePullNumber: 91_024,
    }),
  ];
  batchB.bisection = { sessionId: randomUUID(), originalNumbers: [226, 228, 229], depth: 1, culprits: [] };
  const batchC = batchOf("Batch 23", [c1, c2], {
    phase: "pending",
    createdAt: now - 3 * MINUTE,
    startReason: "Re-embarked: a batch ahead changed",
  });
  main.batches.push(batchA, batchB, batchC);
  for (const entry of [w1, w2, w3]) state.engine.insertWaiting(main, entry);
  repo.draftCounter = 91_030;

  // Events of the live queue so far.
  seeder.run(
    [a1, a2],
    { id: batchA.id, name: batchA.name, parents: [] },
    { startAt: now - 40_000, endAt: null, number: 91_021, reason: "Batch is full" },
  );
  seeder.run(
    [b1, b2, b3],
    { id: batchB.id, name: batchB.name, parents: [batchA.id] },
    { startAt: now - 4 * MINUTE, endAt: now - 3 * MINUTE, number: 91_022, reason: "Batch is full" },
    ["ci/test"],
  );
  const bisection = {
    branch: "main",
    queueName: "default",
    priorityRuleName: "default",
    originalNumbers: [226, 228, 229],
    sessionId: batchB.bisection.sessionId,
    batchId: batchB.id,
    batchName: batchB.name,
  };
  seeder.push(
    events.bisectionStart(
      { repository: repo.fullName, at: now - 3 * MINUTE, trigger: events.TRIGGER_ENGINE },
      bisection,
      { sizeBeforeSplit: 3, subBatches: 2, depth: 1 },
    ),
  );
  const [sub1, sub2] = batchB.subBatches;
  if (sub1 !== undefined && sub2 !== undefined) {
    seeder.run(
      [b1],
      { id: sub1.id, name: sub1.name, parents: [] },
      {
        startAt: now - 170_000,
        endAt: now - 110_000,
        number: 226,
        reason: "Batch bisection: checking a sub-batch",
      },
    );
    seeder.run(
      [b2, b3],
      { id: sub2.id, name: sub2.name, parents: [] },
      { startAt: now - 30_000, endAt: null, number: 91_024, reason: "Batch bisection: checking a sub-batch" },
    );
  }

  // ---- release/1.x ----------------------------------------------------------------------------------
  const r1 = seeder.entry(
    seeder.pull({
      number: 240,
      title: "backport: fix(api) handle an empty SKU list (#233)",
      author: bob,
      base: "release/1.x",
      labels: ["bug"],
    }),
    now - 2 * MINUTE,
  );
  const r2 = seeder.entry(
    seeder.pull({
      number: 241,
      title: "backport: fix(auth) refresh tokens before they expire (#211)",
      author: farah,
      base: "release/1.x",
      labels: ["bug"],
    }),
    now - 5_000,
  );
  seeder.queued(r1, 1);
  seeder.queued(r2, 2);
  const batchR = batchOf("Batch 24", [r1], {
    phase: "running",
    createdAt: now - 70_000,
    startedAt: now - 20_000,
    checksEndAt: now + 40_000 * liveScale,
    queuePullNumber: 240,
    inPlace: true,
    startReason: "Batch max wait time reached",
  });
  repo.batchCounter = 24;
  release.batches.push(batchR);
  state.engine.insertWaiting(release, r2);
  seeder.run(
    [r1],
    { id: batchR.id, name: batchR.name, parents: [] },
    { startAt: now - 20_000, endAt: null, number: 240, reason: "Batch max wait time reached" },
  );

  // ---- known pull requests that are not queued -------------------------------------------------------
  const open: PullSpec[] = [
    { number: 101, title: "feat(widgets): export widgets as CSV", author: alice, labels: ["feature"] },
    { number: 102, title: "fix(cart): keep the coupon when quantities change", author: bob, labels: ["bug"] },
    { number: 103, title: "docs: architecture decision record for pricing", author: eva, labels: ["docs"] },
    {
      number: 104,
      title: "refactor(search): split the indexer into modules",
      author: chen,
      labels: ["backend"],
      scopes: ["backend"],
    },
    {
      number: 105,
      title: "feat(admin): audit log for price changes",
      author: dmitri,
      labels: ["feature", "backend"],
      scopes: ["backend"],
    },
    {
      number: 106,
      title: "backport: docs: widget sizing API (#206)",
      author: gus,
      base: "release/1.x",
      labels: ["docs"],
    },
  ];
  for (const spec of open) seeder.pull(spec);

  seeder.flush();
  return repo;
}
