// The sandbox page: polls /api/state once a second and renders what changed; sends what the person
// types or clicks to the sandbox server, which hands it to the GitHub and Slack stand-ins.
import { clockTime, h, keepScroll, trusted } from "./dom.js";
import { renderPullSelect, renderTimeline, renderTitle } from "./github-pane.js";
import { formValues, renderForm, renderMessages, showFormErrors } from "./slack-pane.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const ui = {
  as: params.get("as") || localStorage.getItem("sandbox.as") || "octocat",
  pr: Number(params.get("pr") || localStorage.getItem("sandbox.pr") || 101),
  openThreads: new Set(),
  /** What the Slack pane shows: the channel, the person's direct messages, or their Home tab. */
  view: "channel",
  last: {},
  first: { gh: true, sl: true },
  state: null,
};

const COMMENT_HINTS = ["queue", "status", "pause release freeze", "unpause", "dequeue", "help"];
const SLASH_HINTS = [
  "/mq status",
  "/mq pause acme/widgets release freeze",
  "/mq pause",
  "/mq unpause acme/widgets",
  "/mq pr acme/widgets#101",
  "/mq subscriptions",
  "/mq help",
  "/mq login",
];

async function api(path, body) {
  const response = await fetch(path, {
    method: body ? "POST" : "GET",
    headers: body ? { "content-type": "application/json" } : {},
    body: body ? JSON.stringify({ as: ui.as, ...body }) : undefined,
  });
  const json = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(json.error || `${response.status} ${response.statusText}`);
  return json;
}

function toast(text) {
  const element = $("toast");
  element.textContent = text;
  element.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => {
    element.hidden = true;
  }, 5000);
}

/** Calls `render` only when `value` changed since the last call with this key. */
function changed(key, value, render) {
  const json = JSON.stringify(value);
  if (ui.last[key] === json) return;
  ui.last[key] = json;
  render();
}

function render(state) {
  ui.state = state;
  changed("hints", state.appSlug, () => renderHints(state.appSlug));
  changed("people", [state.people, ui.as], () => renderPeople(state.people));
  changed("queues", [state.queues, state.clock.slice(0, 19)], () => renderQueues(state.queues, state.clock));
  changed("gh-queue", state.githubQueue, () => renderGitHubQueue(state.githubQueue));
  changed("pulls", [state.pulls, ui.pr], () => renderPullSelect($("pull-select"), state.pulls, ui.pr));
  const pull = state.pulls.find((p) => p.number === ui.pr);
  changed("title", [state.thread?.title, state.thread?.state, pull?.where], () =>
    renderTitle($("pr-title"), state.thread, pull),
  );
  changed("thread", state.thread?.comments ?? [], () =>
    keepScroll($("gh-scroll"), ui.first.gh, () => renderTimeline($("timeline"), state.thread)),
  );
  ui.first.gh = false;
  changed("slack", [ui.view, state.channel.messages, state.direct, state.home, [...ui.openThreads]], () =>
    keepScroll($("sl-scroll"), ui.first.sl, () => renderSlack(state)),
  );
  ui.first.sl = false;
  changed("form", [state.form?.id, state.form?.html], () => renderForm($("sl-modal"), state.form));
  if (state.form) showFormErrors($("sl-modal"), state.form.errors);
}

const VIEW_TITLES = {
  channel: ["# merge-queue", "acme/widgets: queue, checks and pause events, and a weekly digest"],
  dm: ["Yardmaster", "direct messages: your pull requests entered, left or merged"],
  home: ["Yardmaster · Home", "the app's Home tab, as Slack shows it to you"],
};

function renderSlack(state) {
  const [name, about] = VIEW_TITLES[ui.view];
  $("channel-name").textContent = name;
  $("channel-about").textContent = about;
  for (const tab of $("sl-views").querySelectorAll("button[data-view]"))
    tab.setAttribute("aria-selected", String(tab.dataset.view === ui.view));
  $("slash-form").hidden = ui.view !== "channel";
  $("run-digest").hidden = ui.view !== "channel";
  if (ui.view === "channel") return renderMessages($("messages"), state.channel.messages, ui.openThreads);
  if (ui.view === "dm") {
    renderMessages($("messages"), state.direct.messages, ui.openThreads);
    if (state.direct.messages.length === 0)
      $("messages").replaceChildren(
        h(
          "p",
          { class: "muted empty" },
          "No direct message yet: queue one of your pull requests (octocat wrote #101 and #102).",
        ),
      );
    return;
  }
  // The Home tab's HTML comes from the sandbox server, made from Block Kit and escaped there (render/blocks.ts).
  $("messages").replaceChildren(
    state.home
      ? trusted("div", "sl-home", state.home.html)
      : h("p", { class: "muted empty" }, "Opening the Home tab…"),
  );
}

function renderPeople(people) {
  $("people").replaceChildren(
    ...people.map((p) =>
      h(
        "button",
        {
          type: "button",
          role: "radio",
          "aria-checked": p.login === ui.as,
          class: p.login === ui.as ? "on" : "",
          "data-login": p.login,
          title: `${p.login}: ${p.role} permission on GitHub, linked on Slack`,
        },
        h("strong", {}, p.login),
        ` · ${p.label}`,
      ),
    ),
  );
}

function renderQueues(queues, clock) {
  $("queues").replaceChildren(
    ...queues.map((q) =>
      h(
        "div",
        { class: `queue${q.paused ? " paused" : ""}`, "data-branch": q.branch },
        h("strong", {}, q.branch),
        q.paused ? h("span", { class: "pill pause" }, `⏸ paused: ${q.pauseReason ?? ""}`) : null,
        ...q.batches.map((b) =>
          h(
            "span",
            { class: "pill", title: `${b.name}: ${b.status}` },
            `${b.status} `,
            b.pulls.map((n) => `#${n}`).join(" "),
          ),
        ),
        h("span", { class: "pill waiting" }, `${q.waiting.length} waiting`),
      ),
    ),
    h("span", { class: "muted clock", title: "The merge queue's clock" }, `🕒 ${clockTime(new Date(clock))}`),
  );
}

const CHECK_MARK = { success: "✓", failure: "✗", timed_out: "⏱", cancelled: "⊘" };

/** acme/ships on GitHub's own merge queue: entries with their merge group's checks, and two controls. */
function renderGitHubQueue(queue) {
  if (!queue) {
    $("gh-queue").replaceChildren();
    return;
  }
  const empty = queue.entries.length === 0;
  const items = [
    h(
      "strong",
      { title: `GitHub's own merge queue of ${queue.repository}, branch ${queue.branch}` },
      `${queue.repository}`,
    ),
    empty ? h("span", { class: "pill waiting" }, "empty") : null,
    ...queue.entries.map((e) =>
      h(
        "span",
        {
          class: "pill",
          "data-number": e.number,
          title: `#${e.number} ${e.title}: ${e.state}; checks of its merge group: ${e.checks
            .map((c) => `${c.name} ${c.conclusion ?? c.status}`)
            .join(", ")}`,
        },
        `#${e.number} `,
        e.checks
          .map(
            (c) => `${c.name} ${CHECK_MARK[c.conclusion] ?? (c.status === "queued" ? "queued" : "running")}`,
          )
          .join(" "),
      ),
    ),
    h(
      "button",
      {
        type: "button",
        class: "ghq-act",
        "data-act": "fail-checks",
        disabled: empty,
        "aria-label": "Fail the checks of the head of acme/ships' queue",
        title: "CI fails the checks of the head's merge group: GitHub removes it (CI_FAILURE)",
      },
      "✗ Fail the head's checks",
    ),
    h(
      "button",
      {
        type: "button",
        class: "ghq-act",
        "data-act": "merge",
        disabled: empty,
        "aria-label": "Merge the head of acme/ships' queue",
        title: "The head's checks pass and GitHub merges it",
      },
      "✓ Merge the head",
    ),
    h(
      "button",
      {
        type: "button",
        class: "ghq-act",
        "data-act": "bypass",
        "aria-label": "Merge acme/ships' first open pull request without the queue",
        title:
          "acme/ships' admin merges its first open pull request past the queue (an admin's bypass): the channel hears it about 30 s later",
      },
      "⚠ Merge without the queue",
    ),
  ];
  $("gh-queue").replaceChildren(...items.filter(Boolean));
}

async function refresh() {
  try {
    render(await api(`/api/state?as=${encodeURIComponent(ui.as)}&pr=${ui.pr}`));
  } catch (error) {
    toast(`Could not reach the sandbox: ${error.message}`);
  }
}

function poll() {
  refresh().finally(() => setTimeout(poll, 1000));
}

/** Runs an action, shows its error if any, and refreshes at once. */
async function act(path, body) {
  try {
    await api(path, body);
  } catch (error) {
    toast(error.message);
  }
  await refresh();
}

function hints(container, texts, onPick) {
  container.replaceChildren(
    h("span", { class: "muted" }, "Try"),
    ...texts.map((text) => h("button", { type: "button", class: "hint", onclick: () => onPick(text) }, text)),
  );
}

function renderHints(appSlug) {
  hints(
    $("comment-hints"),
    COMMENT_HINTS.map((c) => `@${appSlug} ${c}`),
    (text) => {
      $("comment-body").value = text;
      $("comment-body").focus();
    },
  );
  hints($("slash-hints"), SLASH_HINTS, (text) => {
    $("slash-text").value = text;
    $("slash-text").focus();
  });
}

/** A link to a pull request of the repository shows its thread here instead of leaving the page. */
function followPullLinks(event) {
  const link = event.target.closest("a[href]");
  const match = link && /\/acme\/widgets\/pull\/(\d+)/.exec(link.getAttribute("href"));
  if (!match || !ui.state?.pulls.some((p) => p.number === Number(match[1]))) return;
  event.preventDefault();
  selectPull(Number(match[1]));
}

function selectPull(number) {
  ui.pr = number;
  localStorage.setItem("sandbox.pr", String(number));
  ui.first.gh = true;
  refresh();
}

function setUp() {
  $("people").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-login]");
    if (!button) return;
    ui.as = button.dataset.login;
    localStorage.setItem("sandbox.as", ui.as);
    ui.first.sl = true;
    if (ui.view === "home") act("/api/home", {});
    refresh();
  });
  $("pull-select").addEventListener("change", (event) => selectPull(Number(event.target.value)));
  $("comment-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const box = $("comment-body");
    const body = box.value;
    if (!body.trim()) return;
    box.value = "";
    ui.first.gh = true;
    act("/api/comment", { number: ui.pr, body });
  });
  $("comment-body").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) $("comment-form").requestSubmit();
  });
  $("gh-queue").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-act]");
    if (!button) return;
    button.disabled = true;
    ui.first.sl = true;
    act(`/api/github-queue/${button.dataset.act}`, {});
  });
  $("run-digest").addEventListener("click", () => {
    ui.first.sl = true;
    act("/api/digest", {});
  });
  $("slash-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = $("slash-text");
    const text = input.value;
    if (!text.trim()) return;
    input.value = "";
    ui.first.sl = true;
    act("/api/slash", { text });
  });
  $("sl-views").addEventListener("click", (event) => {
    const tab = event.target.closest("button[data-view]");
    if (!tab) return;
    ui.view = tab.dataset.view;
    ui.first.sl = true;
    // Opening the Home tab is what makes Slack ask the app for it.
    if (ui.view === "home") act("/api/home", {});
    render(ui.state);
  });
  $("messages").addEventListener("click", (event) => {
    const toggle = event.target.closest("button[data-thread]");
    if (toggle) {
      const ts = toggle.dataset.thread;
      if (ui.openThreads.has(ts)) ui.openThreads.delete(ts);
      else ui.openThreads.add(ts);
      render(ui.state);
      return;
    }
    const button = event.target.closest("button.sk-button");
    if (button) {
      if (button.dataset.url) window.open(button.dataset.url, "_blank", "noopener");
      button.disabled = true;
      const messageTs = button.closest("[data-ts]")?.dataset.ts;
      const unfurl = button.closest("[data-unfurl-url]");
      act("/api/click", {
        actionId: button.dataset.actionId,
        value: button.dataset.value,
        messageTs,
        place: unfurl ? "unfurl" : ui.view,
        ...(unfurl ? { url: unfurl.dataset.unfurlUrl } : {}),
      });
      return;
    }
    followPullLinks(event);
  });
  $("timeline").addEventListener("click", followPullLinks);
  $("sl-modal").addEventListener("submit", (event) => {
    event.preventDefault();
    const form = event.target.closest("form[data-view-id]");
    if (form) act("/api/form/submit", { viewId: form.dataset.viewId, values: formValues(form) });
  });
  $("sl-modal").addEventListener("click", (event) => {
    const form = event.target.closest("form[data-view-id]");
    if (form && event.target.closest("button[data-form=close]"))
      act("/api/form/close", { viewId: form.dataset.viewId });
  });
  poll();
}

setUp();
