import type { NotificationPoster } from "../../src/notifier/chat.js";

/** Slack in memory for the deliverer: each post, a thread's parent (top level) or a reply. */
export function memoryPoster(): { posts: { eventId: number; reply: boolean }[]; poster: NotificationPoster } {
  const posts: { eventId: number; reply: boolean }[] = [];
  const poster = {
    async post(m: { eventId: number; threadTs?: string }) {
      posts.push({ eventId: m.eventId, reply: m.threadTs !== undefined });
      return { ts: `1700000000.${String(posts.length).padStart(6, "0")}`, threadTs: m.threadTs ?? null };
    },
    async update() {},
    async findPosted() {
      return new Map();
    },
    async openDirect() {
      throw new Error("no direct messages here");
    },
  } as unknown as NotificationPoster;
  return { posts, poster };
}
