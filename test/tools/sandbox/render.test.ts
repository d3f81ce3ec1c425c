import { describe, expect, it } from "vitest";
import { messageToHtml } from "../../../tools/sandbox/render/blocks.js";
import { formToHtml } from "../../../tools/sandbox/render/form.js";
import { markdownToHtml } from "../../../tools/sandbox/render/markdown.js";
import { mrkdwnToHtml } from "../../../tools/sandbox/render/mrkdwn.js";

/** The sandbox page's renderers: the formats Yardmaster writes, and nothing a person typed becomes markup. */
describe("GitHub Markdown to HTML", () => {
  it("renders what Yardmaster's summary comment uses", () => {
    const html = markdownToHtml(
      [
        "<!-- yardmaster:summary -->",
        "**Yardmaster** · latest command `@yardmaster queue` by **octocat** · [20:02 UTC](http://127.0.0.1:1/acme/widgets/pull/1#c)",
        "",
        "#### Merge queue of `acme/widgets (main)`",
        "| Batch | Status |",
        "|---|---|",
        "| Batch 21 | [\\#231](https://github.com/acme/widgets/pull/231) feat\\(cart\\)<br>two \\| three |",
        "",
        "- one &lt;b&gt;",
        "- two",
        "",
        "<sub>Requested by **alice**</sub>",
      ].join("\n"),
    );
    expect(html).not.toContain("yardmaster:summary");
    expect(html).toContain("<strong>Yardmaster</strong>");
    expect(html).toContain("<code>@yardmaster queue</code>");
    expect(html).toContain(
      '<a href="http://127.0.0.1:1/acme/widgets/pull/1#c" target="_blank" rel="noopener noreferrer">20:02 UTC</a>',
    );
    expect(html).toContain("<h5>Merge queue of <code>acme/widgets (main)</code></h5>");
    expect(html).toContain("<th>Batch</th><th>Status</th>");
    expect(html).toContain(">#231</a> feat(cart)<br>two | three</td>");
    expect(html).toContain("<ul><li>one &lt;b&gt;</li><li>two</li></ul>");
    expect(html).toContain("<sub>Requested by <strong>alice</strong></sub>");
  });

  it("keeps typed HTML and scripts as text, and links only to http(s)", () => {
    const html = markdownToHtml(
      '<img src=x onerror="alert(1)"> <script>x</script> [a](javascript:alert(1)) "q"',
    );
    expect(html).not.toMatch(/<img|<script|href="javascript/);
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    expect(markdownToHtml('[x](http://a/"onmouseover=1)')).toContain('href="http://a/&quot;onmouseover=1"');
  });

  it("closes inline tags left open, and drops closing tags that close nothing", () => {
    expect(markdownToHtml("a <sub>b")).toBe("<p>a <sub>b</sub></p>");
    expect(markdownToHtml("a </sub>b")).toBe("<p>a b</p>");
  });
});

describe("Slack mrkdwn to HTML", () => {
  const names = (id: string) => (id === "U1" ? "octocat" : undefined);

  it("renders links, mentions, bold, code, and entities as characters", () => {
    const html = mrkdwnToHtml(
      "⏸️ <@U1> paused *`acme/widgets`*: a &lt;b&gt; &amp; c\n<https://x.test/1|#1> done",
      names,
    );
    expect(html).toBe(
      '⏸️ <span class="mention">@octocat</span> paused <strong><code>acme/widgets</code></strong>: a &lt;b&gt; &amp; c<br><a href="https://x.test/1" target="_blank" rel="noopener noreferrer">#1</a> done',
    );
  });

  it("does not format around the zero-width spaces Yardmaster puts in escaped text", () => {
    expect(mrkdwnToHtml("a \u200b*\u200bb\u200b*\u200b c")).not.toContain("<strong>");
    expect(mrkdwnToHtml("snake_case_name")).toBe("snake_case_name");
  });

  it("shows a quoted `&gt;` as text and a real `>` as a quote", () => {
    expect(mrkdwnToHtml("&gt; not a quote")).toBe("&gt; not a quote");
    expect(mrkdwnToHtml("> quoted\nnext")).toBe("<blockquote>quoted</blockquote>next");
  });
});

describe("Block Kit to HTML", () => {
  it("renders header, section fields, context and buttons with their action and value", () => {
    const html = messageToHtml(
      {
        text: "fallback",
        blocks: [
          { type: "header", text: { type: "plain_text", text: "Status <b>" } },
          { type: "section", fields: [{ type: "mrkdwn", text: "*Position*\n9" }] },
          { type: "context", elements: [{ type: "mrkdwn", text: "as of now" }] },
          {
            type: "actions",
            elements: [
              {
                type: "button",
                action_id: "mq.unpause",
                value: '{"r":"acme/widgets"}',
                style: "primary",
                text: { type: "plain_text", text: "Unpause" },
              },
            ],
          },
        ],
      },
      () => undefined,
    );
    expect(html).toContain('<div class="sk-header">Status &lt;b&gt;</div>');
    expect(html).toContain('<div class="sk-field"><strong>Position</strong><br>9</div>');
    expect(html).toContain('<span class="sk-context-item">as of now</span>');
    expect(html).toContain(
      '<button class="sk-button sk-primary" type="button" data-action-id="mq.unpause" data-value="{&quot;r&quot;:&quot;acme/widgets&quot;}">Unpause</button>',
    );
    expect(html).not.toContain("fallback");
  });

  it("falls back to the text when there are no blocks", () => {
    expect(messageToHtml({ text: "*hi*" }, () => undefined)).toBe(
      '<div class="sk-section"><strong>hi</strong></div>',
    );
  });
});

describe("a modal's blocks to a form", () => {
  const plain = (text: string) => ({ type: "plain_text", text });
  const option = (text: string, value: string) => ({ text: plain(text), value });
  const view = {
    type: "modal",
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: "Pause *a* queue" } },
      {
        type: "input",
        block_id: "reason",
        label: plain("Reason <b>"),
        element: {
          type: "plain_text_input",
          action_id: "value",
          max_length: 255,
          initial_value: '"><script>',
        },
      },
      {
        type: "input",
        block_id: "repo",
        label: plain("Repository"),
        element: {
          type: "static_select",
          action_id: "value",
          options: [option("acme/widgets", "acme/widgets"), option("a<b>", 'x"y')],
          initial_option: option("acme/widgets", "acme/widgets"),
        },
      },
      {
        type: "input",
        block_id: "events",
        label: plain("Events"),
        element: {
          type: "checkboxes",
          action_id: "value",
          options: [option("Queue", "queue"), option("Checks", "checks")],
          initial_options: [option("Checks", "checks")],
        },
      },
      {
        type: "input",
        block_id: "until",
        optional: true,
        label: plain("Until"),
        element: { type: "datetimepicker", action_id: "value" },
      },
    ],
  };

  it("renders each input named by its block_id, with its initial values and an error line, all text escaped", () => {
    const html = formToHtml(view, () => undefined);
    expect(html).toContain("Pause <strong>a</strong> queue");
    expect(html).toContain('<div class="sk-input" data-block-id="reason" data-kind="text">');
    expect(html).toContain("Reason &lt;b&gt;");
    expect(html).toContain('value="&quot;&gt;&lt;script&gt;" maxlength="255"');
    expect(html).toContain('<option value="acme/widgets" selected>acme/widgets</option>');
    expect(html).toContain('<option value="x&quot;y">a&lt;b&gt;</option>');
    expect(html).toContain('<input type="checkbox" name="events" value="checks" checked> Checks');
    expect(html).toContain('<input type="checkbox" name="events" value="queue"> Queue');
    expect(html).toContain('<input type="datetime-local" id="form-until" name="until">');
    expect(html).toContain('<div class="sk-error" data-error-for="until" role="alert"></div>');
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("<b>");
  });
});
