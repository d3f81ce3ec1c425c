import { branches } from "./branches.js";
import type { CommandModule, CommandSpec as Spec, Surface } from "./command.js";
import { dequeue } from "./dequeue.js";
import { doctor } from "./doctor.js";
import { drain } from "./drain.js";
import { freeze } from "./freeze.js";
import { freezes } from "./freezes.js";
import { help } from "./help.js";
import { letThrough } from "./let-through.js";
import { login } from "./login.js";
import { logout } from "./logout.js";
import { notify } from "./notify.js";
import { pause } from "./pause.js";
import { pr } from "./pr.js";
import { queue } from "./queue.js";
import { requeue } from "./requeue.js";
import { retry } from "./retry.js";
import { stats } from "./stats.js";
import { status } from "./status.js";
import { subscribe } from "./subscribe.js";
import { subscriptions } from "./subscriptions.js";
import { unfreeze } from "./unfreeze.js";
import { unpause } from "./unpause.js";
import { unsubscribe } from "./unsubscribe.js";
import { whoami } from "./whoami.js";

/**
 * Every command Yardmaster knows, one module each, in the order help lists them. Parsing, help, "did
 * you mean", authorization and the PERMISSION_<COMMAND> settings all read this list: a new command is
 * its module and one line here.
 */
export const COMMAND_MODULES = named({
  queue,
  dequeue,
  requeue,
  retry,
  pause,
  unpause,
  drain,
  let: letThrough,
  freeze,
  freezes,
  unfreeze,
  status,
  stats,
  pr,
  branches,
  subscribe,
  unsubscribe,
  subscriptions,
  notify,
  login,
  logout,
  whoami,
  doctor,
  help,
});

/** Each module under its own name. */
function named<M extends { [N in keyof M]: { name: N } }>(modules: M): M {
  return modules;
}

export type CommandName = keyof typeof COMMAND_MODULES;
export const COMMAND_NAMES = Object.keys(COMMAND_MODULES) as readonly CommandName[];

type Modules = typeof COMMAND_MODULES;
/** A command as the core understands it, whatever surface it was typed on. */
export type Command = { [N in CommandName]: Parameters<Modules[N]["execute"]>[0] }[CommandName];
/** The successful outcome of each command; surfaces lay out its description. */
export type CommandResult = { [N in CommandName]: Awaited<ReturnType<Modules[N]["execute"]>> }[CommandName];

export type { Surface };
export type CommandSpec = Spec<CommandName>;

/** A module without its own types, for the code that runs any command by name. */
export function moduleOf(name: CommandName): CommandModule<Command, CommandResult> {
  return COMMAND_MODULES[name] as unknown as CommandModule<Command, CommandResult>;
}

function specOf(module: CommandModule<Command, CommandResult>): CommandSpec {
  const surfaces = (["github", "slack"] as const).filter((s) => module.grammar[s]);
  const usage: CommandSpec["usage"] = {};
  for (const s of surfaces) usage[s] = module.grammar[s]?.usage;
  return {
    name: module.name,
    aliases: module.aliases ?? [],
    surfaces,
    permission: module.permission,
    permissionOn: module.permissionOn ?? "the repository",
    needsLink: module.needsLink,
    changes: module.changes,
    usage,
    summary: module.summary,
  };
}

export const COMMANDS: Readonly<Record<CommandName, CommandSpec>> = Object.fromEntries(
  COMMAND_NAMES.map((name) => [name, specOf(moduleOf(name))]),
) as Record<CommandName, CommandSpec>;

/** Commands whose permission an operator may set with PERMISSION_<COMMAND>. */
export const PERMISSION_CONFIGURABLE: readonly CommandName[] = COMMAND_NAMES.filter(
  (n) => !["help", "login", "logout", "whoami", "doctor", "notify"].includes(n),
);
