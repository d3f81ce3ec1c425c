import { randomBytes } from "node:crypto";
import { LIMITS, validateBlocks } from "./block-kit-limits.js";

/**
 * Modals as Slack runs them: a `trigger_id` (from a slash command, a shortcut or a click) opens one view
 * with `views.open`, once, within 3 seconds; the person fills it and submits it (`view_submission`),
 * and the app's answer may keep it open with errors on its fields (`response_action: errors`).
 */

/** Slack's: a trigger_id works for 3 seconds. */
export const TRIGGER_TTL_MS = 3_000;

interface Trigger {
  issuedAt: number;
  used: boolean;
  userId: string;
}

export interface OpenView {
  id: string;
  userId: string;
  view: Record<string, unknown>;
  /** Changes at every update: views.update with an older hash is refused (`hash_conflict`). */
  hash: string;
  /** Closed once a submission was accepted without errors. */
  closed: boolean;
  /** The errors of the last submission, by block_id. */
  errors: Record<string, string> | null;
}

export class ViewStore {
  readonly #triggers = new Map<string, Trigger>();
  readonly #views: OpenView[] = [];

  issueTrigger(userId: string): string {
    const digits = (n: number) => String(Math.floor(Math.random() * 10 ** n)).padStart(n, "0");
    const id = `${digits(13)}.${digits(12)}.${randomBytes(16).toString("hex")}`;
    this.#triggers.set(id, { issuedAt: Date.now(), used: false, userId });
    return id;
  }

  /** Ages a trigger past its 3 seconds, as if the app had answered late. */
  expireTrigger(id: string): void {
    const trigger = this.#triggers.get(id);
    if (trigger) trigger.issuedAt = Date.now() - TRIGGER_TTL_MS - 1;
  }

  /** views.open: the trigger is spent whatever follows; errors as Slack names them. */
  open(triggerId: unknown, view: unknown): OpenView {
    const trigger = typeof triggerId === "string" ? this.#triggers.get(triggerId) : undefined;
    if (!trigger) throw new ViewError("invalid_trigger_id");
    if (trigger.used) throw new ViewError("exchanged_trigger_id");
    trigger.used = true;
    if (Date.now() - trigger.issuedAt > TRIGGER_TTL_MS) throw new ViewError("expired_trigger_id");
    const problems = checkModal(view);
    if (problems.length > 0) throw new ViewError("invalid_arguments", problems);
    const opened: OpenView = {
      id: `V${randomBytes(5).toString("hex").toUpperCase()}`,
      userId: trigger.userId,
      view: structuredClone(view as Record<string, unknown>),
      hash: randomBytes(8).toString("hex"),
      closed: false,
      errors: null,
    };
    this.#views.push(opened);
    return opened;
  }

  /**
   * views.update: replaces an open view by its id (what the person entered in inputs of the same
   * block_id and action_id is kept, as Slack keeps it); with `hash`, only if nothing updated it since.
   */
  update(viewId: unknown, hash: unknown, view: unknown): OpenView {
    const open = this.#views.find((v) => v.id === viewId);
    if (!open || open.closed) throw new ViewError("not_found");
    if (hash !== undefined && hash !== open.hash) throw new ViewError("hash_conflict");
    const problems = checkModal(view);
    if (problems.length > 0) throw new ViewError("invalid_arguments", problems);
    open.view = structuredClone(view as Record<string, unknown>);
    open.hash = randomBytes(8).toString("hex");
    return open;
  }

  /** The person's newest open view (or the one with this id). */
  current(userId: string, viewId?: string): OpenView | undefined {
    return this.#views
      .filter((v) => v.userId === userId && !v.closed && (viewId === undefined || v.id === viewId))
      .at(-1);
  }

  all(): OpenView[] {
    return this.#views;
  }
}

export class ViewError extends Error {
  constructor(
    readonly error: string,
    readonly messages: string[] = [],
  ) {
    super(error);
  }
}

const INPUT_ELEMENTS = new Set([
  "plain_text_input",
  "static_select",
  "checkboxes",
  "radio_buttons",
  "datetimepicker",
  "conversations_select",
]);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function plainText(value: unknown, max: number): boolean {
  return (
    isObject(value) &&
    value.type === "plain_text" &&
    typeof value.text === "string" &&
    value.text.length > 0 &&
    value.text.length <= max
  );
}

/** What Slack refuses in a modal: its title, buttons, metadata, and each block (inputs included). */
export function checkModal(view: unknown): string[] {
  if (!isObject(view) || view.type !== "modal") return ["[ERROR] must be a modal view"];
  const errors: string[] = [];
  if (!plainText(view.title, 24)) errors.push("[ERROR] title must be plain_text of 1 to 24 characters");
  for (const key of ["submit", "close"] as const) {
    if (view[key] !== undefined && !plainText(view[key], 24))
      errors.push(`[ERROR] ${key} must be plain_text of 1 to 24 characters`);
  }
  if (typeof view.private_metadata === "string" && view.private_metadata.length > 3000)
    errors.push("[ERROR] private_metadata must be at most 3000 characters");
  if (typeof view.callback_id === "string" && view.callback_id.length > 255)
    errors.push("[ERROR] callback_id must be at most 255 characters");
  const blocks = Array.isArray(view.blocks) ? view.blocks : [];
  if (!Array.isArray(view.blocks)) errors.push("[ERROR] blocks must be a list");
  errors.push(...validateBlocks(blocks, LIMITS.blocksPerView).map((e) => `[ERROR] ${e}`));
  const inputs = blocks.filter((b) => isObject(b) && b.type === "input");
  if (inputs.length > 0 && view.submit === undefined) errors.push("[ERROR] a view with inputs needs submit");
  inputs.forEach((block, i) => {
    errors.push(...checkInput(block as Record<string, unknown>, i));
  });
  return errors;
}

function checkInput(block: Record<string, unknown>, index: number): string[] {
  const at = `input ${index}`;
  const errors: string[] = [];
  if (!plainText(block.label, 2000))
    errors.push(`[ERROR] ${at}: label must be plain_text of 1 to 2000 characters`);
  const element = block.element;
  if (!isObject(element) || typeof element.type !== "string" || !INPUT_ELEMENTS.has(element.type)) {
    return [...errors, `[ERROR] ${at}: unsupported element`];
  }
  if (typeof element.action_id !== "string" || element.action_id.length > 255)
    errors.push(`[ERROR] ${at}: action_id`);
  if (
    element.type === "plain_text_input" &&
    typeof element.max_length === "number" &&
    element.max_length > 3000
  )
    errors.push(`[ERROR] ${at}: max_length must be at most 3000`);
  if (["static_select", "checkboxes", "radio_buttons"].includes(element.type)) {
    const options = element.options;
    const max = element.type === "static_select" ? 100 : 10;
    if (!Array.isArray(options) || options.length === 0 || options.length > max) {
      errors.push(`[ERROR] ${at}: 1 to ${max} options`);
    } else {
      for (const o of options) {
        if (!isObject(o) || !plainText(o.text, 75) || typeof o.value !== "string" || o.value.length > 150)
          errors.push(
            `[ERROR] ${at}: an option must have text of 1 to 75 characters and a value of at most 150`,
          );
      }
    }
  }
  return errors;
}

/** What a person entered, by block_id: a text, a chosen value, chosen values, or an instant (Unix seconds). */
export type Entered = Record<string, string | string[] | number>;

/** `view.state.values` as Slack sends it, from what was entered; throws for a value the form does not offer. */
export function stateValues(
  view: Record<string, unknown>,
  entered: Entered,
): Record<string, Record<string, unknown>> {
  const values: Record<string, Record<string, unknown>> = {};
  const blocks = Array.isArray(view.blocks) ? (view.blocks as Record<string, unknown>[]) : [];
  for (const block of blocks) {
    if (block.type !== "input" || typeof block.block_id !== "string") continue;
    const element = block.element as Record<string, unknown>;
    const actionId = element.action_id as string;
    const given = entered[block.block_id];
    const options = (Array.isArray(element.options) ? element.options : []) as { value: string }[];
    const pick = (value: string) => {
      const found = options.find((o) => o.value === value);
      if (!found) throw new Error(`Slack stand-in: the form offers no ${value} in ${block.block_id}`);
      return found;
    };
    let state: Record<string, unknown>;
    switch (element.type) {
      case "plain_text_input":
        state = { value: typeof given === "string" && given !== "" ? given : null };
        break;
      case "static_select":
      case "radio_buttons": {
        const initial = element.initial_option ?? null;
        state = { selected_option: typeof given === "string" ? pick(given) : initial };
        break;
      }
      case "checkboxes": {
        const initial = (element.initial_options as unknown[] | undefined) ?? [];
        state = { selected_options: Array.isArray(given) ? given.map(pick) : initial };
        break;
      }
      case "datetimepicker":
        state = { selected_date_time: typeof given === "number" ? given : null };
        break;
      default:
        state = { selected_conversation: typeof given === "string" ? given : null };
    }
    values[block.block_id] = { [actionId]: { type: element.type, ...state } };
  }
  return values;
}
