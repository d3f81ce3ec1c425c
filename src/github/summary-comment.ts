import { setTimeout as sleep } from "node:timers/promises";
import type { Repo } from "../repo.js";
import type { OnceClaimStore, SummaryCommentRecords } from "../store/index.js";
import { errorStatus, type GitHubWrites } from "./github-writes.js";
import type { Octokit } from "./octokit-gateway.js";

// The summary comments' records are the store's (src/store/shared-github-writes.ts).
export type { SummaryCommentRecords };

/** Hidden in the rendered comment; how the summary is found again. */
export const SUMMARY_MARKER = "<!-- yardmaster:summary -->";

/**
 * Runs one task at a time per key, in the order they came: two commands on one pull request write its
 * summary one after the other, so the second finds (and edits) what the first created.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve();
    const result = before.then(task, task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await result;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

/**
 * One summary per issue across replicas: the store's records, its once-claims (a summary's creation is
 * claimed by scope `summary-comment` and the issue, and released once written), and this replica as a
 * claim's holder.
 */
export interface SummaryClaims {
  records: SummaryCommentRecords & Pick<OnceClaimStore, "claimOnce" | "renewOnce" | "releaseOnce">;
  owner: string;
  /** How long a claim lasts unrenewed (a replica stopped while creating holds the others up that long). */
  claimMs?: number;
  /** How often a replica waiting for another's creation asks the store again. */
  pollMs?: number;
}

export const SUMMARY_CLAIM_MS = 30_000;
export const SUMMARY_POLL_MS = 200;
/** The once-claims' scope of summary comments' creations, keyed by the issue (`owner/name#number`). */
const SCOPE = "summary-comment";
/** A creation's once-claim is forgotten a day after it was first made (it is released once written). */
const SUMMARY_CLAIM_KEEP_MS = 24 * 60 * 60 * 1000;

interface Target {
  octokit: Octokit;
  writes: Pick<GitHubWrites, "run">;
  repo: Repo;
  issueNumber: number;
  botLogin: string;
  body: string;
}

/** The app's summary comment on the issue, looked for on GitHub (the first 100-comment pages). */
async function findOnGitHub(t: Target): Promise<number | undefined> {
  const params = { owner: t.repo.owner, repo: t.repo.name, issue_number: t.issueNumber, per_page: 100 };
  for await (const page of t.octokit.paginate.iterator(t.octokit.rest.issues.listComments, params)) {
    const mine = page.data.find(
      (c) => c.user?.login.toLowerCase() === t.botLogin.toLowerCase() && c.body?.includes(SUMMARY_MARKER),
    );
    if (mine) return mine.id;
  }
  return undefined;
}

/** Edits the summary; false when GitHub says it is gone (deleted since). */
async function edit(t: Target, id: number): Promise<boolean> {
  try {
    await t.writes.run({
      kind: "edit",
      priority: "answer",
      what: `summary comment on ${t.repo.fullName}#${t.issueNumber} (edit)`,
      send: (request) =>
        t.octokit.rest.issues.updateComment({
          owner: t.repo.owner,
          repo: t.repo.name,
          comment_id: id,
          body: t.body,
          request,
        }),
    });
    return true;
  } catch (error) {
    if (errorStatus(error) !== 404) throw error;
    return false;
  }
}

/**
 * Creates the summary. A creation tried again (GitHub answered 5xx, and may have created it after all)
 * first looks for it again, so it is never doubled.
 */
function create(t: Target): Promise<{ id: number; created: boolean }> {
  const where = { owner: t.repo.owner, repo: t.repo.name };
  return t.writes.run({
    kind: "comment",
    priority: "answer",
    what: `summary comment on ${t.repo.fullName}#${t.issueNumber}`,
    send: async (request, attempt) => {
      const again = attempt > 1 ? await findOnGitHub(t) : undefined;
      if (again !== undefined) {
        await t.octokit.rest.issues.updateComment({ ...where, comment_id: again, body: t.body, request });
        return { id: again, created: false };
      }
      const { data } = await t.octokit.rest.issues.createComment({
        ...where,
        issue_number: t.issueNumber,
        body: t.body,
        request,
      });
      return { id: data.id, created: true };
    },
  });
}

/**
 * Edits the app's summary comment on an issue or pull request in place, or creates it the first time.
 * Only a comment written by the app itself counts, so a person quoting the marker changes nothing.
 * The edit or creation is a write of the answer's priority.
 *
 * With `claims` (the store, shared by the replicas), there is one summary whichever replicas answer at
 * once: its id is read from the store, else it is looked for on GitHub (one written before the store
 * kept them) and recorded, else its creation is claimed in the store before it is created, and a replica
 * that finds another's claim waits for the id that replica records, then edits. A claim is renewed while
 * the creation waits its turn, and runs out `claimMs` after a replica stopped.
 */
export async function upsertSummaryComment(
  octokit: Octokit,
  writes: Pick<GitHubWrites, "run">,
  repo: Repo,
  issueNumber: number,
  botLogin: string,
  body: string,
  claims?: SummaryClaims,
): Promise<{ id: number; created: boolean }> {
  // Every writer of this replica (a command's answer, a removal's details, the flake shield's note) in
  // turn per pull request: the claim below keeps replicas apart, not two writers of one replica (its
  // owner; tests run several replicas in one process).
  return WRITERS.run(`${claims?.owner ?? ""} ${repo.key}#${issueNumber}`, () =>
    upsert({ octokit, writes, repo, issueNumber, botLogin, body }, claims),
  );
}

/** This process's summary writers, one at a time per replica and pull request. */
const WRITERS = new KeyedLock();

async function upsert(t: Target, claims?: SummaryClaims): Promise<{ id: number; created: boolean }> {
  const { repo, issueNumber } = t;
  if (!claims) {
    const existing = await findOnGitHub(t);
    if (existing !== undefined && (await edit(t, existing))) return { id: existing, created: false };
    return create(t);
  }
  const { records } = claims;
  // A summary deleted on GitHub since it was recorded is forgotten and written again (twice at most).
  for (let round = 0; ; round++) {
    const known = (await records.getSummaryComment(repo, issueNumber)) ?? (await findAndRecord(t, records));
    const id = known ?? (await claimOrWait(t, claims));
    if (typeof id === "object") return id;
    if (await edit(t, id)) return { id, created: false };
    await records.forgetSummaryComment(repo, issueNumber, id);
    if (round >= 2)
      throw new Error(`the summary comment on ${repo.fullName}#${issueNumber} keeps disappearing`);
  }
}

async function findAndRecord(t: Target, records: SummaryCommentRecords): Promise<number | null> {
  const found = await findOnGitHub(t);
  if (found === undefined) return null;
  await records.recordSummaryComment(t.repo, t.issueNumber, found, new Date());
  return found;
}

/**
 * Creates the summary under this replica's claim, or waits for the id of the one another creates. The
 * id is read again once claimed: a replica that created it records it before releasing its claim.
 */
async function claimOrWait(
  t: Target,
  claims: SummaryClaims,
): Promise<number | { id: number; created: boolean }> {
  const { records, owner } = claims;
  const claimMs = claims.claimMs ?? SUMMARY_CLAIM_MS;
  const key = `${t.repo.key}#${t.issueNumber}`;
  const until = () => new Date(Date.now() + claimMs);
  for (;;) {
    const claimed = await records.claimOnce(SCOPE, key, {
      owner,
      now: new Date(),
      until: until(),
      keepMs: SUMMARY_CLAIM_KEEP_MS,
    });
    const known = await records.getSummaryComment(t.repo, t.issueNumber);
    if (claimed !== "claimed") {
      if (known !== null) return known;
      await sleep(claims.pollMs ?? SUMMARY_POLL_MS);
      continue;
    }
    const renewal = setInterval(
      () => void records.renewOnce(SCOPE, key, owner, until()).catch(() => undefined),
      claimMs / 3,
    );
    renewal.unref();
    try {
      if (known !== null) return known;
      const written = await create(t);
      await records.recordSummaryComment(t.repo, t.issueNumber, written.id, new Date());
      return written;
    } finally {
      clearInterval(renewal);
      await records.releaseOnce(SCOPE, key, owner).catch(() => undefined);
    }
  }
}
