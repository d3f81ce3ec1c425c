import { isAlias, isScalar, parseAllDocuments, visit } from "yaml";

/** Plain scalars YAML 1.1 (which Kubernetes' and Prometheus' readers follow) reads as booleans. */
const YAML_11_BOOLEANS = /^(y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF)$/;

/**
 * Reads the plain YAML that `deploy/` is written in, for the tests, with the `yaml` package; refuses,
 * with the file and line, what would make the files less plain to read or read differently by
 * Kubernetes' and Prometheus' YAML 1.1 readers: several documents, anchors and aliases, tags, a bare
 * yes/no/on/off, and duplicate keys.
 */
export function parseYaml(text: string, where = "yaml"): unknown {
  const documents = parseAllDocuments(text, { prettyErrors: true, uniqueKeys: true });
  if (!Array.isArray(documents)) return null;
  const lineOf = (offset: number | undefined) => text.slice(0, offset ?? 0).split("\n").length;
  const fail = (offset: number | undefined, why: string): never => {
    throw new Error(`${where}:${lineOf(offset)}: ${why}`);
  };
  if (documents.length === 0) return null;
  if (documents.length > 1) fail(documents[1]?.range[0], "one document per file");
  const document = documents[0];
  if (!document) return null;
  const [error] = document.errors;
  if (error) fail(error.pos[0], error.message.split("\n")[0] ?? "unreadable");
  visit(document, {
    Node(_key, node) {
      const at = node.range?.[0];
      if (isAlias(node) || ("anchor" in node && node.anchor))
        fail(at, "anchors, aliases and tags are not used here");
      if ("tag" in node && node.tag) fail(at, "anchors, aliases and tags are not used here");
      if (
        isScalar(node) &&
        node.type === "PLAIN" &&
        typeof node.source === "string" &&
        YAML_11_BOOLEANS.test(node.source)
      )
        fail(at, `quote ${node.source}: YAML 1.1 reads it as a boolean`);
    },
  });
  return document.toJS();
}
