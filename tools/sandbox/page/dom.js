// Small DOM helpers. Text always goes in as text nodes; only HTML rendered by the sandbox server
// (escaped there first) goes in through `trusted`.

/** An element with attributes and children (strings become text nodes). */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name.startsWith("aria-")) element.setAttribute(name, String(value));
    else if (value === false || value === null || value === undefined) continue;
    else if (name === "class") element.className = value;
    else if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** A container for HTML that the sandbox server rendered from Markdown, mrkdwn or Block Kit. */
export function trusted(tag, className, html) {
  const element = document.createElement(tag);
  element.className = className;
  element.innerHTML = html;
  return element;
}

/** A round (people) or square (apps) avatar with an initial, coloured by name. */
export function avatar(name, square) {
  let hash = 0;
  for (const ch of name) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  const hue = hash % 360;
  return h(
    "div",
    {
      class: `avatar${square ? " square" : ""}`,
      style: `background: hsl(${hue} 55% 45%)`,
      "aria-hidden": "true",
    },
    name
      .replace(/[^a-z0-9]/gi, "")
      .charAt(0)
      .toUpperCase() || "?",
  );
}

export function clockTime(date) {
  return date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

export function slackTime(ts) {
  return clockTime(new Date(Number(ts) * 1000));
}

/** Keeps a scroll container at the bottom across a re-render, if it was there (or on the first one). */
export function keepScroll(container, first, render) {
  const atBottom = container.scrollHeight - container.scrollTop - container.clientHeight < 60;
  render();
  if (first || atBottom) container.scrollTop = container.scrollHeight;
}
