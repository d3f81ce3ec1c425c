import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GitHubStandIn } from "../../../../tools/stand-ins/github/index.js";
import { call, installationOctokit, startSeededStandIn, tokenOctokit } from "./helpers.js";

const oauth = { clientId: "Iv1.standin", clientSecret: "s3cret" };
const redirectUri = "http://127.0.0.1:3000/github/oauth/callback";

describe("GitHub stand-in: OAuth user authorization", () => {
  let standIn: GitHubStandIn;

  beforeAll(async () => {
    standIn = await startSeededStandIn({ oauth });
  });
  afterAll(() => standIn.close());

  const authorizeUrl = (extra: Record<string, string> = {}): string =>
    `${standIn.url}/login/oauth/authorize?${new URLSearchParams({
      client_id: oauth.clientId,
      redirect_uri: redirectUri,
      state: "slack-U123.abc",
      ...extra,
    })}`;

  async function authorizeAs(login: string): Promise<string> {
    const response = await fetch(authorizeUrl({ login }), { redirect: "manual" });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location") ?? "");
    expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
    expect(location.searchParams.get("state")).toBe("slack-U123.abc");
    const code = location.searchParams.get("code");
    expect(code).toMatch(/^[0-9a-f]{20}$/);
    return code ?? "";
  }

  const exchange = (body: Record<string, string>, accept = "application/json") =>
    fetch(`${standIn.url}/login/oauth/access_token`, {
      method: "POST",
      headers: { accept, "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  it("shows a sign-in page listing the known users (not bots)", async () => {
    const response = await fetch(authorizeUrl());
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/html");
    const html = await response.text();
    for (const login of ["alice", "bob", "carol"]) expect(html).toContain(`Sign in as ${login}`);
    expect(html).not.toContain("[bot]");
    expect(html).toContain("login=alice");
  });

  it("goes code -> token -> /user, and refuses the code a second time", async () => {
    const code = await authorizeAs("alice");
    const response = await exchange({
      client_id: oauth.clientId,
      client_secret: oauth.clientSecret,
      code,
      redirect_uri: redirectUri,
    });
    expect(response.status).toBe(200);
    const token = (await response.json()) as Record<string, string>;
    expect(token).toMatchObject({ token_type: "bearer", scope: "" });
    expect(token.access_token).toMatch(/^ghu_/);

    const user = await tokenOctokit(standIn, token.access_token ?? "").rest.users.getAuthenticated();
    expect(user.data).toMatchObject({ login: "alice", id: 501, type: "User" });
    const bearer = await call(`${standIn.apiUrl}/user`, {
      headers: { authorization: `Bearer ${token.access_token}` },
    });
    expect(bearer.json).toMatchObject({ login: "alice" });

    const reused = await exchange({ client_id: oauth.clientId, client_secret: oauth.clientSecret, code });
    expect(reused.status).toBe(200);
    expect(await reused.json()).toMatchObject({
      error: "bad_verification_code",
      error_description: expect.any(String),
    });
  });

  it("takes a form body and answers form-encoded without Accept: application/json", async () => {
    const code = await authorizeAs("bob");
    const response = await fetch(`${standIn.url}/login/oauth/access_token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id: oauth.clientId, client_secret: oauth.clientSecret, code }),
    });
    const fields = new URLSearchParams(await response.text());
    expect(fields.get("token_type")).toBe("bearer");
    expect(fields.get("access_token")).toMatch(/^ghu_/);
  });

  it("refuses a wrong client secret, a wrong redirect_uri and an unknown code", async () => {
    const code = await authorizeAs("carol");
    const wrongSecret = await exchange({ client_id: oauth.clientId, client_secret: "nope", code });
    expect(await wrongSecret.json()).toMatchObject({ error: "incorrect_client_credentials" });
    const code2 = await authorizeAs("carol");
    const wrongRedirect = await exchange({
      client_id: oauth.clientId,
      client_secret: oauth.clientSecret,
      code: code2,
      redirect_uri: "http://127.0.0.1:9/elsewhere",
    });
    expect(await wrongRedirect.json()).toMatchObject({ error: "redirect_uri_mismatch" });
    const unknown = await exchange({
      client_id: oauth.clientId,
      client_secret: oauth.clientSecret,
      code: "f00",
    });
    expect(await unknown.json()).toMatchObject({ error: "bad_verification_code" });
  });

  it("refuses an unknown client_id or login on the authorize page", async () => {
    expect((await fetch(authorizeUrl({ client_id: "Iv1.other" }))).status).toBe(404);
    expect((await fetch(authorizeUrl({ login: "ghost" }), { redirect: "manual" })).status).toBe(404);
  });

  it("answers /user 401 for a bad token and 403 for an installation token", async () => {
    const bad = await call(`${standIn.apiUrl}/user`, { headers: { authorization: "token ghu_nope" } });
    expect(bad).toMatchObject({ status: 401, json: { message: "Bad credentials" } });
    const installation = await installationOctokit(standIn);
    await expect(installation.rest.users.getAuthenticated()).rejects.toMatchObject({ status: 403 });
  });
});
