import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loginUrl, oauthCallbackHandler } from "../../src/identity/linking.js";
import { createLogger } from "../../src/logger.js";
import { type SlackNamesLookup, slackNamesFromWebApi } from "../../src/slack/names.js";
import { slackResponseReply } from "../../src/slack/response-url.js";
import { openStore, type Store } from "../../src/store/index.js";

const options = {
  clientId: "Iv1.abc",
  clientSecret: "shh",
  webUrl: "https://github.com",
  apiUrl: "https://api.github.com",
  publicUrl: "https://ym.example.com",
};
let store: Store;
let server: Server | undefined;
let base: string;
const now = new Date("2026-01-01T10:00:00Z");

async function serve(
  github: { webUrl: string; apiUrl: string },
  slackNames?: SlackNamesLookup,
): Promise<void> {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  const handler = oauthCallbackHandler({
    ...options,
    ...github,
    ...(slackNames ? { slackNames } : {}),
    store,
    logger: createLogger({ level: "silent" }),
    reply: slackResponseReply((url) => url.startsWith("https://hooks.slack.test/")),
    now: () => now,
  });
  const listening = createServer((req, res) => {
    void Promise.resolve(handler(req, res)).then((handled) => {
      if (!handled) res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => listening.listen(0, "127.0.0.1", resolve));
  server = listening;
  base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
}

beforeEach(async () => {
  store = await openStore({ kind: "sqlite", path: ":memory:" });
  await serve(options);
  await store.createOAuthState({
    state: "s1",
    teamId: "T1",
    slackUserId: "U1",
    channelId: "C1",
    responseUrl: null,
    expiresAt: new Date(now.getTime() + 600_000),
  });
});
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
  await store.close();
});

/** The confirmation form of a page, as a browser reads it: where it posts, and its hidden fields. */
function formOf(html: string): { action: string; fields: Record<string, string> } {
  const action = /<form method="post" action="([^"]+)">/.exec(html)?.[1];
  if (!action) throw new Error(`no confirmation form in ${html}`);
  const fields = Object.fromEntries(
    [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], m[2]]),
  );
  return { action, fields };
}

/** Presses a button of the page's confirmation form, as a browser posts it. */
function press(html: string, decision: "link" | "cancel", fields: Record<string, string> = {}) {
  const form = formOf(html);
  return fetch(`${base}${form.action}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ ...form.fields, ...fields, decision }).toString(),
  });
}

/** GitHub's answers to a sign-in as `login`. */
function githubSignsIn(login: string) {
  nock("https://github.com")
    .post("/login/oauth/access_token")
    .reply(200, { access_token: "ghu_x", token_type: "bearer", scope: "" });
  nock("https://api.github.com").get("/user").reply(200, { login, id: 7 });
}

describe("the page after a link names both sides", () => {
  const slackNames = () =>
    slackNamesFromWebApi({
      token: "xoxb-test",
      apiUrl: "https://slack.test/api/",
      logger: createLogger({ level: "silent" }),
    });

  it("by the names Slack gives the user and the workspace, escaped", async () => {
    await serve(options, slackNames());
    githubSignsIn("alice");
    nock("https://slack.test")
      .post("/api/users.info", (body) => body.user === "U1")
      .reply(200, { ok: true, user: { id: "U1", name: "alice", profile: { display_name: "<i>alice</i>" } } })
      .post("/api/team.info", (body) => body.team === "T1")
      .reply(200, { ok: true, team: { id: "T1", name: "Acme & <Co>" } });
    const page = await fetch(`${base}/github/oauth/callback?code=c1&state=s1`);
    expect(page.status).toBe(200);
    const asked = await page.text();
    // Before anything is linked, the page names the Slack user and workspace, escaped.
    expect(asked).toContain(
      "Confirm to link Slack user <strong>@&lt;i&gt;alice&lt;/i&gt;</strong> in workspace <strong>Acme &amp; &lt;Co&gt;</strong> to this GitHub account",
    );
    expect(asked).toContain("<strong>Is @&lt;i&gt;alice&lt;/i&gt; your own Slack account?</strong>");
    expect(asked).not.toContain("<i>alice</i>");
    expect(await store.getLink("T1", "U1")).toBeNull();
    nock("https://slack.test")
      .post("/api/users.info")
      .reply(200, { ok: true, user: { id: "U1", name: "alice", profile: { display_name: "<i>alice</i>" } } })
      .post("/api/team.info")
      .reply(200, { ok: true, team: { id: "T1", name: "Acme & <Co>" } });
    const html = await (await press(asked, "link")).text();
    expect(html).toContain(
      "Slack user <strong>@&lt;i&gt;alice&lt;/i&gt;</strong> in workspace <strong>Acme &amp; &lt;Co&gt;</strong> is now linked to GitHub account <strong>alice</strong>",
    );
  });

  it("by the user name when there is no display name, and by ids when Slack does not answer", async () => {
    await serve(options, slackNames());
    githubSignsIn("alice");
    nock("https://slack.test")
      .post("/api/users.info")
      .reply(200, { ok: true, user: { id: "U1", name: "ally", profile: { display_name: "" } } })
      .post("/api/team.info")
      .reply(200, { ok: false, error: "missing_scope" });
    const page = await fetch(`${base}/github/oauth/callback?code=c1&state=s1`);
    const asked = await page.text();
    expect(asked).toContain("Slack user <strong>@ally</strong> in workspace <strong>T1</strong>");
    expect((await press(asked, "link")).status).toBe(200);
    expect(await store.getLink("T1", "U1")).toMatchObject({ githubLogin: "alice" });
  });

  it("by ids when Slack is off", async () => {
    githubSignsIn("alice");
    const page = await fetch(`${base}/github/oauth/callback?code=c1&state=s1`);
    const linked = await press(await page.text(), "link");
    expect(await linked.text()).toContain(
      "Slack user <strong>U1</strong> in workspace <strong>T1</strong> is now linked to GitHub account <strong>alice</strong>",
    );
  });
});

describe("identity linking", () => {
  it("builds GitHub's authorize URL with the callback and state", () => {
    const url = new URL(loginUrl(options, "s1"));
    expect(url.origin + url.pathname).toBe("https://github.com/login/oauth/authorize");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: "Iv1.abc",
      redirect_uri: "https://ym.example.com/github/oauth/callback",
      state: "s1",
    });
  });

  it("links the Slack user to the GitHub login, escaping it in the page", async () => {
    nock("https://github.com")
      .post("/login/oauth/access_token", (body) => body.code === "c1" && body.client_secret === "shh")
      .reply(200, { access_token: "ghu_x", token_type: "bearer", scope: "" });
    nock("https://api.github.com")
      .get("/user")
      .matchHeader("authorization", "Bearer ghu_x")
      .reply(200, { login: "ali<ce>", id: 7 });
    const page = await fetch(`${base}/github/oauth/callback?code=c1&state=s1`);
    expect(page.status).toBe(200);
    const asked = await page.text();
    expect(asked).toContain("You signed in on GitHub as <strong>ali&lt;ce&gt;</strong>");
    expect(await store.getLink("T1", "U1")).toBeNull();
    const linked = await press(asked, "link");
    expect(linked.status).toBe(200);
    expect(await linked.text()).toContain("<strong>ali&lt;ce&gt;</strong>");
    expect(await store.getLink("T1", "U1")).toMatchObject({ githubLogin: "ali<ce>", githubId: 7 });
  });

  it("refuses an unknown, used or expired state without calling GitHub", async () => {
    for (const query of ["code=c&state=nope", "code=c", "error=access_denied&state=s1"]) {
      const page = await fetch(`${base}/github/oauth/callback?${query}`);
      expect(page.status, query).toBe(400);
    }
    await store.createOAuthState({
      state: "old",
      teamId: "T1",
      slackUserId: "U1",
      channelId: null,
      responseUrl: null,
      expiresAt: new Date(now.getTime() - 1),
    });
    const expired = await fetch(`${base}/github/oauth/callback?code=c&state=old`);
    expect(await expired.text()).toContain("already used or has expired");
    expect(await store.getLink("T1", "U1")).toBeNull();
  });

  it("exchanges the code with a GitHub Enterprise Server host", async () => {
    await serve({ webUrl: "https://ghe.example.com", apiUrl: "https://ghe.example.com/api/v3" });
    nock("https://ghe.example.com")
      .post("/login/oauth/access_token", (body) => body.code === "c1")
      .reply(200, { access_token: "ghu_y", token_type: "bearer", scope: "" })
      .get("/api/v3/user")
      .matchHeader("authorization", "Bearer ghu_y")
      .reply(200, { login: "bob", id: 8 });
    const page = await fetch(`${base}/github/oauth/callback?code=c1&state=s1`);
    expect(page.status).toBe(200);
    expect((await press(await page.text(), "link")).status).toBe(200);
    expect(await store.getLink("T1", "U1")).toMatchObject({ githubLogin: "bob", githubId: 8 });
  });

  it("says so when GitHub does not say who signed in", async () => {
    nock("https://github.com")
      .post("/login/oauth/access_token")
      .reply(200, { access_token: "ghu_x", token_type: "bearer", scope: "" });
    nock("https://api.github.com").get("/user").reply(401, { message: "Bad credentials" });
    const page = await fetch(`${base}/github/oauth/callback?code=c1&state=s1`);
    expect(page.status).toBe(502);
    expect(await page.text()).toContain("GitHub did not say who signed in (401)");
    expect(await store.getLink("T1", "U1")).toBeNull();
  });

  it("says so when GitHub refuses the code, and links nobody", async () => {
    nock("https://github.com").post("/login/oauth/access_token").reply(200, {
      error: "bad_verification_code",
      error_description: "The code passed is incorrect or expired.",
    });
    const page = await fetch(`${base}/github/oauth/callback?code=bad&state=s1`);
    expect(page.status).toBe(502);
    expect(await page.text()).toContain("GitHub refused the code (bad_verification_code)");
    expect(await store.getLink("T1", "U1")).toBeNull();
  });
});

describe("the confirmation after GitHub's sign-in", () => {
  it("links nobody until confirmed, and its form's state works once", async () => {
    githubSignsIn("mallory");
    const asked = await (await fetch(`${base}/github/oauth/callback?code=c1&state=s1`)).text();
    expect(await store.getLink("T1", "U1")).toBeNull();
    // The form holds a new state, not the sign-in link's (which its sender knows).
    const { fields } = formOf(asked);
    expect(fields.state).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(fields.state).not.toBe("s1");
    // The sign-in link's own state does not confirm anything.
    const withFirst = await press(asked, "link", { state: "s1" });
    expect(withFirst.status).toBe(400);
    expect(await store.getLink("T1", "U1")).toBeNull();

    expect((await press(asked, "link")).status).toBe(200);
    expect(await store.getLink("T1", "U1")).toMatchObject({ githubLogin: "mallory" });
    const again = await press(asked, "link");
    expect(again.status).toBe(400);
    expect(await again.text()).toContain("already used or has expired");
  });

  it("links nothing when the person declines, and the form is then spent", async () => {
    githubSignsIn("bob");
    const asked = await (await fetch(`${base}/github/oauth/callback?code=c1&state=s1`)).text();
    const declined = await press(asked, "cancel");
    expect(declined.status).toBe(200);
    expect(await declined.text()).toContain("Nothing was linked");
    expect((await press(asked, "link")).status).toBe(400);
    expect(await store.getLink("T1", "U1")).toBeNull();
  });

  it("refuses a confirmation after its 10 minutes, a form without its fields, and a confirmation's state on the sign-in path", async () => {
    await store.createOAuthState({
      state: "late",
      teamId: "T1",
      slackUserId: "U1",
      channelId: null,
      responseUrl: null,
      expiresAt: new Date(now.getTime() - 1),
      signedIn: { githubLogin: "eve", githubId: 9 },
    });
    const late = await fetch(`${base}/github/oauth/callback`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "state=late&decision=link",
    });
    expect(late.status).toBe(400);
    const bare = await fetch(`${base}/github/oauth/callback`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ state: "s1", decision: "link" }),
    });
    expect(bare.status).toBe(400);
    await store.createOAuthState({
      state: "pending",
      teamId: "T1",
      slackUserId: "U1",
      channelId: null,
      responseUrl: null,
      expiresAt: new Date(now.getTime() + 60_000),
      signedIn: { githubLogin: "eve", githubId: 9 },
    });
    // Used as a sign-in link's state, GitHub is not even asked.
    expect((await fetch(`${base}/github/oauth/callback?code=c&state=pending`)).status).toBe(400);
    expect(await store.getLink("T1", "U1")).toBeNull();
  });

  it("serves its pages so that no other site can frame them or post their form", async () => {
    githubSignsIn("alice");
    const page = await fetch(`${base}/github/oauth/callback?code=c1&state=s1`);
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("content-security-policy")).toContain("form-action 'self'");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
  });

  it("tells the Slack user on their /mq login's response_url only when it is Slack's", async () => {
    for (const [state, responseUrl] of [
      ["to-slack", "https://hooks.slack.test/commands/1"],
      ["elsewhere", "https://evil.example/collect"],
    ] as const) {
      await store.createOAuthState({
        state,
        teamId: "T1",
        slackUserId: "U1",
        channelId: "C1",
        responseUrl,
        expiresAt: new Date(now.getTime() + 60_000),
      });
    }
    let body: unknown;
    const told = nock("https://hooks.slack.test")
      .post("/commands/1", (b) => {
        body = b;
        return true;
      })
      .reply(200, "ok");
    const evil = nock("https://evil.example").post("/collect").reply(200, "ok");
    for (const state of ["to-slack", "elsewhere"]) {
      githubSignsIn("alice");
      const asked = await (await fetch(`${base}/github/oauth/callback?code=c1&state=${state}`)).text();
      expect((await press(asked, "link")).status).toBe(200);
    }
    expect(told.isDone()).toBe(true);
    expect(body).toEqual({
      response_type: "ephemeral",
      replace_original: false,
      text: "You are linked to GitHub as alice. Yardmaster will now send you a direct message when one of your pull requests enters a merge queue, merges or leaves it (`/mq notify` shows and changes this; `/mq notify off` stops it).",
    });
    expect(evil.isDone()).toBe(false);
    nock.cleanAll();
  });
});
