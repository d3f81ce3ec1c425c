import nock from "nock";
import { describe, expect, it } from "vitest";
import { registerDoorbell } from "../../src/github/doorbell.js";
import { Installations } from "../../src/github/installations.js";
import { Repo } from "../../src/repo.js";
import { testProbot } from "../helpers/github-app.js";

const GH = "https://api.github.com";
const repository = { id: 5, name: "Widgets", full_name: "Acme/Widgets", owner: { login: "Acme", id: 2 } };

describe("the doorbell", () => {
  it("rings for the merge queue's GitHub events on a repository, and for nothing else", async () => {
    const probot = testProbot();
    const rung: string[] = [];
    await probot.load((app) =>
      registerDoorbell(app, async (repo) => {
        rung.push(repo.fullName);
      }),
    );
    const send = (name: string, payload: Record<string, unknown>) =>
      probot.receive({ id: `d-${name}-${rung.length}`, name, payload } as never);
    await send("check_run", {
      action: "created",
      check_run: { id: 1, name: "Queue: Embarked in merge queue", head_sha: "abc" },
      repository,
      installation: { id: 77 },
    });
    await send("pull_request", { action: "closed", number: 7, pull_request: { merged: true }, repository });
    await send("check_suite", { action: "completed", check_suite: { id: 2 }, repository });
    await send("status", { state: "success", sha: "abc", repository });
    await send("issue_comment", { action: "created", repository, comment: { body: "hi" } });
    // Without a usable repository there is nothing to ring.
    await send("check_run", { action: "created", check_run: { id: 3 }, repository: { name: "x" } });
    await send("check_run", {
      action: "created",
      check_run: { id: 4 },
      repository: { name: "../etc", owner: { login: "acme" } },
    });
    expect(rung).toEqual(["Acme/Widgets", "Acme/Widgets", "Acme/Widgets", "Acme/Widgets"]);
  });
});

describe("whether GitHub announces a repository's activity", () => {
  const installation = (events: string[]) =>
    nock(GH)
      .post("/app/installations/77/access_tokens")
      .optionally()
      .reply(201, { token: "t", expires_at: "2099-01-01T00:00:00Z" })
      .get("/repos/acme/widgets/installation")
      .reply(200, { id: 77, events, permissions: {} });

  it("is yes when the installation receives check runs and pull requests, and cached", async () => {
    const scope = installation(["issue_comment", "check_run", "pull_request"]);
    const installations = new Installations(testProbot());
    expect(await installations.announcesActivity(Repo.of("acme", "widgets"))).toBe(true);
    expect(await installations.announcesActivity(Repo.of("ACME", "widgets"))).toBe(true);
    expect(scope.isDone()).toBe(true);
  });

  it("asks GitHub again once the installation was remembered ten minutes", async () => {
    let now = 1_000_000;
    const first = installation(["issue_comment"]);
    const installations = new Installations(testProbot(), { now: () => now });
    expect(await installations.announcesActivity(Repo.of("acme", "widgets"))).toBe(false);
    now += 10 * 60_000;
    expect(await installations.announcesActivity(Repo.of("acme", "widgets"))).toBe(false);
    expect(first.isDone()).toBe(true);
    // The app was given the events since: after ten minutes, the next question sees it.
    const second = installation(["issue_comment", "check_run", "pull_request"]);
    now += 1;
    expect(await installations.announcesActivity(Repo.of("acme", "widgets"))).toBe(true);
    expect(second.isDone()).toBe(true);
  });

  it("is no for an installation made from an earlier app.yml (comments only)", async () => {
    installation(["issue_comment"]);
    expect(await new Installations(testProbot()).announcesActivity(Repo.of("acme", "widgets"))).toBe(false);
  });

  it("says plainly when the app is not installed", async () => {
    nock(GH).get("/repos/acme/widgets/installation").reply(404, { message: "Not Found" });
    await expect(
      new Installations(testProbot()).announcesActivity(Repo.of("acme", "widgets")),
    ).rejects.toThrow("the GitHub App is not installed on acme/widgets");
  });
});
