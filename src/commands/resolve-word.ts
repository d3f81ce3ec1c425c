import { COMMANDS, type CommandName, type Surface } from "./catalog.js";
import { CommandError, CommandErrorCode } from "./errors.js";
import { closest } from "./suggest.js";

/** Maps a typed command word (or alias) to a command of this surface, or explains why not. */
export function resolveCommandWord(word: string, surface: Surface): CommandName {
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
