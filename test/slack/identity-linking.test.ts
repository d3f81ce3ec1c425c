import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { loginUrl, oauthCallbackHandler } from "../../src/slack/identity-linking.js";
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

async function serve(github: { webUrl: string; apiUrl: string }): Promise<void> {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  const handler = oauthCallbackHandler({
    ...options,
    ...github,
    store,
    logger: createLogger({ level: "silent" }),
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
    const html = await page.text();
    expect(html).toContain("<strong>ali&lt;ce&gt;</strong>");
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
