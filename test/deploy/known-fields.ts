import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * The fields of an object that Kubernetes' schema does not have: kubectl (`--validate=strict`, its
 * default) refuses them, while kubernetes-models' validation lets them through. Read from the
 * interfaces kubernetes-models declares for each kind (their `.d.ts` files), field by field down the
 * object; a field typed as a map or a scalar is not looked into.
 */
const require = createRequire(import.meta.url);
const MODELS_DIR = dirname(require.resolve("kubernetes-models/package.json"));
const NODE_MODULES = join(MODELS_DIR, "..");

interface Shape {
  /** Field name → the file of its interface (null: a scalar or a map, not looked into). */
  fields: Map<string, string | null>;
}

const shapes = new Map<string, Shape | null>();

/** The first interface a declaration file exports, with where each field's own interface is declared. */
function shapeOf(file: string): Shape | null {
  if (shapes.has(file)) return shapes.get(file) ?? null;
  const text = readFileSync(file, "utf8");
  const imports = new Map<string, string>();
  for (const [, names = "", from = ""] of text.matchAll(/^import \{ ([^}]+) \} from "([^"]+)";$/gm)) {
    const path = from.startsWith(".")
      ? join(dirname(file), `${from}.d.ts`)
      : join(NODE_MODULES, `${from}.d.ts`);
    for (const name of names.split(",").map((n) => n.trim())) imports.set(name, path);
  }
  const body = /^export interface \w+(?: extends [\w, ]+)? \{\n([\s\S]*?)^\}/m.exec(text)?.[1];
  if (body === undefined) {
    shapes.set(file, null);
    return null;
  }
  const fields = new Map<string, string | null>();
  for (const [, name = "", type = ""] of body.matchAll(/^ {4}"([^"]+)"\??: (.*?);?$/gm)) {
    const inner = /^(?:Array<)?(\w+)>?$/.exec(type)?.[1];
    fields.set(name, inner ? (imports.get(inner) ?? null) : null);
  }
  const shape = { fields };
  shapes.set(file, shape);
  return shape;
}

/** `Deployment` of `apps/v1` → its declaration file in kubernetes-models. */
export function modelFile(apiVersion: string, kind: string): string {
  return join(MODELS_DIR, apiVersion, `${kind}.d.ts`);
}

/** The paths of `value`'s fields that the interface declared in `file` does not have. */
export function unknownFields(value: unknown, file: string, path = ""): string[] {
  const shape = shapeOf(file);
  if (!shape || value === null || typeof value !== "object") return [];
  if (Array.isArray(value)) return value.flatMap((item, i) => unknownFields(item, file, `${path}[${i}]`));
  const out: string[] = [];
  for (const [name, field] of Object.entries(value)) {
    const where = path ? `${path}.${name}` : name;
    if (!shape.fields.has(name)) out.push(where);
    else {
      const inner = shape.fields.get(name);
      if (inner) out.push(...unknownFields(field, inner, where));
    }
  }
  return out;
}
