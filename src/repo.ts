import { z } from "zod";

/** GitHub's limits on a repository's two parts, checked before anything is called with them. */
export const OWNER_MAX_LENGTH = 40;
export const REPO_NAME_MAX_LENGTH = 100;

const OWNER_PATTERN = new RegExp(`^[A-Za-z0-9-]{1,${OWNER_MAX_LENGTH}}$`);
const NAME_PATTERN = new RegExp(`^[\\w.-]{1,${REPO_NAME_MAX_LENGTH}}$`);

const OWNER_MESSAGE = `owner must be 1 to ${OWNER_MAX_LENGTH} letters, digits or "-"`;
export const ownerSchema = z.string({ error: OWNER_MESSAGE }).regex(OWNER_PATTERN, { error: OWNER_MESSAGE });

// "." and ".." are refused too: a URL parser would resolve them as path segments.
const notDotSegment = (name: string): boolean => name !== "." && name !== "..";
const NAME_MESSAGE = `repository must be 1 to ${REPO_NAME_MAX_LENGTH} letters, digits, "_", "-" or "." (and not "." or "..")`;
export const repoNameSchema = z
  .string({ error: NAME_MESSAGE })
  .regex(NAME_PATTERN, { error: NAME_MESSAGE })
  .refine(notDotSegment, { error: NAME_MESSAGE });

/** Whether both parts are valid: the schemas' rules, without their messages (parse runs on every stored name). */
const validParts = (owner: string, name: string): boolean =>
  OWNER_PATTERN.test(owner) && NAME_PATTERN.test(name) && notDotSegment(name);

/**
 * A GitHub repository: the one way Yardmaster names one, whether it came from a comment, a Slack
 * command, a button, the store or the merge queue's log. Always valid (built only through `of` and
 * `parse`, which refuse what GitHub would), compared case-insensitively as GitHub compares names, and
 * written as `owner/name` (also in JSON).
 */
export class Repo {
  private constructor(
    readonly owner: string,
    readonly name: string,
  ) {}

  /** Throws RangeError with the limit's message when a part is not a valid GitHub name. */
  static of(owner: string, name: string): Repo {
    const o = ownerSchema.safeParse(owner);
    if (!o.success) throw new RangeError(o.error.issues[0]?.message ?? OWNER_MESSAGE);
    const n = repoNameSchema.safeParse(name);
    if (!n.success) throw new RangeError(n.error.issues[0]?.message ?? NAME_MESSAGE);
    return new Repo(owner, name);
  }

  /** `owner/name` exactly (no URL, no trailing path), or null. */
  static parse(fullName: string): Repo | null {
    const m = /^([^/]+)\/([^/]+)$/.exec(fullName);
    if (!m) return null;
    const [, owner = "", name = ""] = m;
    return validParts(owner, name) ? new Repo(owner, name) : null;
  }

  /** Like parse, for values Yardmaster wrote itself (the store, its own payloads): a bad one is a bug. */
  static from(fullName: string): Repo {
    const repo = Repo.parse(fullName);
    if (!repo) throw new RangeError(`not a repository: ${JSON.stringify(fullName.slice(0, 200))}`);
    return repo;
  }

  /** `owner/name`, as it was given. */
  get fullName(): string {
    return `${this.owner}/${this.name}`;
  }

  /** The lower-case key that uniqueness and lookups use. */
  get key(): string {
    return this.fullName.toLowerCase();
  }

  equals(other: Repo): boolean {
    return this.key === other.key;
  }

  toString(): string {
    return this.fullName;
  }

  toJSON(): string {
    return this.fullName;
  }
}
