import type { App } from "@slack/bolt";
import type { HomeTab } from "../home-tab.js";
import type { SurfaceKit } from "./kit.js";

/** The events the surface listens to itself (unfurls/ registers its own): the Home tab opened. */
export function registerEvents(app: App, kit: SurfaceKit, home: HomeTab | null): void {
  app.event("app_home_opened", async ({ event, body }) => {
    if (!home || event.tab !== "home") return;
    const work = home
      .publish(body.team_id, event.user)
      .catch((error: unknown) => kit.logger.warn({ err: error }, "could not publish a Home tab"));
    await kit.tracked(work);
  });
}
