import { describe, expect, it } from "vitest";
import { stillHeldWarning } from "../../src/backends/github/gate/gate.js";
import { repositoryError } from "../../src/backends/github/repository-error.js";
import type { CommandResult } from "../../src/commands/catalog.js";
import { describeFailure, describeResult } from "../../src/commands/describe.js";
import { CommandErrorCode } from "../../src/commands/errors.js";
import { fromMergeQueueError } from "../../src/core/from-merge-queue-error.js";
import type { QueueEvent } from "../../src/core/queue.js";
import { QueueError, QueueErrorCode } from "../../src/core/queue-error.js";
import { Repo } from "../../src/repo.js";
import type { TextFormat } from "../../src/wording/description.js";
import { slackNotices as render } from "../helpers/slack-notices.js";

/** The words of the gate's seams: the branch held, a resume not done, a repository GitHub refuses. */
const SHIPS = Repo.of("acme", "ships");
const now = new Date("2026-11-20T10:00:00Z");
const F: TextFormat = {
  escape: (t) => t.replace(/</g, "&lt;"),
  code: (t) => `{${t}}`,
  bold: (t) => `*${t}*`,
  italic: (t) => `_${t}_`,
  strong: (m) => `*${m}*`,
  link: (url, label) => `[${label}](${url})`,
  invocation: "<invoke>",
};
const on = (surface: "github" | "slack", result: CommandResult, by?: string) =>
  describeResult(result, { surface, now, githubWebUrl: "https://github.com", ...(by ? { by } : {}) }).summary(
    F,
  );

describe("the branch a pause of GitHub's merge queue holds", () => {
  const pause = { reason: "deploy", pausedAt: now.toISOString(), by: "alice", branch: "main" };

  it("is named by the pause's answer, though none was asked for, on both surfaces", () => {
    const result: CommandResult = { name: "pause", repo: SHIPS, pause };
    expect(on("slack", result, "<@U1>")).toContain(
      "<@U1> paused the merge queue of {acme/ships} (branch {main}): deploy",
    );
    expect(on("github", result)).toContain(
      "The merge queue of {acme/ships} (branch {main}) is *paused*: deploy",
    );
    // A repository's pause (Mergify's) names none.
    const { branch: _branch, ...repositoryWide } = pause;
    expect(on("slack", { name: "pause", repo: SHIPS, pause: repositoryWide }, "<@U1>")).toContain(
      "paused the merge queue of {acme/ships}: deploy",
    );
  });

  it("is named by status, which says other branches keep merging", () => {
    const result: CommandResult = {
      name: "status",
      repo: SHIPS,
      batches: false,
      state: {
        branch: "main",
        url: "https://github.com/acme/ships/queue/main",
        entries: [],
        total: 0,
        batches: null,
        scopeQueues: [],
        pause,
        settings: null,
      },
    } as unknown as CommandResult;
    expect(on("slack", result)).toContain(
      "paused (branch {main} only: other branches keep merging) by alice: deploy",
    );
    const parts = describeResult(result, { surface: "slack", now, githubWebUrl: "https://github.com" }).parts;
    const line = parts.flatMap((p) => (p.kind === "sentence" ? [p.text(F)] : []))[0];
    expect(line).toContain("⏸️ *Paused* (branch {main} only: other branches keep merging) by alice");
  });

  it("is named by the unpause's answer; a resume GitHub did not finish says so, not that the queue runs", () => {
    const resumed: CommandResult = { name: "unpause", repo: SHIPS, held: "main" } as CommandResult;
    expect(on("slack", resumed, "<@U1>")).toBe(
      "▶️ <@U1> unpaused the merge queue of {acme/ships} (branch {main}): it is running again.",
    );
    const warning = stillHeldWarning("main", 2);
    const halfWay = { name: "unpause", repo: SHIPS, held: "main", warning } as CommandResult;
    for (const surface of ["slack", "github"] as const) {
      const said = on(surface, halfWay, "<@U1>");
      expect(said).toMatch(/^⚠️ <@U1> unpaused the merge queue of \{acme\/ships\} \(branch \{main\}\)\. /);
      expect(said).toContain(
        "Not running yet: GitHub refused to complete 2 merge groups' gate checks on main",
      );
      expect(said).toContain("checks: write");
      expect(said).not.toContain("running again");
    }
  });

  it("is named by the channel's notices of the pause and of its end", () => {
    const ctx = { repo: SHIPS, githubWebUrl: "https://github.com", now };
    const event = {
      id: -7,
      at: now.toISOString(),
      repository: "acme/ships",
      pull: null,
      branch: "main",
      queue: "main",
      origin: "gate.paused",
      scope: "branch",
    } as const;
    const paused = render.event(
      { ...event, kind: "paused", reason: "deploy", by: "alice", update: false } as QueueEvent,
      null,
      ctx,
    );
    expect(paused.text).toContain("acme/ships merge queue paused by alice, branch main only: deploy");
    expect(JSON.stringify(paused.blocks)).toContain(
      "The merge queue of `acme/ships` (branch `main`) was paused by alice",
    );
    const resumed = render.event(
      { ...event, origin: "gate.resumed", kind: "resumed", by: "bob" } as QueueEvent,
      null,
      ctx,
    );
    expect(resumed.text).toContain("acme/ships merge queue resumed by bob, branch main");
  });
});

describe("a repository GitHub does not know, or refuses the GitHub App", () => {
  it("becomes a closed code from GitHub's 404 and 403; anything else stays as it was", () => {
    const notFound = repositoryError(SHIPS, Object.assign(new Error("Not Found"), { status: 404 }));
    expect(notFound).toBeInstanceOf(QueueError);
    expect((notFound as QueueError).code).toBe(QueueErrorCode.RepositoryNotFound);
    const forbidden = repositoryError(SHIPS, Object.assign(new Error("Forbidden"), { status: 403 }));
    expect((forbidden as QueueError).code).toBe(QueueErrorCode.RepositoryForbidden);
    const other = Object.assign(new Error("Bad Gateway"), { status: 502 });
    expect(repositoryError(SHIPS, other)).toBe(other);
  });

  it("is answered with the repository's name and what to do, the same on both surfaces", () => {
    const answer = (status: 403 | 404, surface: "github" | "slack") =>
      describeFailure(
        fromMergeQueueError(repositoryError(SHIPS, { status }), {
          command: "pause",
          repository: "acme/sh<ips",
        }),
        surface,
      ).summary(F);
    for (const surface of ["github", "slack"] as const) {
      expect(answer(404, surface)).toBe(
        "⚠️ GitHub does not know {acme/sh<ips}, or Yardmaster's GitHub App is not installed on it (404): check the repository's name (was it renamed or deleted?), and install the app on it, or add it to the app's installation.",
      );
      expect(answer(403, surface)).toContain(
        "⚠️ GitHub refused Yardmaster's GitHub App access to {acme/sh<ips} (403): install the app on it",
      );
    }
    expect(
      fromMergeQueueError(repositoryError(SHIPS, { status: 404 }), {
        command: "pause",
        repository: "acme/ships",
      }).code,
    ).toBe(CommandErrorCode.GitHubRepositoryNotFound);
  });
});
