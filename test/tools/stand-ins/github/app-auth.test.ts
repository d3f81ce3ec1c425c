import { createPrivateKey, generateKeyPairSync, sign } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GitHubStandIn, startGitHubStandIn } from "../../../../tools/stand-ins/github/index.js";
import {
  appOctokit,
  call,
  installationOctokit,
  startSeededStandIn,
  TestOctokit,
  tokenOctokit,
} from "./helpers.js";

function jwt(privateKey: string, payload: Record<string, unknown>): string {
  const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString("base64url");
  const data = `${part({ alg: "RS256", typ: "JWT" })}.${part(payload)}`;
  return `${data}.${sign("RSA-SHA256", Buffer.from(data), privateKey).toString("base64url")}`;
}

const now = (): number => Math.floor(Date.now() / 1000);

describe("GitHub stand-in: app authentication", () => {
  let standIn: GitHubStandIn;

  beforeAll(async () => {
    standIn = await startSeededStandIn();
    standIn.state.addRepository("globex/gadgets");
  });
  afterAll(() => standIn.close());

  it("hands out a PKCS#1 private key and GHE-style URLs", () => {
    expect(standIn.privateKey).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
    expect(standIn.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(standIn.host).toBe(standIn.url.slice("http://".length));
    expect(standIn.apiUrl).toBe(`${standIn.url}/api/v3`);
  });

  it("generates a fresh key when none is given, and takes a given one (PKCS#8 too)", async () => {
    const fresh = await startGitHubStandIn({ webhookSecret: "x" });
    try {
      expect(fresh.privateKey).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
      expect(fresh.privateKey).not.toBe(standIn.privateKey);
      const { data } = await appOctokit(fresh).rest.apps.getAuthenticated();
      expect(data).toMatchObject({ id: 1, slug: "yardmaster" });
    } finally {
      await fresh.close();
    }
    const pkcs8 = createPrivateKey(standIn.privateKey).export({ type: "pkcs8", format: "pem" }).toString();
    const given = await startGitHubStandIn({ webhookSecret: "x", privateKey: pkcs8 });
    try {
      expect(given.privateKey).toBe(standIn.privateKey);
    } finally {
      await given.close();
    }
  });

  it("accepts the app JWT made by Probot's Octokit: GET /app", async () => {
    const { data } = await appOctokit(standIn).rest.apps.getAuthenticated();
    expect(data).toMatchObject({
      id: 4242,
      slug: "yardmaster",
      name: "Yardmaster",
      html_url: `${standIn.url}/apps/yardmaster`,
      permissions: { issues: "write", pull_requests: "write", metadata: "read" },
    });
    expect(data?.owner).toMatchObject({ login: "yardmaster-developers" });
    expect(data?.events).toContain("issue_comment");
    expect(standIn.findRequests({ method: "GET", path: "/app" }).at(-1)?.auth).toBe("app");
    expect(standIn.findRequests({ path: "/app" }).at(-1)?.headers.authorization).toBeUndefined();
  });

  it("accepts iss as a string and lists installations, one per owner account", async () => {
    const token = jwt(standIn.privateKey, { iat: now() - 30, exp: now() + 500, iss: "4242" });
    const { status, json } = await call(`${standIn.apiUrl}/app/installations`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(status).toBe(200);
    const accounts = (json as unknown as Array<{ account: { login: string }; app_id: number }>).map((i) => [
      i.account.login,
      i.app_id,
    ]);
    expect(accounts).toEqual([
      ["acme", 4242],
      ["globex", 4242],
    ]);
  });

  it("refuses a JWT signed with another key, a wrong iss, and a missing or non-JWT credential", async () => {
    const { privateKey: otherKey } = generateKeyPairSync("rsa", {
      modulusLength: 1024, // a forger's key: size does not matter, speed does
      privateKeyEncoding: { type: "pkcs1", format: "pem" },
      publicKeyEncoding: { type: "spki", format: "pem" },
    });
    const forged = jwt(otherKey, { iat: now() - 30, exp: now() + 500, iss: 4242 });
    const forgedCall = await call(`${standIn.apiUrl}/app`, {
      headers: { authorization: `Bearer ${forged}` },
    });
    expect(forgedCall.status).toBe(401);
    expect(forgedCall.json.message).toBe("A JSON web token could not be decoded");

    const forgedOctokit = new TestOctokit({
      auth: { appId: 4242, privateKey: otherKey },
      baseUrl: standIn.apiUrl,
    });
    await expect(forgedOctokit.rest.apps.getAuthenticated()).rejects.toMatchObject({ status: 401 });

    const wrongIss = jwt(standIn.privateKey, { iat: now() - 30, exp: now() + 500, iss: 1 });
    expect(
      (await call(`${standIn.apiUrl}/app`, { headers: { authorization: `Bearer ${wrongIss}` } })).status,
    ).toBe(401);
    const missing = await call(`${standIn.apiUrl}/app`);
    expect(missing).toMatchObject({ status: 401, json: { message: "Requires authentication" } });
    const notJwt = await call(`${standIn.apiUrl}/app`, { headers: { authorization: "token ghs_nope" } });
    expect(notJwt.status).toBe(401);
    expect(standIn.findRequests({ path: "/app" }).filter((r) => r.auth === "invalid").length).toBeGreaterThan(
      0,
    );
  });

  it("checks iat and exp with GitHub's messages", async () => {
    const attempt = async (payload: Record<string, unknown>) =>
      call(`${standIn.apiUrl}/app`, {
        headers: { authorization: `Bearer ${jwt(standIn.privateKey, { iss: 4242, ...payload })}` },
      });
    expect((await attempt({ iat: now() - 700, exp: now() - 100 })).json.message).toMatch(
      /'Expiration time' claim \('exp'\) must be a numeric value/,
    );
    expect((await attempt({ iat: now() - 10, exp: now() + 900 })).json.message).toMatch(
      /'Expiration time' claim \('exp'\) is too far in the future/,
    );
    expect((await attempt({ iat: now() + 300, exp: now() + 600 })).json.message).toMatch(
      /'Issued at' claim \('iat'\) must be an Integer/,
    );
    // Inside the 60 s skew: iat slightly ahead, exp slightly past.
    expect((await attempt({ iat: now() + 30, exp: now() + 600 })).status).toBe(200);
    expect((await attempt({ iat: now() - 600, exp: now() - 30 })).status).toBe(200);
  });

  it("finds the installation of a repository, 404 for an unknown one", async () => {
    const octokit = appOctokit(standIn);
    const { data } = await octokit.rest.apps.getRepoInstallation({ owner: "acme", repo: "widgets" });
    expect(data.id).toBe(standIn.installationId("acme/widgets"));
    expect(data.account).toMatchObject({ login: "acme", type: "Organization" });
    await expect(
      octokit.rest.apps.getRepoInstallation({ owner: "acme", repo: "nope" }),
    ).rejects.toMatchObject({
      status: 404,
    });
  });

  it("issues installation tokens that open the installation's repositories", async () => {
    const app = appOctokit(standIn);
    const installationId = standIn.installationId("acme/widgets");
    const { data, status } = await app.rest.apps.createInstallationAccessToken({
      installation_id: installationId,
    });
    expect(status).toBe(201);
    expect(data.token).toMatch(/^ghs_[A-Za-z0-9]{36}$/);
    expect(Date.parse(data.expires_at)).toBeGreaterThan(Date.now() + 50 * 60_000);
    expect(data).toMatchObject({ repository_selection: "all", permissions: { issues: "write" } });

    const repo = await tokenOctokit(standIn, data.token).rest.repos.get({ owner: "acme", repo: "widgets" });
    expect(repo.data).toMatchObject({ full_name: "acme/widgets", default_branch: "main", private: true });

    // Bearer works as well as token.
    const bearer = await call(`${standIn.apiUrl}/repos/acme/widgets`, {
      headers: { authorization: `Bearer ${data.token}` },
    });
    expect(bearer.status).toBe(200);
    // Another owner's repository is invisible to this installation.
    const other = await call(`${standIn.apiUrl}/repos/globex/gadgets`, {
      headers: { authorization: `token ${data.token}` },
    });
    expect(other.status).toBe(404);
  });

  it("goes through Probot's installation auth (auth({type: 'installation', factory}))", async () => {
    const app = appOctokit(standIn);
    const installationId = standIn.installationId("acme/widgets");
    const octokit = (await app.auth({
      type: "installation",
      installationId,
      factory: (auth: Record<string, unknown> & { octokitOptions: object }) =>
        new TestOctokit({ ...auth.octokitOptions, auth: { ...auth, installationId } }),
    })) as TestOctokit;
    const { data } = await octokit.rest.issues.get({ owner: "acme", repo: "widgets", issue_number: 2 });
    expect(data.title).toBe("Widgets squeak");
    const tokenRequests = standIn.findRequests({
      method: "POST",
      path: `/app/installations/${installationId}/access_tokens`,
    });
    expect(tokenRequests.length).toBeGreaterThan(0);
    expect(standIn.findRequests({ path: "/repos/acme/widgets/issues/2" }).at(-1)?.auth).toBe("installation");
  });

  it("answers 401 Bad credentials for a token it did not issue, and for a revoked one", async () => {
    const bad = await call(`${standIn.apiUrl}/repos/acme/widgets`, {
      headers: { authorization: "token ghs_000000000000000000000000000000000000" },
    });
    expect(bad.status).toBe(401);
    expect(bad.json).toMatchObject({ message: "Bad credentials" });
    expect(bad.json.documentation_url).toEqual(expect.any(String));
    const none = await call(`${standIn.apiUrl}/repos/acme/widgets`);
    expect(none.status).toBe(401);

    const octokit = await installationOctokit(standIn);
    await octokit.request("DELETE /installation/token");
    await expect(octokit.rest.repos.get({ owner: "acme", repo: "widgets" })).rejects.toMatchObject({
      status: 401,
    });
  });

  it("restricts a token asked for specific repositories", async () => {
    standIn.state.addRepository("acme/gears");
    const app = appOctokit(standIn);
    const { data } = await app.rest.apps.createInstallationAccessToken({
      installation_id: standIn.installationId("acme/widgets"),
      repositories: ["gears"],
    });
    expect(data.repository_selection).toBe("selected");
    const octokit = tokenOctokit(standIn, data.token);
    expect((await octokit.rest.repos.get({ owner: "acme", repo: "gears" })).status).toBe(200);
    await expect(octokit.rest.repos.get({ owner: "acme", repo: "widgets" })).rejects.toMatchObject({
      status: 404,
    });
    await expect(
      app.rest.apps.createInstallationAccessToken({
        installation_id: standIn.installationId("acme/widgets"),
        repositories: ["missing"],
      }),
    ).rejects.toMatchObject({ status: 422 });
  });

  it("answers 404 Not Found for unknown routes", async () => {
    const octokit = await installationOctokit(standIn);
    const res = await call(`${standIn.apiUrl}/repos/acme/widgets/no/such/thing`);
    expect(res).toMatchObject({ status: 404, json: { message: "Not Found" } });
    await expect(
      octokit.request("GET /repos/{owner}/{repo}/branches", { owner: "acme", repo: "widgets" }),
    ).rejects.toMatchObject({ status: 404 });
  });
});
