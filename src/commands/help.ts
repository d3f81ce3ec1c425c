import { DEFAULT_EVENT_GROUPS, EVENT_GROUPS } from "../core/event-groups.js";
import type { Text, TextFormat } from "../wording/description.js";
import { plural } from "../wording/words.js";
import { type CommandSpec, defineCommand, type Surface } from "./command.js";

/** What help adds under the list: how the surface's grammar works. */
const NOTES: Record<Surface, Text[]> = {
  github: [
    (f) =>
      `One command per comment, on its first line: ${f.code(`${f.invocation} <command>`)}. The other lines are ignored.`,
  ],
  slack: [
    (f) =>
      `Targets: ${f.code("owner/repo")}, ${f.code("owner/repo#123")} or a pull-request URL. In a channel subscribed to exactly one repository, the repository may be left out.`,
    (f) =>
      `Event groups for ${f.code("subscribe")}: ${EVENT_GROUPS.map((g) => f.code(g)).join(", ")} (by default ${DEFAULT_EVENT_GROUPS.slice(0, -1).join(", ")} and ${DEFAULT_EVENT_GROUPS.at(-1)}). Buttons do what their commands do, with the same checks.`,
  ],
};

/** help: every command of the surface it is asked on, with its usage, summary and what it needs. */
export const help = defineCommand<{ name: "help" }, { name: "help"; surface: Surface }>({
  name: "help",
  summary: "list the commands",
  permission: "none",
  needsLink: false,
  changes: false,
  // Help reads no arguments: whatever follows it, the list is what was asked for.
  grammar: {
    github: { usage: "help", read: () => ({ name: "help" }) },
    slack: { usage: "help", read: () => ({ name: "help" }) },
  },
  execute: async (_command, actor) => ({ name: "help", surface: actor.surface }),
  describe({ surface }, { commands }) {
    const specs = commands.filter((c) => c.surfaces.includes(surface));
    const needs = (spec: CommandSpec) =>
      [
        ...(surface === "slack" && spec.needsLink ? ["a linked GitHub account"] : []),
        ...(spec.permission !== "none" ? [`${spec.permission} permission on ${spec.permissionOn}`] : []),
      ].join(" and ");
    const usage = (f: TextFormat, spec: CommandSpec) => {
      const aliases = spec.aliases.length ? ` (or ${spec.aliases.map((a) => f.code(a)).join(", ")})` : "";
      return `${f.code(`${f.invocation} ${spec.usage[surface] ?? spec.name}`)}${aliases}: ${spec.summary}`;
    };
    return {
      parts: [
        { kind: "title", text: "Yardmaster: merge-queue commands" },
        {
          kind: "list",
          name: "commands",
          items: specs.map((spec) => (f) => {
            const need = needs(spec);
            return `${usage(f, spec)}.${need ? ` ${f.italic(`Needs ${need}.`)}` : ""}`;
          }),
          more: (n) => () => `…and ${plural(n, "more command", "more commands")}`,
        },
        { kind: "note", texts: NOTES[surface] },
      ],
      summary: (f) =>
        `Yardmaster commands:\n${specs
          .map((spec) => {
            const need = needs(spec);
            return `• ${usage(f, spec)}${need ? ` (needs ${need})` : ""}.`;
          })
          .join("\n")}`,
    };
  },
});
