/**
 * Lists in sentences people read, one way everywhere: "a, b and c", "#12, #13 and #14", and a pause's
 * exemptions, "except pull requests labelled `hotfix` or `release`".
 */

/** "a, b and c" (`last`: "or" for "a, b or c"); one item as itself, none as "". */
export function joinList(items: readonly string[], last: "and" | "or" = "and"): string {
  return items.length > 1 ? `${items.slice(0, -1).join(", ")} ${last} ${items.at(-1)}` : (items[0] ?? "");
}

/** "#12, #13 and #14". */
export function pullList(pulls: readonly number[]): string {
  return joinList(pulls.map((n) => `#${n}`));
}

/**
 * `lead` + "except pull requests labelled `hotfix` or `release`", each label as `show` shows it (code,
 * clipped, escaped: the caller's format); "" without labels.
 */
export function exceptLabels(
  labels: readonly string[] | null | undefined,
  show: (label: string) => string,
  lead = " · ",
): string {
  if (!labels?.length) return "";
  return `${lead}except pull requests labelled ${labels.map((l) => show(l)).join(" or ")}`;
}
