// Block Kit to HTML, for the sandbox page: header, section (text, fields, a button accessory), context,
// divider, actions with buttons, image (as its alt text). Buttons carry their action_id and value in
// data attributes; the page turns a click into the Slack stand-in's block_actions request.

import { escapeHtml } from "./html.js";
import { mrkdwnToHtml, type UserNames } from "./mrkdwn.js";

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A message: its blocks, or its `text` as mrkdwn when it has none. */
export function messageToHtml(message: { text?: string; blocks?: unknown[] }, names: UserNames): string {
  const blocks = (message.blocks ?? []).filter(isObject);
  if (blocks.length === 0) return `<div class="sk-section">${mrkdwnToHtml(message.text ?? "", names)}</div>`;
  return blocks.map((block) => blockToHtml(block, names)).join("");
}

function blockToHtml(block: Json, names: UserNames): string {
  switch (block.type) {
    case "header":
      return `<div class="sk-header">${textObject(block.text, names)}</div>`;
    case "divider":
      return `<hr class="sk-divider">`;
    case "section": {
      const text = isObject(block.text) ? `<div class="sk-text">${textObject(block.text, names)}</div>` : "";
      const fields = Array.isArray(block.fields)
        ? `<div class="sk-fields">${block.fields
            .map((field) => `<div class="sk-field">${textObject(field, names)}</div>`)
            .join("")}</div>`
        : "";
      const accessory = isObject(block.accessory) ? element(block.accessory, names) : "";
      return `<div class="sk-section"><div class="sk-main">${text}${fields}</div>${accessory}</div>`;
    }
    case "context": {
      const elements = Array.isArray(block.elements) ? block.elements : [];
      return `<div class="sk-context">${elements
        .map((e) => `<span class="sk-context-item">${isObject(e) ? contextElement(e, names) : ""}</span>`)
        .join("")}</div>`;
    }
    case "actions": {
      const elements = Array.isArray(block.elements) ? block.elements.filter(isObject) : [];
      return `<div class="sk-actions">${elements.map((e) => element(e, names)).join("")}</div>`;
    }
    case "image":
      return `<div class="sk-context">🖼️ ${escapeHtml(String(block.alt_text ?? "image"))}</div>`;
    default:
      return "";
  }
}

/** A text object: mrkdwn, or plain text (escaped, nothing formatted). */
function textObject(text: unknown, names: UserNames): string {
  if (!isObject(text) || typeof text.text !== "string") return "";
  return text.type === "mrkdwn" ? mrkdwnToHtml(text.text, names) : escapeHtml(text.text);
}

function contextElement(element: Json, names: UserNames): string {
  if (element.type === "image")
    return `<span class="sk-image">${escapeHtml(String(element.alt_text ?? ""))}</span>`;
  return textObject(element, names);
}

function element(element: Json, names: UserNames): string {
  if (element.type !== "button") return "";
  const style = element.style === "primary" || element.style === "danger" ? ` sk-${element.style}` : "";
  const url = typeof element.url === "string" && /^https?:\/\//i.test(element.url) ? element.url : undefined;
  const attributes = [
    `class="sk-button${style}"`,
    `type="button"`,
    `data-action-id="${escapeHtml(String(element.action_id ?? ""))}"`,
    `data-value="${escapeHtml(String(element.value ?? ""))}"`,
    ...(url ? [`data-url="${escapeHtml(url)}"`] : []),
  ];
  return `<button ${attributes.join(" ")}>${textObject(element.text, names)}</button>`;
}
