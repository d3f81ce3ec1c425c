import type { Migration } from "./migration.js";

/**
 * A sign-in links only once confirmed on the page after GitHub's sign-in (src/identity/linking.ts): that
 * page's form holds a new one-time state whose row remembers who signed in on GitHub (`github_login`,
 * `github_id`) until the person confirms. Only columns added: an older build ignores them.
 */
export const signInConfirmations: Migration = {
  version: 27,
  name: "sign-in confirmations",
  async up(db, t) {
    await db.schema.alterTable("oauth_states").addColumn("github_login", "text").execute();
    await db.schema.alterTable("oauth_states").addColumn("github_id", t.int8).execute();
  },
};
