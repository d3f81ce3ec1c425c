import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  manifestTag,
  type ReleaseFacts,
  releaseCommands,
  releaseProblems,
  sourceUrl,
  VARIANTS,
} from "../../tools/release.js";

/** `npm run release` (tools/release.ts): what it checks before it tags and builds, and what it runs. */
const ready: ReleaseFacts = {
  version: "1.2.3",
  revision: "0123456789abcdef0123456789abcdef01234567",
  source: "https://github.com/acme/yardmaster",
  image: "ghcr.io/acme/yardmaster",
  dirty: false,
  tags: ["v1.2.2"],
  changelog: "# Changelog\n\n## [Unreleased]\n\n## [1.2.3] - 2026-11-26\n\n### Added\n- x\n",
  manifestTags: { sqlite: "1.2.3", postgres: "1.2.3" },
};

describe("npm run release", () => {
  it("tags the commit and builds the image with the version's tag and the OCI labels' arguments", () => {
    expect(releaseProblems(ready)).toEqual([]);
    expect(releaseCommands(ready, false)).toEqual([
      ["git", "tag", "-a", "v1.2.3", "-m", "Yardmaster 1.2.3"],
      [
        "docker",
        "build",
        "--build-arg",
        "VERSION=1.2.3",
        "--build-arg",
        `REVISION=${ready.revision}`,
        "--build-arg",
        "SOURCE=https://github.com/acme/yardmaster",
        "--tag",
        "ghcr.io/acme/yardmaster:1.2.3",
        ".",
      ],
    ]);
    expect(releaseCommands(ready, true).slice(2)).toEqual([
      ["docker", "push", "ghcr.io/acme/yardmaster:1.2.3"],
      ["git", "push", "origin", "v1.2.3"],
    ]);
  });

  it("refuses, saying what to do, a dirty tree, a tag that exists, a missing changelog section or manifest tag", () => {
    const problems = releaseProblems({
      ...ready,
      dirty: true,
      tags: ["v1.2.3"],
      changelog: "## [Unreleased]\n",
      manifestTags: { sqlite: "1.2.2", postgres: null },
      source: "",
    });
    expect(problems).toEqual([
      "The working tree has changes: commit them first, so the image is the commit.",
      "The tag v1.2.3 exists already: raise the version in package.json first.",
      'CHANGELOG.md has no "## [1.2.3] - YYYY-MM-DD" section: move Unreleased there.',
      'deploy/kubernetes/sqlite/kustomization.yaml sets the image tag 1.2.2: set newTag to "1.2.3".',
      'deploy/kubernetes/postgres/kustomization.yaml sets the image tag (none): set newTag to "1.2.3".',
      "The source URL is unknown: pass --source https://github.com/<owner>/<repo>.",
    ]);
  });

  it("reads the source from git's remote", () => {
    expect(sourceUrl("git@github.com:acme/yardmaster.git\n")).toBe("https://github.com/acme/yardmaster");
    expect(sourceUrl("https://github.com/acme/yardmaster.git")).toBe("https://github.com/acme/yardmaster");
  });

  it("finds this release ready in the repository: its changelog section, its manifests' tags, the Dockerfile's labels", () => {
    const { version } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
    const changelog = readFileSync("CHANGELOG.md", "utf8");
    const manifestTags = Object.fromEntries(
      VARIANTS.map((v) => [
        v,
        manifestTag(readFileSync(`deploy/kubernetes/${v}/kustomization.yaml`, "utf8")),
      ]),
    );
    expect(releaseProblems({ ...ready, version, tags: [], changelog, manifestTags })).toEqual([]);
    const dockerfile = readFileSync("Dockerfile", "utf8");
    for (const [label, arg] of [
      ["version", "VERSION"],
      ["revision", "REVISION"],
      ["source", "SOURCE"],
    ]) {
      expect(dockerfile).toMatch(new RegExp(`^ARG ${arg}=`, "m"));
      expect(dockerfile).toContain(`org.opencontainers.image.${label}="\${${arg}}"`);
    }
  });
});
