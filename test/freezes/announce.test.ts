import { describe, expect, it } from "vitest";
import { freezeAnnouncer } from "../../src/freezes/announce.js";
import { createLogger } from "../../src/logger.js";
import { Repo } from "../../src/repo.js";
import { renderChatMessage } from "../../src/slack/render-message.js";

describe("a freeze's notice", () => {
  it("is posted in Slack as its text alone, with only Slack's three entities escaped, once per channel", async () => {
    const posted: unknown[] = [];
    const announce = freezeAnnouncer({
      channels: async () => ["C1", "C1", "C2"],
      post: async ({ channel, message, key }) => posted.push({ channel, ...renderChatMessage(message), key }),
      logger: createLogger({ level: "silent" }),
    });
    await announce(Repo.from("acme/widgets"), '❄️ The freeze "a & <!here> *b*" of acme/widgets begins', "k1");
    const text = '❄️ The freeze "a &amp; &lt;!here&gt; *b*" of acme/widgets begins';
    expect(posted).toEqual([
      { channel: "C1", text, blocks: [], key: "k1" },
      { channel: "C2", text, blocks: [], key: "k1" },
    ]);
  });
});
