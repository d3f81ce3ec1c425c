// The right pane: the channel as the current person sees it, Slack style.
import { avatar, h, slackTime, trusted } from "./dom.js";

/** `open`: the set of thread parents (ts) whose replies are shown. */
export function renderMessages(container, messages, open) {
  container.replaceChildren(...messages.map((m) => (m.kind === "typed" ? typed(m) : message(m, open))));
  if (messages.length === 0) {
    container.append(h("p", { class: "muted empty" }, "Nothing here yet. Type /mq help below."));
  }
}

function typed(m) {
  return h(
    "div",
    { class: "sl-typed", "data-ts": m.ts },
    h("span", { class: "muted" }, `${m.author} used `),
    h("code", {}, m.text),
    h("span", { class: "muted" }, " (only you see this line)"),
  );
}

function message(m, open, reply) {
  const replies = m.replies ?? [];
  const expanded = open.has(m.ts);
  const toggle =
    replies.length > 0
      ? h(
          "button",
          { type: "button", class: "sl-thread-toggle", "data-thread": m.ts, "aria-expanded": expanded },
          `${replies.length} ${replies.length === 1 ? "reply" : "replies"}`,
          h("span", { class: "muted" }, ` · last reply ${slackTime(replies[replies.length - 1].ts)}`),
          h("span", { class: "muted" }, expanded ? " · hide" : " · show"),
        )
      : null;
  return h(
    "div",
    {
      class: `sl-msg${m.kind === "ephemeral" ? " ephemeral" : ""}${reply ? " reply" : ""}`,
      "data-ts": m.ts,
    },
    avatar(m.author, m.bot),
    h(
      "div",
      { class: "sl-content" },
      h(
        "div",
        { class: "sl-head" },
        h("strong", {}, m.author),
        m.bot ? h("span", { class: "app" }, "APP") : null,
        h("span", { class: "muted" }, slackTime(m.ts)),
        m.edited ? h("span", { class: "muted" }, "(edited)") : null,
      ),
      trusted("div", "sl-body", m.html),
      ...(m.unfurls ?? []).map((u) =>
        h("div", { class: "sl-unfurl", "data-unfurl-url": u.url }, trusted("div", "sl-unfurl-body", u.html)),
      ),
      m.kind === "ephemeral" ? h("div", { class: "only-you" }, "👁 Only visible to you") : null,
      toggle,
      expanded ? h("div", { class: "sl-replies" }, ...replies.map((r) => message(r, open, true))) : null,
    ),
  );
}

/**
 * The form (modal) the app opened for the person, over the pane: its fields come as HTML from the
 * sandbox server (escaped there, render/form.ts); its errors are set as text on their fields.
 */
export function renderForm(container, form) {
  if (!form) {
    container.replaceChildren();
    container.hidden = true;
    return;
  }
  container.hidden = false;
  container.replaceChildren(
    h(
      "form",
      { class: "sl-modal", "data-view-id": form.id, "aria-label": form.title },
      h("div", { class: "sl-modal-title" }, form.title),
      trusted("div", "sl-modal-body", form.html),
      h(
        "div",
        { class: "sl-modal-buttons" },
        h("button", { type: "button", class: "sk-button", "data-form": "close" }, form.close),
        h("button", { type: "submit", class: "sk-button sk-primary" }, form.submit),
      ),
    ),
  );
}

/** Shows the app's errors (by block_id) on their fields, and clears the others. */
export function showFormErrors(container, errors) {
  for (const line of container.querySelectorAll("[data-error-for]")) {
    line.textContent = errors[line.dataset.errorFor] ?? "";
  }
}

/** What the person entered, by block_id, as the Slack stand-in takes it (a datetime as Unix seconds). */
export function formValues(form) {
  const values = {};
  for (const field of form.querySelectorAll("[data-block-id]")) {
    const id = field.dataset.blockId;
    const kind = field.dataset.kind;
    if (kind === "checkbox") {
      values[id] = [...field.querySelectorAll("input:checked")].map((i) => i.value);
      continue;
    }
    const input =
      kind === "radio"
        ? field.querySelector("input:checked")
        : field.querySelector("input, select, textarea");
    if (!input || input.value === "") continue;
    if (kind === "datetime") {
      const seconds = Math.floor(new Date(input.value).getTime() / 1000);
      if (Number.isSafeInteger(seconds)) values[id] = seconds;
    } else values[id] = input.value;
  }
  return values;
}
