// .env.example, written from the settings table (src/settings/settings.ts): `npm run env-example`
// after changing the table; a test fails while the file and the table disagree.

import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { COMMANDS } from "../src/commands/catalog.js";
import { PERMISSION_LEVELS } from "../src/core/permission-level.js";
import {
  GROUPS,
  type Group,
  PERMISSION_SETTING,
  SETTING_NAMES,
  SETTINGS,
  type Setting,
} from "../src/settings/settings.js";

const WIDTH = 100;

/** `text` as comment lines of at most WIDTH characters. */
function comment(text: string, indent = "# "): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && `${indent}${line} ${word}`.length > WIDTH) {
      lines.push(`${indent}${line}`);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, `${indent}${line}`];
}

const sentence = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;

function describe(setting: Setting): string[] {
  return [
    ...comment(
      setting.required
        ? `Required${setting.optionalWhen ? ` unless ${setting.optionalWhen.setting}=${setting.optionalWhen.is} (${setting.optionalWhen.why})` : ""}: ${setting.meaning}.`
        : sentence(setting.meaning),
    ),
    ...(setting.example ? [`# For example: ${setting.example}`] : []),
  ];
}

/** Which commands need more than nothing by default: "queue, pause need write; subscribe needs read". */
function defaultLevels(): string {
  const byLevel = new Map<string, string[]>();
  for (const command of Object.values(COMMANDS)) {
    if (command.permission !== "none") {
      byLevel.set(command.permission, [...(byLevel.get(command.permission) ?? []), command.name]);
    }
  }
  return [...byLevel]
    .map(([level, names]) => `${names.join(", ")} ${names.length === 1 ? "needs" : "need"} ${level}`)
    .join("; ");
}

export function renderEnvExample(): string {
  const lines = [
    "# Yardmaster settings. Copy to .env and fill in. Empty means unset.",
    ...comment(
      "A surface (GitHub, Slack, identity linking) whose settings are all unset is off; one that is partly set stops the start.",
    ),
  ];
  for (const [name, group] of Object.entries(GROUPS) as [string, Group][]) {
    if (name === PERMISSION_SETTING.group) continue;
    lines.push("", ...comment(`--- ${group.title}.${group.note ? ` ${group.note}` : ""}`));
    for (const variable of SETTING_NAMES) {
      const setting: Setting = SETTINGS[variable];
      if (setting.group === name) lines.push(...describe(setting), `${variable}=${setting.default ?? ""}`);
    }
  }
  const { title } = GROUPS[PERMISSION_SETTING.group];
  lines.push(
    "",
    ...comment(
      `--- ${title}. ${PERMISSION_SETTING.prefix}<COMMAND>: ${PERMISSION_SETTING.meaning}. Levels: ${PERMISSION_LEVELS.join(", ")}. Defaults: ${defaultLevels()}.`,
    ),
    ...PERMISSION_SETTING.examples.map((example) => `# ${example}`),
  );
  return `${lines.join("\n")}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const path = fileURLToPath(new URL("../.env.example", import.meta.url));
  writeFileSync(path, renderEnvExample());
  process.stdout.write(`wrote ${path}\n`);
}
