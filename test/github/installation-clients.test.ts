import { describe, expect, it } from "vitest";
import { keepInstallationClients } from "../../src/github/installation-clients.js";

/** An app-level Octokit's `auth`, which makes a new client each time it is asked for one. */
type Auth = Parameters<typeof keepInstallationClients>[0]["auth"];

function appOctokit(fail: (options: object) => boolean = () => false) {
  let made = 0;
  const octokit = {
    calls: 0,
    auth: async (options?: Parameters<Auth>[0]) => {
      octokit.calls += 1;
      if (options && fail(options)) throw new Error("GitHub said no");
      made += 1;
      return { client: made, options };
    },
  };
  return { octokit, kept: keepInstallationClients(octokit) };
}
const factory = () => ({});
const event = (installation: number | undefined, name = "issue_comment", action = "created") => ({
  type: "event-octokit",
  event: { name, payload: { action, ...(installation ? { installation: { id: installation } } : {}) } },
});

describe("one client kept per installation", () => {
  it("gives every webhook and job of an installation the same client, and another installation its own", async () => {
    const { octokit, kept } = appOctokit();
    const first = await kept.auth(event(7));
    expect(await kept.auth(event(7, "check_run"))).toBe(first);
    const job = await kept.auth({ type: "installation", installationId: 7, factory });
    expect(await kept.auth({ type: "installation", installationId: 7, factory })).toBe(job);
    expect(await kept.auth(event(8))).not.toBe(first);
    expect(octokit.calls).toBe(3);
  });

  it("keeps nothing for events without an installation, for revoked installations, or for the app itself", async () => {
    const { octokit, kept } = appOctokit();
    await kept.auth(event(undefined));
    await kept.auth(event(undefined));
    await kept.auth(event(7, "installation", "deleted"));
    await kept.auth(event(7, "installation", "deleted"));
    await kept.auth({ type: "app" });
    await kept.auth({ type: "app" });
    await kept.auth({ type: "installation", installationId: 7 }); // a token, not a client
    await kept.auth({ type: "installation", installationId: 7 });
    expect(octokit.calls).toBe(8);
  });

  it("does not keep a client that could not be made: the next event asks again", async () => {
    let refuse = true;
    const { octokit, kept } = appOctokit(() => refuse);
    await expect(kept.auth(event(7))).rejects.toThrow("GitHub said no");
    refuse = false;
    const client = await kept.auth(event(7));
    expect(await kept.auth(event(7))).toBe(client);
    expect(octokit.calls).toBe(2);
  });
});
