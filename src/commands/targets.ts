import { Repo } from "../repo.js";
import type { CommandName } from "./catalog.js";
import { CommandError, CommandErrorCode } from "./errors.js";

/** A pull request number as typed: digits only, 0 to 2^53-1, never rounded. */
export function pullNumber(command: CommandName, text: string): number {
  const limit = "a whole number from 0 to 9007199254740991";
  if (!/^\d{1,20}$/.test(text) || BigInt(text) > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new CommandError(CommandErrorCode.InvalidArgument, {
      command,
      argument: "pull request number",
      limit,
    });
  }
  return Number(text);
}

/** Slack wraps links it recognised as `<url>` or `<url|label>`. */
function unwrapSlackLink(token: string): string {
  const m = /^<([^|>]+)(\|[^>]*)?>$/.exec(token);
  return m?.[1] ?? token;
}

function repoOf(owner: string, name: string): Repo | undefined {
  return Repo.parse(`${owner}/${name}`) ?? undefined;
}

export interface Target {
  repo?: Repo;
  pull?: number;
}

/**
 * Reads a target as PRODUCT.md section 3 writes them: `owner/repo`, `owner/repo#123`, a pull request
 * URL (any GitHub host), or `#123` / `123` alone. Returns undefined when the token is none of these.
 */
export function parseTarget(command: CommandName, raw: string): Target | undefined {
  const token = unwrapSlackLink(raw);
  const url =
    /^https?:\/\/[^/\s]+\/([^/\s]+)\/([^/\s#?]+)(?:\/pulls?\/([^/\s#?]+)(?:\/[^\s#?]*)?)?\/?(?:[#?]\S*)?$/.exec(
      token,
    );
  if (url) {
    const repo = repoOf(url[1] ?? "", url[2] ?? "");
    if (!repo) return undefined;
    return url[3] === undefined ? { repo } : { repo, pull: pullNumber(command, url[3]) };
  }
  const full = /^([^/\s#]+)\/([^/\s#]+)(?:#(\S+))?$/.exec(token);
  if (full) {
    const repo = repoOf(full[1] ?? "", full[2] ?? "");
    if (!repo) return undefined;
    return full[3] === undefined ? { repo } : { repo, pull: pullNumber(command, full[3]) };
  }
  const bare = /^#?(\d+)$/.exec(token);
  if (bare) return { pull: pullNumber(command, bare[1] ?? "") };
  return undefined;
}
