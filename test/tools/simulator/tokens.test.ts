import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, start } from "./helpers.js";

let api: Api;
beforeAll(async () => {
  api = await start({ seed: "demo" });
  api.sim.state.addRepository("acme/gadgets", { branches: ["main"] });
});
afterAll(() => api.sim.close());

const status = (repo: string, token: string) =>
  api.send("GET", `/repos/${repo}/merge-queue/status`, undefined, token);
const logs = (repo: string, token: string) => api.send("GET", `/repos/${repo}/logs`, undefined, token);

describe("tokens the simulator issues", () => {
  it("reads only the repositories a limited token names (any case), 403 elsewhere", async () => {
    const token = api.sim.issueToken({ repositories: ["Acme/Widgets"] });
    expect((await status("acme/widgets", token)).status).toBe(200);
    expect((await logs("acme/widgets", token)).status).toBe(200);
    const refused = await status("acme/gadgets", token);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ detail: "This application key has no access to this repository" });
  });

  it("refuses the event log to a token scoped to the queue", async () => {
    const token = api.sim.issueToken({ eventLog: false });
    expect((await status("acme/gadgets", token)).status).toBe(200);
    expect((await logs("acme/gadgets", token)).status).toBe(403);
  });

  it("never opens the control endpoints to an issued token, and refuses unknown ones", async () => {
    const token = api.sim.issueToken();
    const control = await fetch(`${api.sim.url}/__sim/clock`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(control.status).toBe(403);
    expect((await status("acme/widgets", "sim-not-issued")).status).toBe(403);
  });
});
