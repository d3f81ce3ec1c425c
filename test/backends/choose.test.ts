import { describe, expect, it } from "vitest";
import { queueBackends } from "../../src/backends/choose.js";
import type { GitHubQueueClient } from "../../src/backends/github/client.js";
import { Repo } from "../../src/repo.js";

const ships = Repo.of("acme", "ships");

/** A client whose branches have GitHub's merge queue as `queued` says, counting the reads. */
function client(queued: (branch: string | null) => boolean) {
  const reads: (string | null)[] = [];
  const github = {
    hasQueue: async (_repo: Repo, branch: string | null) => {
      reads.push(branch);
      return queued(branch);
    },
  } as unknown as GitHubQueueClient;
  return { github, reads };
}

describe("which merge queue serves a branch", () => {
  it("with auto, reads a branch once a minute: the answer is remembered, then read again", async () => {
    let now = 1_000_000;
    let hasQueue = true;
    const { github, reads } = client(() => hasQueue);
    const backends = queueBackends("auto", github, () => now);
    expect(await backends.choose(ships, "main")).toBe("github");
    hasQueue = false; // the queue was turned off in the ruleset
    now += 59_000;
    expect(await backends.choose(ships, "main")).toBe("github");
    expect(await backends.choose(ships, "release")).toBe("mergify");
    now += 2_000;
    expect(await backends.choose(ships, "main")).toBe("mergify");
    expect(reads).toEqual(["main", "release", "main"]);
  });

  it("reads nothing when the provider is fixed", async () => {
    const { github, reads } = client(() => true);
    expect(await queueBackends("mergify", github).choose(ships, "main")).toBe("mergify");
    expect(await queueBackends("github", github).choose(ships, "main")).toBe("github");
    expect(reads).toEqual([]);
  });
});
