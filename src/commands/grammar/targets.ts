import { Repo } from "../../repo.js";
import type { CommentPlace, SlackPlace } from "../command.js";
import { CommandError, CommandErrorCode } from "../errors.js";
import { missing } from "./arguments.js";

/** A pull request number as typed: digits only, 0 to 2^53-1, never rounded. */
export function pullNumber(command: string, text: string): number {
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

/** `https://host[:port]`, then `/owner/repo`, then `/pull/123` with anything under it, `#…` or `?…`. */
const URL_TARGET =
  /^https?:\/\/[^/?#\s]+\/([^/\s]+)\/([^/\s#?]+)(?:\/pulls?\/([^/\s#?]+)(?:\/[^\s#?]*)?)?\/?(?:[#?]\S*)?$/i;

/**
 * Reads a target as docs/commands.md writes them: `owner/repo`, `owner/repo#123`, a pull request or
 * repository URL of the configured GitHub (`place.githubWebUrl`), or `#123` / `123` alone. Returns
 * undefined when the token is none of these; throws InvalidArgument, naming the expected host, for a
 * URL anywhere else (another host, port or protocol, or with a user name).
 */
export function parseTarget(
  command: string,
  raw: string,
  place: Pick<SlackPlace, "githubWebUrl">,
): Target | undefined {
  const token = unwrapSlackLink(raw);
  if (/^https?:\/\//i.test(token)) {
    const expected = originOf(place.githubWebUrl);
    if (!isOn(token, expected)) {
      throw new CommandError(CommandErrorCode.InvalidArgument, {
        command,
        argument: "URL",
        limit: expected
          ? `on ${expected}, the GitHub this Yardmaster serves`
          : "on the GitHub this Yardmaster serves",
      });
    }
    const url = URL_TARGET.exec(token);
    if (!url) return undefined;
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

/** `https://github.com`, `http://ghe.local:8080`: what a URL must start with; undefined if unreadable. */
function originOf(webUrl: string): string | undefined {
  try {
    return new URL(webUrl).origin;
  } catch {
    return undefined;
  }
}

/** Whether a URL is on `origin` (protocol, host and port), read as a browser reads it, without a user. */
function isOn(token: string, origin: string | undefined): boolean {
  if (origin === undefined) return false;
  try {
    const url = new URL(token);
    return url.origin === origin && url.username === "" && url.password === "";
  } catch {
    return false;
  }
}

/** On GitHub, the pull request a comment is on: queue, dequeue and requeue make no sense on an issue. */
export function commentPull(command: string, place: CommentPlace): number {
  if (!place.isPullRequest)
    throw new CommandError(CommandErrorCode.WrongPlace, { command, surface: "github" });
  return place.number;
}

/**
 * In Slack, a repository: the first word if it is one, else the channel's default (unless the command
 * wants it written out). Returns the words after it.
 */
export function repoArgument(
  command: string,
  args: readonly string[],
  place: SlackPlace,
  requireExplicit = false,
): { repo: Repo; rest: string[] } {
  const first = args[0];
  const target = first === undefined ? undefined : parseTarget(command, first, place);
  if (target?.repo && target.pull === undefined) return { repo: target.repo, rest: args.slice(1) };
  if (target?.pull !== undefined) {
    throw new CommandError(CommandErrorCode.InvalidArgument, {
      command,
      argument: "repository",
      limit: "owner/repo (without a pull request number)",
    });
  }
  if (!requireExplicit && place.defaultRepo) return { repo: place.defaultRepo, rest: [...args] };
  return missing(command, "repository (owner/repo)");
}

/** In Slack, a pull request: owner/repo#123, its URL, or #123 in a channel with a default repository. */
export function pullArgument(
  command: string,
  args: readonly string[],
  place: SlackPlace,
): { repo: Repo; pull: number; rest: string[] } {
  const first = args[0];
  if (first === undefined) return missing(command, "pull request (owner/repo#123 or its URL)");
  const target = parseTarget(command, first, place);
  if (target?.pull === undefined) return missing(command, "pull request (owner/repo#123 or its URL)");
  const repo = target.repo ?? place.defaultRepo;
  if (!repo) return missing(command, "repository: write owner/repo#123");
  return { repo, pull: target.pull, rest: args.slice(1) };
}
