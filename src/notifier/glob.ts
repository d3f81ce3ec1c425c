/**
 * Branch globs of subscriptions: `*` matches within one path segment, `**` across segments, `?` one
 * character; everything else is literal. `release/*` matches `release/1.x`, not `release/1.x/hotfix`.
 */
export function globToRegExp(glob: string): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === "*" && glob[i + 1] === "*") {
      source += ".*";
      i++;
    } else if (c === "*") source += "[^/]*";
    else if (c === "?") source += "[^/]";
    else source += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

export function matchesGlob(glob: string, value: string): boolean {
  return globToRegExp(glob).test(value);
}
