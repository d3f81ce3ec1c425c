import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseYaml } from "../helpers/plain-yaml.js";
import { renderKustomization } from "./kustomize.js";

/** The tests' readers of deploy/: plain YAML, and the part of kustomize the manifests use. */
describe("parseYaml (the yaml package, refusing what deploy/ does not use)", () => {
  it("reads block mappings and sequences, scalars, one-line flow collections and block scalars", () => {
    const text = [
      "# a comment",
      "name: yardmaster # after a value",
      "count: 3",
      "ratio: 0.5",
      'quoted: "30" ',
      "single: 'it''s'",
      "flag: true",
      "nothing:",
      "list:",
      "  - a",
      "  - key: v",
      '    other: [x, "y z", 2]',
      "same-indent:",
      "- { name: nn, optional: true }",
      "folded: >-",
      "  one",
      "  two",
      "",
      "  three",
      "literal: |",
      "  a",
      "   b # kept",
    ].join("\n");
    expect(parseYaml(text)).toEqual({
      name: "yardmaster",
      count: 3,
      ratio: 0.5,
      quoted: "30",
      single: "it's",
      flag: true,
      nothing: null,
      list: ["a", { key: "v", other: ["x", "y z", 2] }],
      "same-indent": [{ name: "nn", optional: true }],
      folded: "one two\nthree",
      literal: "a\n b # kept\n",
    });
  });

  it("refuses what it does not read, with the line", () => {
    expect(() => parseYaml("a: &anchor 1", "f.yaml")).toThrow("f.yaml:1: anchors, aliases and tags");
    expect(() => parseYaml("a: 1\n---\nb: 2", "f.yaml")).toThrow("f.yaml:2: one document per file");
    expect(() => parseYaml("a: 1\na: 2", "f.yaml")).toThrow("f.yaml:2: Map keys must be unique");
    expect(() => parseYaml("a: yes", "f.yaml")).toThrow(
      "f.yaml:1: quote yes: YAML 1.1 reads it as a boolean",
    );
    expect(() => parseYaml("a: !!str 1", "f.yaml")).toThrow("f.yaml:1: anchors, aliases and tags");
    expect(() => parseYaml("a: [1,\n  2", "f.yaml")).toThrow(/^f\.yaml:\d+: /);
  });
});

describe("renderKustomization", () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("merges patches as kustomize does (lists by name or mount path, null deletes) and retags images", () => {
    dir = mkdtempSync(join(tmpdir(), "ym-kustomize-"));
    mkdirSync(join(dir, "base"));
    mkdirSync(join(dir, "variant"));
    const write = (path: string, lines: string[]) => writeFileSync(join(dir, path), lines.join("\n"));
    write("base/kustomization.yaml", [
      "apiVersion: kustomize.config.k8s.io/v1beta1",
      "kind: Kustomization",
      "resources:",
      "  - d.yaml",
    ]);
    write("base/d.yaml", [
      "apiVersion: apps/v1",
      "kind: Deployment",
      "metadata:",
      "  name: d",
      "spec:",
      "  replicas: 1",
      "  paused: false",
      "  template:",
      "    spec:",
      "      containers:",
      "        - name: c",
      "          image: registry/app",
      "          env:",
      "            - name: A",
      "              value: a",
      "          volumeMounts:",
      "            - name: tmp",
      "              mountPath: /tmp",
    ]);
    write("variant/kustomization.yaml", [
      "apiVersion: kustomize.config.k8s.io/v1beta1",
      "kind: Kustomization",
      "resources:",
      "  - ../base",
      "patches:",
      "  - path: p.yaml",
      "images:",
      "  - name: registry/app",
      '    newTag: "1.0.0"',
    ]);
    write("variant/p.yaml", [
      "apiVersion: apps/v1",
      "kind: Deployment",
      "metadata:",
      "  name: d",
      "spec:",
      "  replicas: 3",
      "  paused: null",
      "  template:",
      "    spec:",
      "      containers:",
      "        - name: c",
      "          env:",
      "            - name: B",
      "              value: b",
      "          volumeMounts:",
      "            - name: data",
      "              mountPath: /data",
    ]);
    const [deployment] = renderKustomization(join(dir, "variant"));
    expect(deployment).toEqual({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "d" },
      spec: {
        replicas: 3,
        template: {
          spec: {
            containers: [
              {
                name: "c",
                image: "registry/app:1.0.0",
                env: [
                  { name: "A", value: "a" },
                  { name: "B", value: "b" },
                ],
                volumeMounts: [
                  { name: "tmp", mountPath: "/tmp" },
                  { name: "data", mountPath: "/data" },
                ],
              },
            ],
          },
        },
      },
    });
    write("variant/kustomization.yaml", ["kind: Kustomization", "namePrefix: x-"]);
    expect(() => renderKustomization(join(dir, "variant"))).toThrow("namePrefix is not rendered");
  });
});
