import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorld, type World } from "../helpers/e2e.js";

/** GET /healthz against the real server, on an SQLite file that disappears under it. */
const RELEASE = (JSON.parse(readFileSync("package.json", "utf8")) as { version: string }).version;

let world: World;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "yardmaster-health-"));
  world = await startWorld({ DATABASE_URL: `sqlite:${join(dir, "yardmaster.db")}` });
});
afterAll(async () => {
  await world?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("/healthz", () => {
  it("says which release answers: package.json's version", async () => {
    expect(RELEASE).toMatch(/^\d+\.\d+\.\d+$/);
    const body = (await (await fetch(`${world.url}/healthz`)).json()) as { version: string };
    expect(body.version).toBe(RELEASE);
  });

  it("says the store is reachable while its file is there, and 503 unreachable once it is deleted", async () => {
    const healthy = await fetch(`${world.url}/healthz`);
    expect(healthy.status).toBe(200);
    expect(await healthy.json()).toMatchObject({ ok: true, version: RELEASE, store: "reachable" });

    for (const suffix of ["", "-wal", "-shm"]) rmSync(join(dir, `yardmaster.db${suffix}`), { force: true });
    const gone = await fetch(`${world.url}/healthz`);
    expect(gone.status).toBe(503);
    expect(await gone.json()).toMatchObject({ ok: false, store: "unreachable" });
  });
});
