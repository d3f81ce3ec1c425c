import type { AlertPoster } from "../../src/health/evaluator.js";
import type { Repo } from "../../src/repo.js";
import { renderChatMessage } from "../../src/slack/render-message.js";
import type { Store } from "../../src/store/index.js";
import type { ChatMessage } from "../../src/wording/message.js";

/** A Slack channel in memory for the health alerts: each message as Slack lays it out, and its edits. */
export class Channel implements AlertPoster {
  posted: { channel: string; ts: string; text: string; blocks: unknown[] }[] = [];
  edits = 0;
  /** Runs as a message is posted, before the poster answers (another replica acting meanwhile). */
  onPost: ((channel: string) => Promise<void>) | null = null;
  async post(channel: string, said: ChatMessage) {
    const message = renderChatMessage(said);
    const ts = `${this.posted.length + 1}.000000`;
    this.posted.push({ channel, ts, ...message });
    await this.onPost?.(channel);
    return ts;
  }
  async update(channel: string, ts: string, said: ChatMessage) {
    const message = renderChatMessage(said);
    const found = this.posted.find((p) => p.channel === channel && p.ts === ts);
    if (found) Object.assign(found, message);
    this.edits += 1;
  }
  texts() {
    return this.posted.map((p) => p.text);
  }
}

/** Subscribes each channel (of team T1, by alice) to the repository's `groups` (by default health). */
export async function subscribe(
  store: Store,
  repository: Repo,
  channels: readonly string[],
  createdAt: Date,
  groupsOf: (channelId: string) => string[] = () => ["health"],
): Promise<void> {
  for (const channelId of channels)
    await store.putSubscription({
      channelId,
      teamId: "T1",
      repository,
      branchGlob: null,
      groups: groupsOf(channelId),
      createdBy: "alice",
      createdAt,
    });
}
