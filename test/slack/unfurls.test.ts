import { describe, expect, it } from "vitest";
import { Repo } from "../../src/repo.js";
import { pullRequestLinks } from "../../src/slack/unfurls/index.js";
import type { UnfurlFacts } from "../../src/slack/unfurls/read.js";
import { renderUnfurl } from "../../src/slack/unfurls/render.js";
import { readUnfurlValue, UNFURL_ACTION_IDS, unfurlValue } from "../../src/slack/unfurls/values.js";

const GITHUB = "https://github.example.com";
const WIDGETS = Repo.of("acme", "widgets");
const subscribed = new Set(["acme/widgets"]);

describe("the pull-request links an unfurl answers", () => {
  it("keeps pull requests of the configured GitHub in subscribed repositories, once each", () => {
    const links = pullRequestLinks(
      [
        { url: `${GITHUB}/acme/widgets/pull/7` },
        { url: `${GITHUB}/acme/widgets/pull/7/files` },
        { url: `${GITHUB}/acme/widgets` },
        { url: `${GITHUB}/acme/gadgets/pull/8` },
        { url: `https://evil.example/acme/widgets/pull/9` },
        { url: `${GITHUB}.evil.example/acme/widgets/pull/10` },
        { url: `${GITHUB}/Acme/Widgets/pull/11` },
      ],
      subscribed,
      GITHUB,
    );
    expect(links.map((l) => [l.repo.fullName, l.pull, l.url])).toEqual([
      ["acme/widgets", 7, `${GITHUB}/acme/widgets/pull/7`],
      ["Acme/Widgets", 11, `${GITHUB}/Acme/Widgets/pull/11`],
    ]);
  });
});

describe("the unfurl's buttons", () => {
  it("reads back exactly the value it writes, and nothing else", () => {
    const value = unfurlValue({ repo: WIDGETS, pull: 7 });
    expect(readUnfurlValue(value)).toEqual({ repo: WIDGETS, pull: 7 });
    for (const other of [
      '{"p":7,"r":"acme/widgets"}',
      '{"r":"acme/widgets","p":7,"x":1}',
      '{"r":"acme/widgets","p":7.0}',
      '{"r":"acme","p":7}',
      "not json",
      undefined,
    ]) {
      expect(readUnfurlValue(other)).toBeNull();
    }
  });

  it("offers Queue when not queued, Dequeue when queued, and escapes the title", () => {
    const now = new Date("2026-11-20T10:00:00Z");
    const base: UnfurlFacts = {
      repo: WIDGETS,
      pull: 7,
      url: `${GITHUB}/acme/widgets/pull/7`,
      title: "<!channel> *fix*",
      merged: false,
      closed: false,
      queue: { kind: "not_queued" },
      paused: { reason: "freeze <@U1>" },
    };
    const idle = JSON.stringify(renderUnfurl(base, GITHUB, now).blocks);
    expect(idle).toContain(UNFURL_ACTION_IDS.queue);
    expect(idle).not.toContain(UNFURL_ACTION_IDS.dequeue);
    expect(idle).not.toContain("<!channel>");
    expect(idle).not.toContain("<@U1>");
    expect(idle).toContain("is paused");
    const draining = JSON.stringify(
      renderUnfurl({ ...base, paused: { reason: "deploy", hold: "draining", by: "bob" } }, GITHUB, now)
        .blocks,
    );
    expect(draining).toContain("⏬ The merge queue of `acme/widgets` is draining by bob: deploy.");
    const exempting = JSON.stringify(
      renderUnfurl({ ...base, paused: { reason: "freeze", by: "alice", except: ["hotfix"] } }, GITHUB, now)
        .blocks,
    );
    expect(exempting).toContain("is paused by alice: freeze · except pull requests labelled `hotfix`.");
    const queued = renderUnfurl(
      {
        ...base,
        paused: null,
        queue: {
          kind: "queued",
          position: 2,
          queueName: "default",
          eta: "2026-11-20T10:30:00Z",
          checks: { passed: 3, total: 4, state: "pending" },
        },
      },
      GITHUB,
      now,
    );
    const text = JSON.stringify(queued.blocks);
    expect(text).toContain("Position 2 in the merge queue `default`, ETA in 30 min, checks 3/4 passed");
    expect(text).toContain(UNFURL_ACTION_IDS.dequeue);
    expect(text).not.toContain(UNFURL_ACTION_IDS.queue);
    const merged = JSON.stringify(renderUnfurl({ ...base, merged: true }, GITHUB, now).blocks);
    expect(merged).toContain("Merged.");
    expect(merged).not.toContain(UNFURL_ACTION_IDS.queue);
  });
});
