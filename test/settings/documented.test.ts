import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PERMISSION_SETTING, SETTING_NAMES, SETTINGS, type Setting } from "../../src/settings/settings.js";
import { renderEnvExample } from "../../tools/env-example.js";

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), "utf8");
const PERMISSION_FAMILY = `${PERMISSION_SETTING.prefix}<COMMAND>`;

describe(".env.example", () => {
  const text = read(".env.example");
  const assigned = [...text.matchAll(/^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/gm)].map(([, name, value]) => ({
    name: name as string,
    value: value as string,
  }));

  it("lists every setting of the table once, in its order, and nothing else", () => {
    expect(assigned.map((a) => a.name)).toEqual(SETTING_NAMES);
  });

  it("shows each setting's default as its value, and leaves the others empty", () => {
    for (const { name, value } of assigned) {
      expect(value, name).toBe((SETTINGS[name as keyof typeof SETTINGS] as Setting).default ?? "");
    }
  });

  it("shows PERMISSION_<COMMAND> as commented examples only", () => {
    expect(text).toContain(PERMISSION_FAMILY);
    for (const example of PERMISSION_SETTING.examples) expect(text).toContain(`\n# ${example}\n`);
  });

  it("is what the table writes (npm run env-example)", () => {
    expect(text).toBe(renderEnvExample());
  });
});

describe("the README's settings table", () => {
  it("names every setting, and no other", () => {
    const section = read("README.md").split("### Settings")[1]?.split("\n## ")[0] ?? "";
    const rows = section.split("\n").filter((line) => line.startsWith("| `"));
    const named = rows.flatMap((row) =>
      [...(row.split("|")[1] ?? "").matchAll(/`([^`]+)`/g)].map((m) => m[1]),
    );
    expect(named.sort()).toEqual([...SETTING_NAMES, PERMISSION_FAMILY].sort());
  });
});

describe("the settings table", () => {
  it("gives examples its own schemas accept", () => {
    for (const name of SETTING_NAMES) {
      const { example, schema } = SETTINGS[name] as Setting;
      if (example !== undefined) expect(schema.safeParse(example).success, name).toBe(true);
    }
  });

  it("lets a setting stand in only for another setting of its own group", () => {
    for (const name of SETTING_NAMES) {
      const { or, group } = SETTINGS[name] as Setting;
      if (or !== undefined)
        expect((SETTINGS[or as keyof typeof SETTINGS] as Setting | undefined)?.group).toBe(group);
    }
  });
});
