import { describe, expect, it } from "vitest";
import { cachedPermission, readableBy } from "../../src/commands/cached-permission.js";
import type { PermissionLookup } from "../../src/commands/ports.js";
import type { PermissionLevel } from "../../src/core/permission-level.js";
import { Repo } from "../../src/repo.js";

const widgets = Repo.of("acme", "widgets");
const gadgets = Repo.of("acme", "gadgets");

/** A lookup that answers what `levels` says now, counting the questions it was asked. */
function recordingLookup(levels: Map<string, PermissionLevel | Error>) {
  const asked: string[] = [];
  const lookup: PermissionLookup = async (repo, login) => {
    const key = `${login} ${repo.fullName}`;
    asked.push(key);
    const level = levels.get(key) ?? "none";
    if (level instanceof Error) throw level;
    return level;
  };
  return { lookup, asked };
}

describe("cachedPermission", () => {
  it("asks GitHub once per login and repository while the answer is fresh, then again", async () => {
    let now = 1_000_000;
    const levels = new Map<string, PermissionLevel | Error>([["alice acme/widgets", "write"]]);
    const { lookup, asked } = recordingLookup(levels);
    const cached = cachedPermission(lookup, { ttlMs: 60_000, now: () => now });

    expect(await cached(widgets, "alice")).toBe("write");
    levels.set("alice acme/widgets", "read");
    now += 60_000;
    // The login is compared as GitHub compares it, and the repository by its key.
    expect(await cached(Repo.of("ACME", "Widgets"), "Alice")).toBe("write");
    expect(asked).toEqual(["alice acme/widgets"]);

    now += 1; // a minute has passed
    expect(await cached(widgets, "alice")).toBe("read");
    expect(asked).toEqual(["alice acme/widgets", "alice acme/widgets"]);
  });

  it("does not remember a failed lookup", async () => {
    const levels = new Map<string, PermissionLevel | Error>([["bob acme/widgets", new Error("502")]]);
    const { lookup, asked } = recordingLookup(levels);
    const cached = cachedPermission(lookup, { now: () => 0 });

    await expect(cached(widgets, "bob")).rejects.toThrow("502");
    levels.set("bob acme/widgets", "admin");
    expect(await cached(widgets, "bob")).toBe("admin");
    expect(asked).toEqual(["bob acme/widgets", "bob acme/widgets"]);
  });

  it("keeps at most `max` answers, forgetting the least recently used first", async () => {
    const { lookup, asked } = recordingLookup(new Map());
    const cached = cachedPermission(lookup, { max: 2, now: () => 0 });

    await cached(widgets, "alice");
    await cached(gadgets, "alice");
    await cached(widgets, "alice"); // used again: gadgets is now the least recently used
    await cached(widgets, "bob"); // a third answer: gadgets is forgotten
    await cached(widgets, "alice");
    await cached(gadgets, "alice");
    expect(asked).toEqual([
      "alice acme/widgets",
      "alice acme/gadgets",
      "bob acme/widgets",
      "alice acme/gadgets",
    ]);
  });
});

describe("readableBy", () => {
  it("keeps, in order, what the login can read, with its level; a failed lookup hides one", async () => {
    const secret = Repo.of("acme", "secret");
    const { lookup } = recordingLookup(
      new Map<string, PermissionLevel | Error>([
        ["dana acme/gadgets", "write"],
        ["dana acme/widgets", "read"],
        ["dana acme/secret", new Error("GitHub is down")],
      ]),
    );
    const links = [
      { repo: gadgets },
      { repo: secret },
      { repo: Repo.of("acme", "hidden") },
      { repo: widgets },
    ];
    const readable = await readableBy(links, (link) => link.repo, "dana", lookup);
    expect(readable.map(({ item, level }) => [item.repo.fullName, level])).toEqual([
      ["acme/gadgets", "write"],
      ["acme/widgets", "read"],
    ]);
  });
});
