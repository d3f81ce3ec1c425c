import { describe, expect, it } from "vitest";
import { mergeQueues } from "../../src/backends/choose.js";
import type { GitHubQueueClient } from "../../src/backends/github/client.js";
import type { MergeQueueClient } from "../../src/backends/mergify/client.js";
import { Repo } from "../../src/repo.js";

const ships = Repo.of("acme", "ships");
/** Never called: choosing reads nothing of Mergify. */
const mergify = {} as MergeQueueClient;

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
    const queues = mergeQueues("auto", { mergify, github, now: () => now });
    const kind = async (branch: string) => (await queues.for(ships, branch)).kind;
    expect(await kind("main")).toBe("github");
    hasQueue = false; // the queue was turned off in the ruleset
    now += 59_000;
    expect(await kind("main")).toBe("github");
    expect(await kind("release")).toBe("mergify");
    now += 2_000;
    expect(await kind("main")).toBe("mergify");
    expect(reads).toEqual(["main", "release", "main"]);
  });

  it("reads nothing when the provider is fixed", async () => {
    const { github, reads } = client(() => true);
    expect((await mergeQueues("mergify", { mergify, github }).for(ships, "main")).kind).toBe("mergify");
    expect((await mergeQueues("github", { mergify, github }).for(ships, "main")).kind).toBe("github");
    expect(reads).toEqual([]);
  });

  it("gives each backend only what it can do: GitHub's queue has no pause and no list of branches", async () => {
    const { github } = client(() => true);
    const queues = mergeQueues("auto", { mergify, github });
    const onGitHub = await queues.for(ships, "main");
    expect(onGitHub.pauses).toBeUndefined();
    expect(onGitHub.branches).toBeUndefined();
    expect(onGitHub.commands.via).toBe("api");
    const onMergify = await mergeQueues("mergify", { mergify, github: null }).for(ships);
    expect(onMergify.pauses?.scope).toBe("repository");
    expect(onMergify.commands.via).toBe("comments");
    expect(queues.relaying?.kind).toBe("mergify");
  });

  it("with GitHub's queue only and no Mergify token, nothing is relayed and every branch is GitHub's", async () => {
    const { github, reads } = client(() => false);
    const queues = mergeQueues("github", { mergify: null, github });
    expect((await queues.for(ships, "release")).kind).toBe("github");
    expect(queues.relaying).toBeNull();
    expect(reads).toEqual([]);
  });
});
