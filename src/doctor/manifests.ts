import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * What the app asks for, read from the two manifests people register it from (app.yml for GitHub,
 * slack-manifest.yml for Slack), so that a permission, event or scope added there is checked without
 * another list to keep in step. Both files sit at the repository's root, next to `src/` and `dist/`
 * (the Docker image copies them too).
 */

export interface GitHubAppAsks {
  /** default_permissions: permission → "read" | "write" | "admin". */
  permissions: Record<string, string>;
  /** default_events. */
  events: string[];
}

export interface SlackAppAsks {
  /** oauth_config.scopes.bot. */
  botScopes: string[];
}

const ROOT = new URL("../../", import.meta.url);
const APP_MANIFEST_PATH = fileURLToPath(new URL("app.yml", ROOT));
const SLACK_MANIFEST_PATH = fileURLToPath(new URL("slack-manifest.yml", ROOT));

export function readGitHubAppAsks(path = APP_MANIFEST_PATH): GitHubAppAsks {
  return githubAppAsks(readFileSync(path, "utf8"));
}

export function readSlackAppAsks(path = SLACK_MANIFEST_PATH): SlackAppAsks {
  return slackAppAsks(readFileSync(path, "utf8"));
}

export function githubAppAsks(text: string): GitHubAppAsks {
  const permissions = yamlMap(text, ["default_permissions"]);
  const events = yamlList(text, ["default_events"]);
  if (!permissions || !events) throw new Error("app.yml has no default_permissions or default_events");
  return { permissions, events };
}

export function slackAppAsks(text: string): SlackAppAsks {
  const botScopes = yamlList(text, ["oauth_config", "scopes", "bot"]);
  if (!botScopes) throw new Error("slack-manifest.yml has no oauth_config.scopes.bot");
  return { botScopes };
}

// The manifests' YAML is block style only: nested maps and lists of plain scalars, with comments. This
// reads exactly that (a key path, then its block) rather than bringing in a YAML library for two lists.

interface Line {
  indent: number;
  text: string;
}

function lines(text: string): Line[] {
  return text.split(/\r?\n/).flatMap((raw) => {
    const text = raw.replace(/(^|\s)#.*$/, "").trimEnd();
    if (text.trim() === "") return [];
    return [{ indent: text.length - text.trimStart().length, text: text.trim() }];
  });
}

/** The lines of the block under a key path (more indented than its key), or null when there is none. */
function block(text: string, path: readonly string[]): Line[] | null {
  let scope = lines(text);
  let indent = -1;
  for (const key of path) {
    const at = scope.findIndex((l) => l.text === `${key}:` && l.indent > indent);
    if (at < 0) return null;
    const keyIndent = scope[at]?.indent ?? 0;
    const end = scope.findIndex((l, i) => i > at && l.indent <= keyIndent);
    scope = scope.slice(at + 1, end < 0 ? undefined : end);
    indent = keyIndent;
  }
  return scope;
}

const scalar = (value: string) => value.trim().replace(/^(["'])(.*)\1$/, "$2");

function yamlList(text: string, path: readonly string[]): string[] | null {
  const found = block(text, path);
  if (!found) return null;
  const top = Math.min(...found.map((l) => l.indent));
  return found.filter((l) => l.indent === top && l.text.startsWith("- ")).map((l) => scalar(l.text.slice(2)));
}

function yamlMap(text: string, path: readonly string[]): Record<string, string> | null {
  const found = block(text, path);
  if (!found) return null;
  const top = Math.min(...found.map((l) => l.indent));
  const map: Record<string, string> = {};
  for (const l of found) {
    const match = /^([\w-]+):\s*(.+)$/.exec(l.text);
    if (l.indent === top && match?.[1] && match[2]) map[match[1]] = scalar(match[2]);
  }
  return map;
}
