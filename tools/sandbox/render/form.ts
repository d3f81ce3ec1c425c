// A modal's blocks to an HTML form, for the sandbox page: its inputs (plain text, static select, radio
// buttons, checkboxes, a date and time) named by block_id, and the other blocks as in a message. Every
// text is escaped here; each input has an empty error line the page fills from the view's errors.

import { messageToHtml } from "./blocks.js";
import { escapeHtml } from "./html.js";
import type { UserNames } from "./mrkdwn.js";

type Json = Record<string, unknown>;
interface Option {
  text: string;
  value: string;
}

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const plain = (text: unknown) => (isObject(text) && typeof text.text === "string" ? text.text : "");
const options = (list: unknown): Option[] =>
  (Array.isArray(list) ? list.filter(isObject) : []).map((o) => ({
    text: plain(o.text),
    value: String(o.value ?? ""),
  }));

export function formToHtml(view: Json, names: UserNames): string {
  const blocks = Array.isArray(view.blocks) ? view.blocks.filter(isObject) : [];
  return blocks
    .map((block) => (block.type === "input" ? inputToHtml(block) : messageToHtml({ blocks: [block] }, names)))
    .join("");
}

function inputToHtml(block: Json): string {
  const id = escapeHtml(String(block.block_id ?? ""));
  const element = isObject(block.element) ? block.element : {};
  const optional = block.optional === true ? ` <span class="muted">(optional)</span>` : "";
  const hint = plain(block.hint) ? `<div class="sk-hint muted">${escapeHtml(plain(block.hint))}</div>` : "";
  return [
    `<div class="sk-input" data-block-id="${id}" data-kind="${kindOf(element)}">`,
    `<label class="sk-label" for="form-${id}">${escapeHtml(plain(block.label))}${optional}</label>`,
    control(element, id),
    hint,
    `<div class="sk-error" data-error-for="${id}" role="alert"></div>`,
    `</div>`,
  ].join("");
}

function kindOf(element: Json): string {
  switch (element.type) {
    case "static_select":
      return "select";
    case "radio_buttons":
      return "radio";
    case "checkboxes":
      return "checkbox";
    case "datetimepicker":
      return "datetime";
    default:
      return "text";
  }
}

function control(element: Json, id: string): string {
  const at = `id="form-${id}" name="${id}"`;
  switch (element.type) {
    case "static_select": {
      const initial = isObject(element.initial_option) ? String(element.initial_option.value ?? "") : null;
      const placeholder =
        initial === null
          ? `<option value="">${escapeHtml(plain(element.placeholder) || "Choose")}</option>`
          : "";
      const list = options(element.options)
        .map(
          (o) =>
            `<option value="${escapeHtml(o.value)}"${o.value === initial ? " selected" : ""}>${escapeHtml(o.text)}</option>`,
        )
        .join("");
      return `<select ${at}>${placeholder}${list}</select>`;
    }
    case "radio_buttons":
    case "checkboxes": {
      const type = element.type === "radio_buttons" ? "radio" : "checkbox";
      const chosen = new Set(
        (element.type === "radio_buttons" ? [element.initial_option] : options(element.initial_options)).map(
          (o) => (isObject(o) ? String(o.value ?? "") : ""),
        ),
      );
      return `<div class="sk-choices" id="form-${id}">${options(element.options)
        .map(
          (o) =>
            `<label><input type="${type}" name="${id}" value="${escapeHtml(o.value)}"${chosen.has(o.value) ? " checked" : ""}> ${escapeHtml(o.text)}</label>`,
        )
        .join("")}</div>`;
    }
    case "datetimepicker":
      return `<input type="datetime-local" ${at}>`;
    default: {
      const value = typeof element.initial_value === "string" ? escapeHtml(element.initial_value) : "";
      const max = typeof element.max_length === "number" ? ` maxlength="${element.max_length}"` : "";
      const placeholder = plain(element.placeholder)
        ? ` placeholder="${escapeHtml(plain(element.placeholder))}"`
        : "";
      return element.multiline === true
        ? `<textarea ${at} rows="3"${max}${placeholder}>${value}</textarea>`
        : `<input type="text" ${at} value="${value}"${max}${placeholder}>`;
    }
  }
}
