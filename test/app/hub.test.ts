import { describe, expect, it } from "vitest";
import { Hub } from "../../src/app/hub.js";

describe("Hub", () => {
  it("tells nobody before a listener is built, then every listener, once each", async () => {
    const hub = new Hub<[string]>();
    const heard: string[] = [];
    await hub.tell("before");
    hub.listen((what) => {
      heard.push(`poller ${what}`);
    });
    hub.listen(async (what) => {
      heard.push(`home ${what}`);
    });
    await hub.tell("acme/widgets");
    expect(heard).toEqual(["poller acme/widgets", "home acme/widgets"]);
  });

  it("resolves once every listener's work is done, and rejects as a listener that fails", async () => {
    const hub = new Hub<[number]>();
    let release: () => void = () => {};
    hub.listen(() => new Promise<void>((resolve) => (release = resolve)));
    let settled = false;
    const told = hub.tell(1).then(() => {
      settled = true;
    });
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    release();
    await told;
    expect(settled).toBe(true);
    hub.listen(async () => {
      throw new Error("the notifier could not read acme/widgets");
    });
    const failing = hub.tell(2);
    release();
    await expect(failing).rejects.toThrow("the notifier could not read acme/widgets");
  });
});
