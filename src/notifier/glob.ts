import picomatch from "picomatch";

/**
 * Branch globs of subscriptions: `*` matches within one path segment, `**` (as a whole segment) across
 * segments, `?` one character; everything else is literal. `release/*` matches `release/1.x`, not
 * `release/1.x/hotfix`; `release/**` matches both.
 */
export function matchesGlob(glob: string, branch: string): boolean {
  // picomatch's other syntax (braces, brackets, extglobs, negation) is escaped: a branch name is literal.
  const pattern = glob.replace(/[^*?/\w.-]/g, "\\$&");
  return picomatch.isMatch(branch, pattern, { dot: true, strictSlashes: true });
}
