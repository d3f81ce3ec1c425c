import type { FreezeRecords } from "../core/record-ports.js";

/** What the freeze commands need (src/commands/freeze.ts, freezes.ts, unfreeze.ts). */
export interface FreezePorts {
  store: Pick<FreezeRecords, "addFreeze" | "listFreezes" | "deleteFreeze">;
  /** The clock windows are reckoned on (tests move it). */
  now: () => Date;
}
