import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readSlackAppAsks } from "../../src/doctor/manifests.js";

const http = readFileSync("slack-manifest.yml", "utf8");
const socket = readFileSync("slack-manifest.socket-mode.yml", "utf8");

describe("the two Slack manifests", () => {
  it("ask for the same scopes, events, shortcuts and unfurl domains", () => {
    expect(readSlackAppAsks("slack-manifest.socket-mode.yml")).toEqual(readSlackAppAsks());
    const without = (text: string) =>
      text
        .split("\n")
        .filter((l) => !/^\s*#/.test(l) && !/(request_)?url:|socket_mode_enabled/.test(l))
        .join("\n");
    expect(without(socket)).toBe(without(http));
    for (const asked of [
      "links:read",
      "links:write",
      "link_shared",
      "unfurl_domains",
      "mq.shortcut.queue",
      "mq.shortcut.pause",
    ]) {
      expect(http).toContain(asked);
    }
  });

  it("turn Socket Mode on in one and leave request URLs out of it", () => {
    expect(socket).toContain("socket_mode_enabled: true");
    expect(socket).not.toMatch(/^\s*(request_)?url:/m);
    expect(http).toContain("socket_mode_enabled: false");
  });
});
