import type { StoredEvents } from "../core/pushed-events.js";
import type { Logger } from "../logger.js";
import type { Metrics } from "../metrics.js";
import type { Repo } from "../repo.js";
import type {
  BackoffStore,
  OutboxStore,
  PauseAttributionStore,
  ThreadStore,
  WorkStore,
} from "../store/index.js";
import type { WorkRunner } from "../work/runner.js";
import type { Backoffs } from "./backoff.js";
import type { ChatHolds, ChatPace, NotificationPoster } from "./chat.js";
import type { DeliveredDetails } from "./failure-details.js";
import type { NotificationRenderer, PullInfo } from "./types.js";

export interface DelivererDeps {
  store: OutboxStore &
    ThreadStore &
    WorkStore &
    BackoffStore &
    Pick<PauseAttributionStore, "getPauseAttribution">;
  poster: NotificationPoster;
  /** The chat's rate limits as it answered them (a 429 holds what it names, for its Retry-After). */
  holds: ChatHolds;
  render: NotificationRenderer;
  /** Title and link of a pull request (GitHub through the app), or null when unknown. */
  pullInfo: (repository: Repo, number: number) => Promise<PullInfo | null>;
  backoffs: Backoffs;
  /**
   * How an outbox row's event is read back; the wiring gives the backends' reader, which reads rows an
   * earlier version stored in its format too. Default: rows as this version stores them.
   */
  storedEvents?: StoredEvents;
  githubWebUrl: string;
  /** Which replica this is, for its claims and the rows it begins. */
  owner: string;
  /**
   * The runner of durable work on this replica (`infra.work`), with which each channel's delivery is
   * registered (kind `deliver`). Default: a runner of its own, for passes by hand (tests).
   */
  work?: Pick<WorkRunner, "register" | "resume" | "pause" | "drain" | "schedule">;
  metrics?: Metrics;
  logger: Logger;
  now?: () => Date;
  /** Channels delivered at once on this replica (the `deliver` kind's concurrency); default 8. */
  concurrency?: number;
  /**
   * The chat's pace for each channel's posts (Slack's where Yardmaster runs): a pass posts what the
   * pace allows and says when the channel may go on. None: a channel's rows are posted as fast as the
   * chat answers, until it answers 429.
   */
  pace?: ChatPace;
  /**
   * Why a removal's checks failed (failure-details.ts): its notices wait for them a while, then go
   * without and are edited once read. None: removals are posted as they are.
   */
  details?: DeliveredDetails;
}
