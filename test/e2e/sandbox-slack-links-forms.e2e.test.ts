import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UNFURL_ACTION_IDS } from "../../src/slack/unfurls/values.js";
import { SANDBOX_REPOSITORY } from "../../tools/sandbox/demo-people.js";
import { type Sandbox, startSandbox } from "../../tools/sandbox/start-sandbox.js";

/** The sandbox's Slack pane: a pasted pull-request link unfurls with its buttons; `/mq pause` alone opens its form. */
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, pollIntervalSeconds: 60 });
});
afterAll(() => sandbox?.close());

interface Item {
  ts: string;
  text: string;
  html: string;
  unfurls?: { url: string; html: string }[];
}
interface Form {
  id: string;
  title: string;
  submit: string;
  html: string;
  errors: Record<string, string>;
}
interface State {
  channel: { messages: Item[] };
  form: Form | null;
}

const post = async (path: string, body: Record<string, unknown>) => {
  const response = await fetch(new URL(path, sandbox.url), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
};
const state = async (as: string) =>
  (await (await fetch(new URL(`/api/state?as=${as}`, sandbox.url))).json()) as State;
/** What `pick` finds in the page's state, polled as the page does until it finds something. */
async function stateWhen<T>(as: string, pick: (s: State) => T | null | undefined | false): Promise<T> {
  for (let tries = 0; tries < 200; tries++) {
    const found = pick(await state(as));
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("the page never showed it");
}

describe("the sandbox's Slack pane", () => {
  it("unfurls a pasted pull-request link with its queue state; Queue is refused for a reader and works for a writer", async () => {
    const link = `http://${sandbox.world.github.host}/${SANDBOX_REPOSITORY}/pull/102`;
    expect(sandbox.world.sim.state.pullDetails(SANDBOX_REPOSITORY, 102)).toBeNull();
    const sent = await post("/api/slash", { as: "octocat", text: `can someone look at ${link}<b>?` });
    expect(sent.status).toBe(200);
    const ts = sent.json.ts as string;
    const unfurl = await stateWhen(
      "reader",
      (s) => s.channel.messages.find((m) => m.ts === ts && m.unfurls?.length)?.unfurls?.[0],
    );
    expect(unfurl.url).toBe(link);
    expect(unfurl.html).toContain("Not queued.");
    expect(unfurl.html).toContain(`data-action-id="${UNFURL_ACTION_IDS.queue}"`);
    expect(unfurl.html).toContain(`data-action-id="${UNFURL_ACTION_IDS.refresh}"`);
    const message = (await state("reader")).channel.messages.find((m) => m.ts === ts);
    expect(message?.html).toContain("&lt;b&gt;");
    expect(message?.html).not.toContain("<b>");

    const click = (as: string) =>
      post("/api/click", {
        as,
        actionId: UNFURL_ACTION_IDS.queue,
        messageTs: ts,
        url: link,
        place: "unfurl",
      });
    expect((await click("reader")).status).toBe(200);
    await stateWhen("reader", (s) =>
      s.channel.messages.some((m) => m.text.includes("queue needs write permission")),
    );
    expect(sandbox.world.sim.state.pullDetails(SANDBOX_REPOSITORY, 102)).toBeNull();

    expect((await click("octocat")).status).toBe(200);
    const queued = await stateWhen(
      "octocat",
      (s) =>
        s.channel.messages.find((m) => m.ts === ts)?.unfurls?.find((u) => u.html.includes("Dequeue"))?.html,
    );
    expect(queued).toContain(`data-action-id="${UNFURL_ACTION_IDS.dequeue}"`);
    expect(sandbox.world.sim.state.pullDetails(SANDBOX_REPOSITORY, 102)).not.toBeNull();
  });

  it("opens the pause form for /mq pause with a repository alone, shows a blank reason on its field, and pauses on submit", async () => {
    expect(sandbox.world.sim.state.pauseData(SANDBOX_REPOSITORY).paused).toBe(false);
    expect(
      (await post("/api/slash", { as: "octocat", text: `/mq pause ${SANDBOX_REPOSITORY}` })).status,
    ).toBe(200);
    const form = await stateWhen("octocat", (s) => s.form);
    expect(form.submit).toBeTruthy();
    expect(form.html).toContain('data-block-id="reason"');
    expect(form.html).toContain('type="datetime-local"');
    expect((await state("reader")).form).toBeNull();

    const blank = await post("/api/form/submit", {
      as: "octocat",
      viewId: form.id,
      values: { reason: "  " },
    });
    expect(blank.json).toMatchObject({
      status: 200,
      closed: false,
      errors: { reason: "Write why the queue is paused." },
    });
    expect((await state("octocat")).form?.errors).toEqual({ reason: "Write why the queue is paused." });
    expect(sandbox.world.sim.state.pauseData(SANDBOX_REPOSITORY).paused).toBe(false);

    const bad = await post("/api/form/submit", {
      as: "octocat",
      viewId: form.id,
      values: { duration: "forever" },
    });
    expect(bad.status).toBe(400);

    const done = await post("/api/form/submit", {
      as: "octocat",
      viewId: form.id,
      values: { reason: "release <freeze>", duration: "1h" },
    });
    expect(done.json).toMatchObject({ status: 200, closed: true });
    const said = await stateWhen(
      "octocat",
      (s) => s.channel.messages.find((m) => m.text.includes("paused the merge queue of acme/widgets"))?.html,
    );
    expect(said).toContain("release &lt;freeze&gt;");
    expect(sandbox.world.sim.state.pauseData(SANDBOX_REPOSITORY)).toMatchObject({
      paused: true,
      reason: "release <freeze>",
    });
    expect((await state("octocat")).form).toBeNull();
  });

  it("cancels a form: it closes and nothing runs", async () => {
    await post("/api/slash", { as: "octocat", text: "/mq subscribe" });
    const form = await stateWhen("octocat", (s) => s.form);
    expect(form.html).toContain('type="checkbox"');
    expect((await post("/api/form/close", { as: "octocat", viewId: form.id })).status).toBe(200);
    expect((await state("octocat")).form).toBeNull();
    expect((await post("/api/form/close", { as: "octocat", viewId: form.id })).status).toBe(404);
  });
});
