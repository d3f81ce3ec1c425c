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
      m.kind === "ephemeral" ? h("div", { class: "only-you" }, "👁 Only visible to you") : null,
      toggle,
      expanded ? h("div", { class: "sl-replies" }, ...replies.map((r) => message(r, open, true))) : null,
    ),
  );
}
