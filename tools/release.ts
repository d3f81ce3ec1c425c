// `npm run release`: tags this release in git and builds its image, tagged with the version and carrying
// the OCI labels (source, version, revision). The version is package.json's; CHANGELOG.md must have its
// section and deploy/kubernetes its image tag first (docs/operations.md, "Releases").
//
//   npm run release -- [--image ghcr.io/example/yardmaster] [--source https://github.com/...] [--push] [--dry-run]

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export interface ReleaseFacts {
  version: string;
  /** The commit released (git rev-parse HEAD). */
  revision: string;
  /** Where the source lives (the image's org.opencontainers.image.source). */
  source: string;
  image: string;
  /** Whether the working tree has changes not committed. */
  dirty: boolean;
  /** Tags git already has. */
  tags: string[];
  changelog: string;
  /** The image tag each deploy/kubernetes variant sets (kustomization.yaml, images: newTag). */
  manifestTags: Record<string, string | null>;
}

export const DEFAULT_IMAGE = "ghcr.io/example/yardmaster";
export const VARIANTS = ["sqlite", "postgres"] as const;

/** What stops a release, each in a sentence that says what to do; empty when it may go. */
export function releaseProblems(facts: ReleaseFacts): string[] {
  const problems: string[] = [];
  const { version } = facts;
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version))
    problems.push(`package.json's version "${version}" is not a semantic version (x.y.z).`);
  if (facts.dirty)
    problems.push("The working tree has changes: commit them first, so the image is the commit.");
  if (facts.tags.includes(`v${version}`))
    problems.push(`The tag v${version} exists already: raise the version in package.json first.`);
  if (
    !new RegExp(`^## \\[${version.replaceAll(".", "\\.")}\\] - \\d{4}-\\d{2}-\\d{2}$`, "m").test(
      facts.changelog,
    )
  )
    problems.push(`CHANGELOG.md has no "## [${version}] - YYYY-MM-DD" section: move Unreleased there.`);
  for (const [variant, tag] of Object.entries(facts.manifestTags))
    if (tag !== version)
      problems.push(
        `deploy/kubernetes/${variant}/kustomization.yaml sets the image tag ${tag ?? "(none)"}: set newTag to "${version}".`,
      );
  if (!/^https:\/\//.test(facts.source))
    problems.push("The source URL is unknown: pass --source https://github.com/<owner>/<repo>.");
  return problems;
}

/** The commands a release runs, in order. */
export function releaseCommands(facts: ReleaseFacts, push: boolean): string[][] {
  const image = `${facts.image}:${facts.version}`;
  return [
    ["git", "tag", "-a", `v${facts.version}`, "-m", `Yardmaster ${facts.version}`],
    [
      "docker",
      "build",
      "--build-arg",
      `VERSION=${facts.version}`,
      "--build-arg",
      `REVISION=${facts.revision}`,
      "--build-arg",
      `SOURCE=${facts.source}`,
      "--tag",
      image,
      ".",
    ],
    ...(push
      ? [
          ["docker", "push", image],
          ["git", "push", "origin", `v${facts.version}`],
        ]
      : []),
  ];
}

/** The tag a variant's kustomization gives the image, read from its `newTag:` line. */
export function manifestTag(kustomization: string): string | null {
  const match = /^\s*newTag:\s*"?([^"\s]+)"?\s*$/m.exec(kustomization);
  return match?.[1] ?? null;
}

/** `git@github.com:owner/repo.git` or `https://github.com/owner/repo.git` → `https://github.com/owner/repo`. */
export function sourceUrl(remote: string): string {
  const trimmed = remote.trim().replace(/\.git$/, "");
  const ssh = /^git@([^:]+):(.+)$/.exec(trimmed);
  return ssh ? `https://${ssh[1]}/${ssh[2]}` : trimmed;
}

function git(args: string[]): string {
  return execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
}

function flag(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
}

function gather(args: string[]): ReleaseFacts {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const read = (path: string) => readFileSync(`${root}${path}`, "utf8");
  let remote = "";
  try {
    remote = git(["remote", "get-url", "origin"]);
  } catch {
    // No origin: --source says where the source lives.
  }
  return {
    version: (JSON.parse(read("package.json")) as { version: string }).version,
    revision: git(["rev-parse", "HEAD"]),
    source: flag(args, "--source") ?? (remote ? sourceUrl(remote) : ""),
    image: flag(args, "--image") ?? DEFAULT_IMAGE,
    dirty: git(["status", "--porcelain"]) !== "",
    tags: git(["tag", "--list"]).split("\n").filter(Boolean),
    changelog: read("CHANGELOG.md"),
    manifestTags: Object.fromEntries(
      VARIANTS.map((v) => [v, manifestTag(read(`deploy/kubernetes/${v}/kustomization.yaml`))]),
    ),
  };
}

function main(args: string[]): number {
  const facts = gather(args);
  const problems = releaseProblems(facts);
  if (problems.length > 0) {
    console.error(`Cannot release ${facts.version}:\n${problems.map((p) => `- ${p}`).join("\n")}`);
    return 1;
  }
  for (const command of releaseCommands(facts, args.includes("--push"))) {
    console.log(`$ ${command.join(" ")}`);
    if (!args.includes("--dry-run"))
      execFileSync(command[0] as string, command.slice(1), { stdio: "inherit" });
  }
  if (args.includes("--dry-run")) console.log("Dry run: nothing was run.");
  else if (!args.includes("--push"))
    console.log(
      `Tagged and built ${facts.version}; to publish: docker push ${facts.image}:${facts.version} && git push origin v${facts.version}`,
    );
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1])
  process.exitCode = main(process.argv.slice(2));
