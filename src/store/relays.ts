import { type Kysely, type Selectable, sql } from "kysely";
import type { RelayStore } from "../core/record-ports.js";
import type { RelayAnswerComment, RelayRecord } from "../core/records.js";
import { Repo } from "../repo.js";
import { inTransaction, type Tables } from "./database.js";
import { EPOCH } from "./migrations/004-poll-schedule.js";
import { type DialectValues, int, json, readTime, type StoreContext, time } from "./query-helpers.js";

// Relayed commands followed until the merge queue answers them (one row per relay, shared by the
// replicas). The core owns the records' types (src/core/records.ts)
// and the interface (RelayStore, src/core/record-ports.ts).
export type { RelayStore };

/** The durable work's kind of answers to show (src/relays/follower.ts), keyed by the relay's id. */
export const RELAY_ANSWER_KIND = "relay-answer";

/** A relay is forgotten this long after its deadline (pruned now and then, when relays are created). */
export const RELAY_RETENTION_MS = 24 * 60 * 60 * 1000;

export function kyselyRelays(ctx: StoreContext): RelayStore {
  return {
    createRelay: createRelay(ctx),
    updateRelay: updateRelay(ctx),
    deleteRelay: deleteRelay(ctx),
    getRelay: getRelay(ctx),
    recordRelayAnswer: recordRelayAnswer(ctx),
    presentRelay: presentRelay(ctx),
    supersedeRelays: supersedeRelays(ctx),
    markRelayShown: markRelayShown(ctx),
  };
}

function createRelay(ctx: StoreContext): RelayStore["createRelay"] {
  const { db } = ctx;
  return async (
    r: Omit<RelayRecord, "presentation" | "answer" | "answerVersion" | "appliedVersion" | "superseded">,
  ): Promise<void> => {
    await ctx.pruneIfDue("relays", r.relayedAt, async () => {
      const forgotten = time(new Date(r.relayedAt.getTime() - RELAY_RETENTION_MS));
      await db.deleteFrom("relays").where("deadline", "<", forgotten).execute();
    });
    await db
      .insertInto("relays")
      .values({
        id: r.id,
        repository_key: r.repository.key,
        repository: r.repository.fullName,
        pull_request: r.pull,
        command_name: r.commandName,
        surface: r.surface,
        relayed_at: time(r.relayedAt),
        deadline: time(r.deadline),
        relay: json(r.relay),
      })
      .onConflict((oc) => oc.column("id").doNothing())
      .execute();
  };
}

function updateRelay(ctx: StoreContext): RelayStore["updateRelay"] {
  const { db } = ctx;
  return async (id: string, relay: unknown): Promise<void> => {
    await db
      .updateTable("relays")
      .set({ relay: json(relay) })
      .where("id", "=", id)
      .execute();
  };
}

function deleteRelay(ctx: StoreContext): RelayStore["deleteRelay"] {
  const { db } = ctx;
  return async (id: string): Promise<void> => {
    await db.deleteFrom("relays").where("id", "=", id).execute();
  };
}

function getRelay(ctx: StoreContext): RelayStore["getRelay"] {
  const { db, v } = ctx;
  return async (id: string): Promise<RelayRecord | null> => {
    const row = await db.selectFrom("relays").selectAll().where("id", "=", id).executeTakeFirst();
    return row ? toRelay(row, v) : null;
  };
}

function recordRelayAnswer(ctx: StoreContext): RelayStore["recordRelayAnswer"] {
  const { db } = ctx;
  return async (a: RelayAnswerComment): Promise<RelayRecord | null> => {
    const thread = db
      .selectFrom("relays")
      .selectAll()
      .where("repository_key", "=", a.repository.key)
      .where("pull_request", "=", a.pull);
    const answered = await thread.where("answer_comment_id", "=", a.commentId).executeTakeFirst();
    // An edit of an answer is its relay's, followed until its deadline only.
    if (answered && readTime(answered.deadline) <= a.now) return null;
    const candidates = answered
      ? [answered]
      : await thread
          .where("answer_comment_id", "is", null)
          .where("relayed_at", "<=", time(a.createdAt))
          .where("deadline", ">", time(a.now))
          .$if(a.quotedCommand !== null, (q) => q.where("command_name", "=", a.quotedCommand ?? ""))
          .orderBy("relayed_at")
          .orderBy("id")
          .execute();
    const at = time(a.updatedAt);
    for (const candidate of candidates) {
      // One statement (its showing made due with it): of two replicas recording answers at once, each version counts once, an older
      // version (deliveries out of order) changes nothing, and a comment answers one relay only.
      const recorded = await inTransaction(ctx.database, async (tx) => {
        const result = await tx
          .updateTable("relays")
          .set((eb) => ({
            answer_comment_id: a.commentId,
            answer_body: a.body,
            answer_url: a.url,
            answer_at: at,
            answer_version: eb("answer_version", "+", 1),
          }))
          .where("id", "=", candidate.id)
          .where((eb) =>
            eb.or([
              eb("answer_comment_id", "is", null),
              eb.and([
                eb("answer_comment_id", "=", a.commentId),
                eb.or([
                  eb("answer_at", "<", at),
                  eb.and([eb("answer_at", "=", at), eb("answer_body", "<>", a.body)]),
                ]),
              ]),
            ]),
          )
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) === 0) return false;
        await askToShow(ctx, tx, candidate.id);
        return true;
      });
      if (recorded) return getRelay(ctx)(candidate.id);
      if (answered) return null;
    }
    return null;
  };
}

function presentRelay(ctx: StoreContext): RelayStore["presentRelay"] {
  return async (id: string, presentation: unknown): Promise<void> => {
    await inTransaction(ctx.database, async (tx) => {
      const presented = await tx
        .updateTable("relays")
        .set({ presentation: json(presentation), superseded: 0 })
        .where("id", "=", id)
        .returning("answer_version")
        .executeTakeFirst();
      if (presented && Number(presented.answer_version) > 0) await askToShow(ctx, tx, id);
    });
  };
}

function supersedeRelays(ctx: StoreContext): RelayStore["supersedeRelays"] {
  const { db } = ctx;
  return async (repository: Repo, pull: number, surface: "github" | "slack"): Promise<void> => {
    await db
      .updateTable("relays")
      .set({ superseded: 1 })
      .where("repository_key", "=", repository.key)
      .where("pull_request", "=", pull)
      .where("surface", "=", surface)
      .where("presentation", "is not", null)
      .execute();
  };
}

function markRelayShown(ctx: StoreContext): RelayStore["markRelayShown"] {
  return async (id: string, version: number): Promise<void> => {
    await ctx.db
      .updateTable("relays")
      .set({ applied_version: version })
      .where("id", "=", id)
      .where("applied_version", "<", version)
      .execute();
  };
}

/**
 * The relay's answer's showing made due at once (`earlier`: one under way runs again once it ends), in
 * the caller's transaction.
 */
async function askToShow(ctx: StoreContext, tx: Kysely<Tables>, id: string): Promise<void> {
  await tx
    .insertInto("work_items")
    .values({
      kind: RELAY_ANSWER_KIND,
      key: id,
      due_at: EPOCH,
      payload: (ctx.kind === "postgres" ? sql`${"{}"}::jsonb` : "{}") as never,
    })
    .onConflict((oc) => oc.columns(["kind", "key"]).doUpdateSet({ due_at: EPOCH }))
    .execute();
}

function toRelay(row: Selectable<Tables["relays"]>, v: DialectValues): RelayRecord {
  const answer =
    row.answer_comment_id === null || row.answer_body === null || row.answer_at === null
      ? null
      : {
          commentId: int(row.answer_comment_id),
          body: row.answer_body,
          url: row.answer_url ?? "",
          at: readTime(row.answer_at),
        };
  return {
    id: row.id,
    repository: Repo.from(row.repository),
    pull: int(row.pull_request),
    commandName: row.command_name,
    surface: row.surface,
    relayedAt: readTime(row.relayed_at),
    deadline: readTime(row.deadline),
    relay: v.readJson(row.relay),
    presentation: row.presentation === null ? null : v.readJson(row.presentation),
    answer,
    answerVersion: Number(row.answer_version),
    appliedVersion: Number(row.applied_version),
    superseded: Number(row.superseded) === 1,
  };
}
