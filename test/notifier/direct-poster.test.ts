import { describe, expect, it } from "vitest";
import type { NotificationPoster } from "../../src/notifier/chat.js";
import { directMessagePoster } from "../../src/notifier/direct-poster.js";
import { directAddress, parseDirectAddress } from "../../src/notifier/personal-notices.js";

/** A poster that records the channel of each call. */
function recording() {
  const channels: string[] = [];
  const poster: NotificationPoster = {
    post: async (m) => {
      channels.push(`post ${m.channel}`);
      return { ts: "1.0", threadTs: m.threadTs ?? null };
    },
    update: async (m) => {
      channels.push(`update ${m.channel}`);
    },
    findPosted: async (channel) => {
      channels.push(`find ${channel}`);
      return new Map();
    },
  };
  return { poster, channels };
}

describe("direct-message addresses", () => {
  it("name one person of one team, and nothing else", () => {
    expect(directAddress("T1", "U1")).toBe("dm:T1:U1");
    expect(parseDirectAddress("dm:T1:U1")).toEqual({ teamId: "T1", slackUserId: "U1" });
    for (const other of ["C0MERGE", "dm:T1", "dm::U1", "dm:T1:U1:x", "DM:T1:U1"])
      expect(parseDirectAddress(other), other).toBeNull();
  });
});

describe("directMessagePoster", () => {
  it("opens a person's conversation once and passes channels through untouched", async () => {
    const { poster, channels } = recording();
    const opened: string[] = [];
    const dm = directMessagePoster(poster, async (user) => {
      opened.push(user);
      return `D${user}`;
    });
    const message = { message: { summary: "t" }, eventId: 1 };
    await dm.post({ ...message, channel: "dm:T1:U1" });
    await dm.update({ channel: "dm:T1:U1", ts: "1.0", message: { summary: "t" } });
    await dm.findPosted("dm:T1:U1", { oldest: new Date(0) });
    await dm.post({ ...message, channel: "C0MERGE" });
    expect(opened).toEqual(["U1"]);
    expect(channels).toEqual(["post DU1", "update DU1", "find DU1", "post C0MERGE"]);
  });

  it("tries to open the conversation again after a failure, and posts nothing meanwhile", async () => {
    const { poster, channels } = recording();
    let fail = true;
    const dm = directMessagePoster(poster, async (user) => {
      if (fail) throw new Error("user_not_found");
      return `D${user}`;
    });
    const message = { channel: "dm:T1:U2", message: { summary: "t" }, eventId: 1 };
    await expect(dm.post(message)).rejects.toThrow("user_not_found");
    expect(channels).toEqual([]);
    fail = false;
    await dm.post(message);
    expect(channels).toEqual(["post DU2"]);
  });
});
