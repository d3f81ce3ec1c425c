// The left pane: one pull request's conversation, GitHub style.
import { avatar, clockTime, h, trusted } from "./dom.js";

const WHERE = {
  open: "Not queued",
  queued: "In the merge queue",
  merged: "Merged",
  left: "Left the queue",
};

export function renderPullSelect(select, pulls, current) {
  const groups = [
    ["Not queued", (p) => p.where === "open"],
    ["In the merge queue", (p) => p.where === "queued"],
    ["Left the queue", (p) => p.where === "left"],
    ["Merged", (p) => p.where === "merged"],
  ];
  select.replaceChildren(
    ...groups
      .map(([label, test]) => {
        const options = pulls
          .filter(test)
          .map((p) =>
            h("option", { value: p.number, selected: p.number === current }, `#${p.number} ${p.title}`),
          );
        return options.length ? h("optgroup", { label }, ...options) : null;
      })
      .filter(Boolean),
  );
}

export function renderTitle(container, thread, pull) {
  if (!thread) {
    container.replaceChildren(h("p", { class: "muted" }, "No such pull request."));
    return;
  }
  const state = thread.state === "merged" || pull?.where === "merged" ? "merged" : thread.state;
  container.replaceChildren(
    h("h1", {}, thread.title, " ", h("span", { class: "muted" }, `#${thread.number}`)),
    h(
      "div",
      { class: "gh-meta" },
      h(
        "span",
        { class: `state ${state}` },
        state === "merged" ? "Merged" : state === "open" ? "Open" : "Closed",
      ),
      h(
        "span",
        {},
        h("strong", {}, thread.author),
        " wants to merge into ",
        h("code", {}, thread.base ?? "main"),
      ),
      pull ? h("span", { class: `where ${pull.where}` }, WHERE[pull.where] ?? pull.where) : null,
    ),
  );
}

export function renderTimeline(container, thread) {
  container.replaceChildren(...(thread?.comments ?? []).map(comment));
  if (thread && thread.comments.length === 0) {
    container.append(
      h("p", { class: "muted empty" }, "No comments yet. Address the app on the first line of a comment."),
    );
  }
}

function comment(c) {
  const head = h(
    "div",
    { class: "gh-box-head" },
    h("strong", {}, c.author),
    c.bot ? h("span", { class: "badge" }, "bot") : null,
    h("span", { class: "muted" }, ` commented at ${clockTime(new Date(c.createdAt))}`),
    c.edited ? h("span", { class: "muted edited" }, " · edited") : null,
  );
  const reactions = c.reactions.length
    ? h(
        "div",
        { class: "reactions" },
        ...c.reactions.map((r) =>
          h(
            "span",
            {
              class: "reaction",
              title: `${r.users.join(", ")} reacted with ${r.content}`,
              "data-content": r.content,
            },
            `${r.emoji} ${r.users.length}`,
          ),
        ),
      )
    : null;
  return h(
    "article",
    { class: `gh-comment${c.bot ? " bot" : ""}`, "data-comment-id": c.id },
    avatar(c.author, c.bot),
    h("div", { class: "gh-box" }, head, trusted("div", "gh-body markdown", c.html), reactions),
  );
}
