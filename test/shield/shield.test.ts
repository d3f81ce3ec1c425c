import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { GitHubGateway, PullRequestInfo } from "../../src/commands/ports.js";
import type { MergeQueueBackend, QueueEntry } from "../../src/core/merge-queue.js";
import type { QueuePause } from "../../src/core/pause.js";
import type { QueueEvent } from "../../src/core/queue.js";
import { QueueError, QueueErrorCode } from "../../src/core/queue-error.js";
import { createLogger } from "../../src/logger.js";
import { withAlsoFailed } from "../../src/notifier/notes.js";
import { Repo } from "../../src/repo.js";
import { FlakeShield } from "../../src/shield/shield.js";
import { shieldLine } from "../../src/shield/words.js";
import { openStore, type Store } from "../../src/store/index.js";
import type { TextFormat } from "../../src/wording/description.js";

// The flake shield (src/shield/shield.ts) on a real store (SQLite in memory) and a merge queue of its own:
// when it queues a pull request again, and when it never does.

const repo = Repo.of("acme", "widgets");
const T0 = Date.parse("2026-03-02T10:00:00Z");
const iso = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
const PLAIN: TextFormat = {
  escape: (t) => t,
  code: (t) => `\`${t}\``,
  bold: (t) => t,
  italic: (t) => t,
  strong: (m) => m,
  link: (_u, l) => l,
  invocation: "@yardmaster",
};

let nextId = 100;
const base = () => ({
  id: nextId++,
  repository: repo.fullName,
  branch: "main",
  queue: "default",
  origin: "test",
});
const left = (pull: number, minutes: number, check = "ci/test"): QueueEvent & { kind: "left" } => {
  const b = base();
  return {
    ...b,
    at: iso(minutes),
    pull,
    kind: "left",
    merged: false,
    reason: "its checks failed",
    code: "CHECKS_FAILED",
    // Each pull request's own run of the check: its own page.
    failedChecks: [{ name: check, url: `https://ci.example/runs/${b.id}`, state: "failure" }],
  };
};
const entered = (pull: number, minutes: number, queuedBy: string | null = "carol"): QueueEvent => ({
  ...base(),
  at: iso(minutes),
  pull,
  kind: "entered",
  queuedBy,
});

/** A merge queue of its own: what was queued again, whether it is paused, whether it refuses. */
function queue(via: "api" | "comments") {
  const q = {
    enqueued: [] as number[],
    queued: new Set<number>(),
    pause: null as QueuePause | null,
    refuse: null as Error | null,
    backend: undefined as unknown as MergeQueueBackend,
  };
  q.backend = {
    kind: via === "api" ? "github" : "mergify",
    can: { namedQueues: via !== "api", jump: via === "api", batches: via !== "api" },
    cannot: {},
    state: async () => null,
    entry: async (_repo, n) => (q.queued.has(n) ? ({ position: 1 } as QueueEntry) : null),
    pauses: {
      scope: "repository",
      current: async () => q.pause,
      pause: async () => Promise.reject(new Error("not used")),
      resume: async () => false,
    },
    commands:
      via === "api"
        ? {
            via: "api",
            enqueue: async (_repo, pull) => {
              if (q.refuse) throw q.refuse;
              q.enqueued.push(pull.number);
              return null;
            },
            dequeue: async () => false,
          }
        : {
            via: "comments",
            readAnswer: () => ({
              kind: "other",
              refusal: null,
              command: null,
              headline: "",
              unmet: [],
              position: null,
            }),
          },
  };
  return q;
}

function gateway(state: PullRequestInfo["state"] = "open") {
  const comments: { pull: number; body: string }[] = [];
  const github: GitHubGateway = {
    permission: async () => "write",
    pullRequest: async (_repo, number) => ({
      number,
      title: `Change ${number}`,
      url: `https://github.com/acme/widgets/pull/${number}`,
      state,
      merged: false,
      baseRef: "main",
      headSha: `head${number}`,
      author: { login: "alice", id: 1 },
    }),
    comment: async (_repo, pull, body) => {
      comments.push({ pull, body });
      return { id: comments.length, url: `https://github.com/acme/widgets/pull/${pull}#c${comments.length}` };
    },
    findComment: async () => null,
  };
  return { github, comments };
}

let store: Store;
let now: number;
beforeEach(async () => {
  store = await openStore({ kind: "sqlite", path: ":memory:" });
  now = T0;
});
afterEach(async () => {
  await store.close();
});

function shieldOn(
  q: ReturnType<typeof queue>,
  github = gateway().github,
  owner = "replica-a",
  mayRetry?: (repository: Repo, login: string) => Promise<boolean>,
) {
  const shield = new FlakeShield({
    store,
    queues: { for: async () => q.backend },
    github,
    commandPrefix: "@mergifyio",
    ...(mayRetry ? { mayRetry } : {}),
    owner,
    now: () => new Date(now),
    logger: createLogger({ level: "silent" }),
    decisionWaitMs: 5_000,
  });
  return { shield };
}

/** The shield's line in a removal's notices and summary comment (src/shield/words.ts). */
const said = (event: QueueEvent) => shieldLine(event, PLAIN);

async function turnOn(enabled = true) {
  await store.putFlakeShield({
    repository: repo,
    enabled,
    changedBy: "alice",
    surface: "slack",
    changedAt: new Date(T0 - 3_600_000),
  });
}

/** Records the events as the notifier does, then hands the last one to the shield as the notifier would. */
async function removal(shield: FlakeShield, events: QueueEvent[]): Promise<QueueEvent> {
  await store.recordQueueEvents(repo, events, new Date(now));
  const event = events.at(-1) as QueueEvent;
  return shield.consider(repo, await withAlsoFailed(store, repo, event));
}

describe("the flake shield", () => {
  it("queues again once a pull request whose check also failed for two others within the hour, and says so", async () => {
    await turnOn();
    const q = queue("api");
    const { shield } = shieldOn(q);
    const leave = left(23, 0);
    const shown = await removal(shield, [left(21, -40), left(22, -20), entered(23, -10, "carol"), leave]);
    expect(shown.notes?.alsoFailed).toEqual([{ check: "ci/test", pulls: [21, 22] }]);
    expect(shown.notes?.shield).toEqual({ check: "ci/test", outcome: "requeued", detail: null });
    expect(q.enqueued).toEqual([23]);
    // What its notices and the removal's summary comment say of it.
    expect(said(shown)).toBe("🛡️ ci/test is failing for everyone: queued again, attempt 2 of 2");
    // Who queued it stays its queuer (the merge queue names the app's bot for the new entry).
    expect(await store.getQueueRequest(repo, 23)).toEqual({ login: "carol", at: new Date(now) });
    // The same removal handed over again (a redelivery, a read again): said again, queued no more.
    const again = await shield.consider(repo, await withAlsoFailed(store, repo, leave));
    expect(again.notes?.shield).toEqual({ check: "ci/test", outcome: "requeued", detail: null });
    expect(q.enqueued).toEqual([23]);
  });

  it("never queues again one whose check failed only for it, or for one other", async () => {
    await turnOn();
    const q = queue("api");
    const { shield } = shieldOn(q);
    const alone = await removal(shield, [entered(23, -10), left(23, 0)]);
    expect(alone.notes).toBeUndefined();
    const oneOther = await removal(shield, [left(21, -30, "lint"), entered(24, -5), left(24, 1, "lint")]);
    expect(oneOther.notes?.alsoFailed).toEqual([{ check: "lint", pulls: [21] }]);
    expect(oneOther.notes?.shield).toBeUndefined();
    // Two others, but more than an hour before: not for everyone now.
    const old = await removal(shield, [
      left(31, -200, "e2e"),
      left(32, -190, "e2e"),
      entered(25, -5),
      left(25, 2, "e2e"),
    ]);
    expect(old.notes?.shield).toBeUndefined();
    expect(q.enqueued).toEqual([]);
  });

  it("does nothing where it is off (the default)", async () => {
    const q = queue("api");
    const { shield } = shieldOn(q);
    const shown = await removal(shield, [left(21, -40), left(22, -20), left(23, 0)]);
    expect(shown.notes?.shield).toBeUndefined();
    await turnOn(false);
    const off = await removal(shield, [left(24, 1)]);
    expect(off.notes?.alsoFailed?.[0]?.pulls).toEqual([21, 22, 23]);
    expect(off.notes?.shield).toBeUndefined();
    expect(q.enqueued).toEqual([]);
  });

  it("never queues again while the queue is paused", async () => {
    await turnOn();
    const q = queue("api");
    q.pause = { reason: "release freeze", pausedAt: iso(-60), by: "alice" };
    const { shield } = shieldOn(q);
    const shown = await removal(shield, [left(21, -40), left(22, -20), left(23, 0)]);
    expect(shown.notes?.alsoFailed?.[0]?.pulls).toEqual([21, 22]);
    expect(shown.notes?.shield).toBeUndefined();
    expect(said(shown)).toBe("");
    expect(q.enqueued).toEqual([]);
    const [claim] = await store.listShieldRetries(repo, {
      from: new Date(T0 - 3_600_000),
      to: new Date(T0 + 3_600_000),
    });
    expect(claim).toMatchObject({ outcome: "skipped", detail: "the merge queue is paused (release freeze)" });
  });

  it("never queues again while a freeze window is in progress", async () => {
    await turnOn();
    await store.addFreeze({
      id: "f1",
      repository: repo,
      name: "release freeze",
      schedule: {
        kind: "once",
        start: { year: 2026, month: 3, day: 2, hour: 9, minute: 0 },
        end: { year: 2026, month: 3, day: 2, hour: 12, minute: 0 },
      },
      zone: "UTC",
      createdBy: "alice",
      surface: "slack",
      createdAt: new Date(T0 - 86_400_000),
    });
    const q = queue("api");
    const { shield } = shieldOn(q);
    const shown = await removal(shield, [left(21, -40), left(22, -20), left(23, 0)]);
    expect(shown.notes?.shield).toBeUndefined();
    expect(q.enqueued).toEqual([]);
  });

  it("never queues again the entry it made; a person's new entry may be", async () => {
    await turnOn();
    const q = queue("api");
    const { shield } = shieldOn(q);
    await removal(shield, [left(21, -40), left(22, -20), entered(23, -10), left(23, 0)]);
    expect(q.enqueued).toEqual([23]);
    // The shield's entry fails too: left alone (the check still fails for everyone).
    now = T0 + 20 * 60_000;
    const second = await removal(shield, [entered(23, 1, "yardmaster[bot]"), left(23, 20)]);
    expect(second.notes?.alsoFailed?.[0]?.pulls).toEqual([21, 22]);
    expect(second.notes?.shield).toBeUndefined();
    expect(q.enqueued).toEqual([23]);
    // Then someone queues it again by hand: a new entry, which the shield may retry once.
    now = T0 + 45 * 60_000;
    const third = await removal(shield, [left(26, 30), left(27, 32), entered(23, 35, "carol"), left(23, 45)]);
    expect(third.notes?.shield?.outcome).toBe("requeued");
    expect(q.enqueued).toEqual([23, 23]);
  });

  it("queues again once when two replicas take the same removal at once, and both say so", async () => {
    await turnOn();
    const q = queue("api");
    const a = shieldOn(q, gateway().github, "replica-a");
    const b = shieldOn(q, gateway().github, "replica-b");
    const leave = left(23, 0);
    await store.recordQueueEvents(
      repo,
      [left(21, -40), left(22, -20), entered(23, -10), leave],
      new Date(now),
    );
    const event = await withAlsoFailed(store, repo, leave);
    const [byA, byB] = await Promise.all([a.shield.consider(repo, event), b.shield.consider(repo, event)]);
    expect(q.enqueued).toEqual([23]);
    expect(byA.notes?.shield?.outcome).toBe("requeued");
    expect(byB.notes?.shield?.outcome).toBe("requeued");
  });

  it("queues again once when the second replica takes the removal after the re-queue's entry is recorded", async () => {
    await turnOn();
    const q = queue("api");
    const a = shieldOn(q, gateway().github, "replica-a");
    const b = shieldOn(q, gateway().github, "replica-b");
    const leave = left(23, 0);
    await store.recordQueueEvents(
      repo,
      [left(21, -40), left(22, -20), entered(23, -10), leave],
      new Date(now),
    );
    const event = await withAlsoFailed(store, repo, leave);
    expect((await a.shield.consider(repo, event)).notes?.shield?.outcome).toBe("requeued");
    // The re-queue's own entry, heard at the removal's very time (a clock that did not move).
    await store.recordQueueEvents(repo, [entered(23, 0, "yardmaster[bot]")], new Date(now));
    const byB = await b.shield.consider(repo, event);
    expect(byB.notes?.shield?.outcome).toBe("requeued");
    expect(q.enqueued).toEqual([23]);
    const retries = await store.listShieldRetries(repo, { from: new Date(0), to: new Date(now + 60_000) });
    expect(retries.map((r) => [r.pull, r.outcome])).toEqual([[23, "requeued"]]);
  });

  it("queues again once what a replica that died holding the removal left: after its claim lapsed, by the next to take it", async () => {
    await turnOn();
    const q = queue("api");
    const entry = entered(23, -10);
    const leave = left(23, 0);
    await store.recordQueueEvents(repo, [left(21, -40), left(22, -20), entry, leave], new Date(now));
    // The replica that died: its claim (lapsed now) and its record of the removal, never decided.
    const key = { repository: repo, pull: 23, entryKey: String(entry.id) };
    const lapsed = new Date(Date.now() - 1_000);
    const claim = { owner: "dead", now: new Date(Date.now() - 61_000), until: lapsed, keepMs: 86_400_000 };
    expect(await store.claimOnce("flake-shield", `acme/widgets#23#${entry.id}`, claim)).toBe("claimed");
    await store.recordShieldRetry({
      ...key,
      leftEventId: leave.id,
      leftAt: new Date(leave.at),
      check: "ci/test",
      owner: "dead",
      now: new Date(now),
    });
    const { shield } = shieldOn(q, gateway().github, "replica-b");
    const event = await withAlsoFailed(store, repo, leave);
    expect((await shield.consider(repo, event)).notes?.shield?.outcome).toBe("requeued");
    expect(q.enqueued).toEqual([23]);
    expect(await store.getShieldRetry(key)).toMatchObject({ claimedBy: "replica-b", outcome: "requeued" });
    // Taken again: shown as done, queued no more.
    expect((await shield.consider(repo, event)).notes?.shield?.outcome).toBe("requeued");
    expect(q.enqueued).toEqual([23]);
  });

  it("says plainly when the merge queue refuses to queue it again", async () => {
    await turnOn();
    const q = queue("api");
    q.refuse = new QueueError(QueueErrorCode.Invalid, "refused", {
      status: 422,
      detail: "Pull request is not mergeable",
    });
    const { shield } = shieldOn(q);
    const shown = await removal(shield, [left(21, -40), left(22, -20), left(23, 0)]);
    expect(shown.notes?.shield).toEqual({
      check: "ci/test",
      outcome: "failed",
      detail: "the merge queue answered 422 (Pull request is not mergeable)",
    });
    expect(said(shown)).toBe(
      "⚠️ ci/test is failing for everyone, but Yardmaster could not queue it again: the merge queue answered 422 (Pull request is not mergeable). Requeue it by hand once the check is fixed.",
    );
  });

  it("queues nothing again once who turned it on lost the permission to, and says so", async () => {
    await turnOn();
    const q = queue("api");
    const asked: string[] = [];
    const { shield } = shieldOn(q, gateway().github, "replica-a", async (_repo, login) => {
      asked.push(login);
      return false;
    });
    const shown = await removal(shield, [left(21, -40), left(22, -20), left(23, 0)]);
    expect(asked).toEqual(["alice"]);
    expect(q.enqueued).toEqual([]);
    expect(shown.notes?.shield).toEqual({
      check: "ci/test",
      outcome: "failed",
      detail:
        "alice, who turned the flake shield on, may no longer do so (someone who may can turn it on again with retry on)",
    });
  });

  it("on a queue that takes commands as comments (Mergify's), relays queue to the same queue, saying why", async () => {
    await turnOn();
    const q = queue("comments");
    const { github, comments } = gateway();
    const { shield } = shieldOn(q, github);
    const shown = await removal(shield, [left(21, -40), left(22, -20), left(23, 0)]);
    // Mergify takes the relayed command in its own time: the notices say it was asked.
    expect(shown.notes?.shield?.outcome).toBe("asked");
    expect(said(shown)).toBe(
      "🛡️ ci/test is failing for everyone: asked Mergify to queue it again, attempt 2 of 2",
    );
    expect(comments).toHaveLength(1);
    expect(comments[0]?.pull).toBe(23);
    expect(comments[0]?.body.split("\n")[0]).toBe("@mergifyio queue default");
    expect(comments[0]?.body).toContain(
      "<sub>Queued again by Yardmaster's flake shield: `ci/test` also failed for #21 and #22 in the last hour (attempt 2 of 2).</sub>",
    );
  });

  it("leaves alone a pull request closed since, or queued again already", async () => {
    await turnOn();
    const q = queue("api");
    const closed = shieldOn(q, gateway("closed").github);
    expect(
      (await removal(closed.shield, [left(21, -40), left(22, -20), left(23, 0)])).notes?.shield,
    ).toBeUndefined();
    q.queued.add(24);
    const { shield } = shieldOn(q);
    expect((await removal(shield, [left(24, 1)])).notes?.shield).toBeUndefined();
    expect(q.enqueued).toEqual([]);
  });

  it("is not thrown by a failing store: the notice goes without", async () => {
    await turnOn();
    const q = queue("api");
    const { shield } = shieldOn(q);
    const leave = left(23, 0);
    await store.recordQueueEvents(repo, [left(21, -40), left(22, -20), leave], new Date(now));
    const event = await withAlsoFailed(store, repo, leave);
    await store.close();
    const shown = await shield.consider(repo, event);
    expect(shown).toEqual(event);
    store = await openStore({ kind: "sqlite", path: ":memory:" });
  });
});
