import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseYaml } from "../helpers/plain-yaml.js";

/**
 * What `kubectl apply -k <dir>` would send, for the tests (no kubectl here): the part of kustomize that
 * deploy/kubernetes uses, and no more. `resources` (files, and directories with a kustomization.yaml),
 * `patches` given by `path` (strategic merge, matched by kind and name: lists of containers, env,
 * volumes and ports merged by name, volume mounts by mount path, other lists replaced, `null` deletes)
 * and `images` (`newName`, `newTag`). Any other field is refused, so the tests notice a kustomization
 * they would not render as kubectl does.
 */
export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; [key: string]: unknown };
  [key: string]: unknown;
};

const FIELDS = new Set(["apiVersion", "kind", "resources", "patches", "images"]);

export function renderKustomization(dir: string): K8sObject[] {
  const file = join(dir, "kustomization.yaml");
  const k = parseYaml(readFileSync(file, "utf8"), file) as Record<string, unknown>;
  for (const key of Object.keys(k)) if (!FIELDS.has(key)) throw new Error(`${file}: ${key} is not rendered`);
  if (k.kind !== "Kustomization") throw new Error(`${file}: not a Kustomization`);
  const objects: K8sObject[] = [];
  for (const resource of (k.resources as string[] | undefined) ?? []) {
    const path = join(dir, resource);
    if (statSync(path).isDirectory()) objects.push(...renderKustomization(path));
    else objects.push(readObject(path));
  }
  for (const patch of (k.patches as { path?: string }[] | undefined) ?? []) {
    if (Object.keys(patch).join() !== "path" || !patch.path) throw new Error(`${file}: only patches by path`);
    const change = readObject(join(dir, patch.path));
    const index = objects.findIndex(
      (o) => o.kind === change.kind && o.metadata.name === change.metadata.name,
    );
    if (index === -1)
      throw new Error(`${file}: ${patch.path} patches no ${change.kind} ${change.metadata.name}`);
    objects[index] = merge(objects[index], change, "") as K8sObject;
  }
  for (const image of (k.images as { name: string; newName?: string; newTag?: string }[] | undefined) ?? [])
    for (const o of objects) retag(o, image);
  return objects;
}

function readObject(path: string): K8sObject {
  const o = parseYaml(readFileSync(path, "utf8"), path) as K8sObject;
  if (!o?.apiVersion || !o.kind || !o.metadata?.name) throw new Error(`${path}: not a Kubernetes object`);
  return o;
}

const MERGE_KEYS: Record<string, string> = {
  containers: "name",
  initContainers: "name",
  env: "name",
  volumes: "name",
  ports: "containerPort",
  volumeMounts: "mountPath",
};

/** Strategic merge of `patch` into `base`; `field` is the name of the field they are the value of. */
function merge(base: unknown, patch: unknown, field: string): unknown {
  if (Array.isArray(patch)) {
    const key = MERGE_KEYS[field];
    if (!key || !Array.isArray(base)) return patch;
    const out = [...base];
    for (const item of patch as Record<string, unknown>[]) {
      const at = out.findIndex((o) => (o as Record<string, unknown>)[key] === item[key]);
      if (at === -1) out.push(item);
      else out[at] = merge(out[at], item, "");
    }
    return out;
  }
  if (patch === null || typeof patch !== "object" || base === null || typeof base !== "object") return patch;
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) delete out[name];
    else out[name] = name in out ? merge(out[name], value, name) : value;
  }
  return out;
}

/** kustomize's `images`: every container image named `name` (with or without a tag) gets the new ones. */
function retag(value: unknown, image: { name: string; newName?: string; newTag?: string }): void {
  if (Array.isArray(value)) for (const v of value) retag(v, image);
  else if (value && typeof value === "object") {
    const o = value as Record<string, unknown>;
    for (const [key, v] of Object.entries(o)) {
      if (key === "image" && typeof v === "string") {
        const [name, tag] = splitImage(v);
        if (name === image.name)
          o[key] = `${image.newName ?? name}${image.newTag ? `:${image.newTag}` : tag ? `:${tag}` : ""}`;
      } else retag(v, image);
    }
  }
}

function splitImage(image: string): [string, string | undefined] {
  const slash = image.lastIndexOf("/");
  const colon = image.lastIndexOf(":");
  return colon > slash ? [image.slice(0, colon), image.slice(colon + 1)] : [image, undefined];
}

export const VARIANTS = ["sqlite", "postgres"] as const;
export const KUBERNETES_DIR = fileURLToPath(new URL("../../deploy/kubernetes", import.meta.url));
