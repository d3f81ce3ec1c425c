import type { Repo } from "../repo.js";
import type { Freeze, RelayAnswerComment, RelayRecord } from "./records.js";

/**
 * What the core's features keep in the store, as they use it: following relays (src/commands/relay.ts,
 * src/relays/), ending timed pauses (src/timed-pauses/) and freeze windows (src/freezes/). The features
 * own these ports; they are defined here, beside the records they take and return (records.ts), so that
 * the store (src/store/<concern>.ts), below every feature, implements them importing only the core.
 */

/** What following relays keeps in the store (one row per relay, shared by the replicas). */
export interface RelayStore {
  /** Keeps a relay to follow; one whose id is kept already stays as it is. */
  createRelay(
    relay: Omit<RelayRecord, "presentation" | "answer" | "answerVersion" | "appliedVersion" | "superseded">,
  ): Promise<void>;
  updateRelay(id: string, relay: unknown): Promise<void>;
  deleteRelay(id: string): Promise<void>;
  getRelay(id: string): Promise<RelayRecord | null>;
  /**
   * Records a merge-queue bot comment as the answer of the relay it answers: the relay it already
   * answers (an edit), else the earliest relay on that pull request, relayed before the comment was
   * created and still followed, without an answer yet, whose command is the one the comment quotes (any,
   * when it quotes none). A version older than the one recorded changes nothing. Returns the relay when
   * this answer is new, else null. A new answer makes its showing due at once (a work item of kind
   * `relay-answer`, keyed by the relay's id: src/relays/follower.ts), in the same transaction.
   */
  recordRelayAnswer(answer: RelayAnswerComment): Promise<RelayRecord | null>;
  /**
   * The surface answered: its presentation, kept to answer there again (shown there now, the relay is
   * not superseded, even when a run of its command taken over presents it a second time); the showing
   * of an answer already in is made due at once, as a new answer's is.
   */
  presentRelay(id: string, presentation: unknown): Promise<void>;
  /** A later command answered on this thread: the relays already presented there are not shown again. */
  supersedeRelays(repository: Repo, pull: number, surface: "github" | "slack"): Promise<void>;
  /** The relay's answer's version `version` is shown (a later one asked for meanwhile is still to show). */
  markRelayShown(id: string, version: number): Promise<void>;
}

/**
 * Where freezes are kept (src/store/freezes.ts), each with its next step as durable work (kind `freeze`,
 * keyed by the freeze's id: src/freezes/runner.ts runs it).
 */
export interface FreezeRecords {
  /**
   * Adds it with the repository's next number, its steps due from its `createdAt`; "name-taken" when the
   * repository has one of that name.
   */
  addFreeze(freeze: Omit<Freeze, "number">): Promise<Freeze | "name-taken">;
  /** The repository's freezes (every repository's without one), by number. */
  listFreezes(repository?: Repo): Promise<Freeze[]>;
  /**
   * Removes the repository's freeze of that number or name (case-insensitive), and its next step (a
   * window in progress still ends); the one removed, or null.
   */
  deleteFreeze(repository: Repo, which: { number: number } | { name: string }): Promise<Freeze | null>;
}

/**
 * Where comment commands' steps are kept (src/store/command-steps.ts), by run (the webhook's delivery
 * id) and step.
 */
export interface CommandStepStore {
  /** What a step of a run made when it was done (the JSON recorded), or null when it was not. */
  commandStep(runId: string, step: string): Promise<{ result: unknown } | null>;
  /**
   * Records a step of a run as done at `now`, with what it made (JSON). The first record of a step
   * stays: a second one changes nothing and returns false.
   */
  recordCommandStep(runId: string, step: string, result: unknown, now: Date): Promise<boolean>;
  /** Records that a step of a run is begun (about to be made) at `now`; a second time changes nothing. */
  beginCommandStep(runId: string, step: string, now: Date): Promise<void>;
  /** Whether a step of a run was recorded as begun. */
  commandStepBegun(runId: string, step: string): Promise<boolean>;
  /** Forgets a step of a run, begun or done. */
  forgetCommandStep(runId: string, step: string): Promise<void>;
}
