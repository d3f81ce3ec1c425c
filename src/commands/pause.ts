import type { PauseState } from "../merge-queue/index.js";
import type { Repo } from "../repo.js";
import { missing, pauseReason } from "./arguments.js";
import { type Actor, defineCommand } from "./command.js";
import type { Button, Text } from "./description.js";
import type { PauseAttribution, Ports } from "./ports.js";
import { clip, formatTime } from "./present.js";
import { parseTarget } from "./targets.js";

export interface PauseCommand {
  name: "pause";
  repo: Repo;
  reason: string;
}

export interface PauseResult {
  name: "pause";
  repo: Repo;
  pause: PauseState;
}

/** pause: pauses the repository's merge queue with a reason (the rest of the line). */
export const pause = defineCommand<PauseCommand, PauseResult>({
  name: "pause",
  summary: "pause the repository's merge queue",
  permission: "write",
  needsLink: true,
  changes: true,
  grammar: {
    github: {
      usage: "pause <reason>",
      read: ({ text }, place) => ({ name: "pause", repo: place.repo, reason: pauseReason("pause", text) }),
    },
    slack: {
      usage: "pause [repo] <reason>",
      read: ({ words, text }, place) => {
        const first = words[0] ? parseTarget("pause", words[0], place) : undefined;
        if (first?.repo && first.pull === undefined) {
          return {
            name: "pause",
            repo: first.repo,
            reason: pauseReason("pause", text.slice(words[0]?.length ?? 0)),
          };
        }
        if (!place.defaultRepo) return missing("pause", "repository (owner/repo)");
        return { name: "pause", repo: place.defaultRepo, reason: pauseReason("pause", text) };
      },
    },
  },
  async execute(command, actor, ports) {
    const state = await ports.mergeQueue.pause(command.repo, command.reason);
    await attributePause(ports, actor, command.repo, "pause", command.reason);
    return { name: "pause", repo: command.repo, pause: state };
  },
  describe(result, context) {
    const { by } = context;
    const since = result.pause.paused_at ? `since ${formatTime(result.pause.paused_at)}` : "";
    const headline: Text = (f) => {
      const repo = f.code(result.repo.fullName);
      const reason = f.escape(clip(result.pause.reason || "no reason given", 300));
      // GitHub's summary comment says how the queue stands; both wordings are pinned by the
      // end-to-end tests of their surface, so they stay two until one of those tests is revised.
      if (context.surface === "github")
        return `⏸️ The merge queue of ${repo} is ${f.bold("paused")}: ${reason}`;
      return by
        ? `⏸️ ${by} paused the merge queue of ${repo}: ${reason}`
        : `⏸️ Merge queue of ${repo} paused: ${reason}`;
    };
    return {
      parts: [
        { kind: "sentence", text: headline },
        ...(since ? [{ kind: "note" as const, texts: [() => `Paused ${since}.`] }] : []),
        { kind: "buttons", buttons: [unpauseButton(result.repo)] },
      ],
      summary: (f) => `${headline(f)}${since ? ` (${since})` : ""}.`,
    };
  },
});

/** Every answer that shows a paused queue offers to unpause it. */
export function unpauseButton(repo: Repo): Button {
  return { label: "Unpause", runs: { name: "unpause", repo }, style: "primary" };
}

/** Best effort: the pause happened whether or not it can be attributed. */
export async function attributePause(
  ports: Ports,
  actor: Actor,
  repo: Repo,
  action: PauseAttribution["action"],
  reason: string | null,
): Promise<void> {
  await ports
    .attributePause?.({
      repository: repo,
      action,
      reason,
      actor: actor.githubLogin ?? actor.display,
      surface: actor.surface,
      at: ports.now?.() ?? new Date(),
    })
    .catch(() => undefined);
}
