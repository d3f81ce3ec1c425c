import nock from "nock";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { slackTimeZoneFromWebApi } from "../../src/slack/user-time-zone.js";

const timeZone = () =>
  slackTimeZoneFromWebApi({
    token: "xoxb-test",
    apiUrl: "https://slack.test/api/",
    logger: createLogger({ level: "silent" }),
    timeoutMs: 5_000,
  });

describe("a Slack user's time zone", () => {
  it("is the tz of their profile, from users.info", async () => {
    nock("https://slack.test")
      .post("/api/users.info", (body) => body.user === "U1")
      .reply(200, { ok: true, user: { id: "U1", name: "alice", tz: "Europe/Paris" } });
    expect(await timeZone()({ teamId: "T1", userId: "U1" })).toBe("Europe/Paris");
  });

  it("is unknown (null, never a throw) when Slack does not say or refuses", async () => {
    nock("https://slack.test")
      .post("/api/users.info")
      .reply(200, { ok: true, user: { id: "U1", name: "alice" } })
      .post("/api/users.info")
      .reply(200, { ok: false, error: "missing_scope" })
      .post("/api/users.info")
      .reply(500);
    const lookup = timeZone();
    for (let i = 0; i < 3; i++) expect(await lookup({ teamId: "T1", userId: "U1" })).toBeNull();
  });
});
