import type { App } from "@slack/bolt";
import type { HomeTab } from "../home/home-tab.js";
import type { SurfaceKit } from "./kit.js";

/** The events the surface listens to itself (unfurls/ registers its own): the Home tab opened. */
export function registerEvents(app: App, kit: SurfaceKit, home: HomeTab | null): void {
  app.event("app_home_opened", async ({ event, body }) => {
    if (!home || event.tab !== "home") return;
    // A failure is thrown to handleEventsOnce (events-once.ts): Slack's retry of the event runs it again.
    await kit.tracked(home.publish(body.team_id, event.user));
  });
}
