import { COMMANDS, type Command, type CommandName, moduleOf } from "../catalog.js";
import type { CommentPlace, SlackPlace, Surface } from "../command.js";
import { CommandError, CommandErrorCode } from "../errors.js";
import { words } from "./arguments.js";
import { closest } from "./suggest.js";

/**
 * The two ways in (docs/commands.md): the first line of a GitHub comment addressed to the app, and
 * the text of `/mq`. Each finds the command word; the command's own grammar reads the rest.
 */

export type GitHubParse =
  /** Not addressed to the app: stay silent. */
  | { kind: "ignored" }
  /** `typed` is what followed the mention, e.g. "queue urgent". */
  | { kind: "command"; command: Command; typed: string }
  | { kind: "refused"; error: CommandError; typed: string };

export type SlackParse = { kind: "command"; command: Command } | { kind: "refused"; error: CommandError };

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The first line starts with `@<app-slug>` (any case), one or more spaces, the command word and its
 * arguments. Everything after the first line is ignored.
 */
export function parseGitHubComment(body: string, appSlug: string, place: CommentPlace): GitHubParse {
  const firstLine = body.replace(/^\uFEFF/, "").split(/\r?\n/, 1)[0] ?? "";
  const mention = new RegExp(`^ {0,3}@${escapeRegExp(appSlug)}(?:\\[bot\\])?(?=\\s|$)(.*)$`, "i");
  const match = mention.exec(firstLine);
  if (!match) return { kind: "ignored" };
  const typed = (match[1] ?? "").trim();
  try {
    const [word = "", ...rest] = words(typed);
    if (word === "") throw new CommandError(CommandErrorCode.NotACommand, { surface: "github" });
    const grammar = moduleOf(resolveCommandWord(word, "github")).grammar.github;
    // resolveCommandWord refused the commands that have no GitHub grammar.
    if (!grammar) throw new Error(`no GitHub grammar for ${word}`);
    const command = grammar.read({ words: rest, text: typed.slice(word.length).trim() }, place);
    return { kind: "command", command, typed };
  } catch (error) {
    if (error instanceof CommandError) return { kind: "refused", error, typed };
    throw error;
  }
}

/** `/mq <command> [arguments]`; an empty text is `help`. */
export function parseSlackCommand(text: string, place: SlackPlace): SlackParse {
  try {
    const [word, ...rest] = words(text);
    if (!word) return { kind: "command", command: { name: "help" } };
    const grammar = moduleOf(resolveCommandWord(word, "slack")).grammar.slack;
    if (!grammar) throw new Error(`no Slack grammar for ${word}`);
    const command = grammar.read({ words: rest, text: text.trim().slice(word.length).trim() }, place);
    return { kind: "command", command };
  } catch (error) {
    if (error instanceof CommandError) return { kind: "refused", error };
    throw error;
  }
}

/** Maps a typed command word (or alias) to a command of this surface, or explains why not. */
function resolveCommandWord(word: string, surface: Surface): CommandName {
  const typed = word.toLowerCase();
  const all = Object.values(COMMANDS);
  const found = all.find((c) => c.name === typed || c.aliases.includes(typed));
  if (found) {
    if (!found.surfaces.includes(surface)) {
      throw new CommandError(CommandErrorCode.OtherSurface, { command: found.name, typed: word, surface });
    }
    return found.name;
  }
  const here = all.filter((c) => c.surfaces.includes(surface));
  const suggestion = closest(
    typed,
    here.flatMap((c) => [c.name, ...c.aliases]),
  );
  throw new CommandError(CommandErrorCode.UnknownCommand, {
    typed: word,
    ...(suggestion ? { suggestion } : {}),
    surface,
  });
}
