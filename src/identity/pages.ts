import type { ServerResponse } from "node:http";

/**
 * The pages of the sign-in (linking.ts): what happened, and the confirmation form that names both sides
 * before anything is linked. Everything shown is escaped: Slack's names and GitHub's logins are people's text.
 */

/** How a chat user and their workspace are named to a person; ids when the chat does not say. */
export interface ChatNames {
  /** "@alice" (the display name, else the user name), or the user id. */
  user: string;
  /** The workspace's name, or the team id. */
  team: string;
}

// Hand-written: five characters, and no HTML-escaping package is a dependency.
export const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );

/**
 * Served with every page: nothing loaded from elsewhere, never framed (a page that asks for a click must
 * not be overlaid by another site's), forms posted only back here, never cached, no Referer with the
 * callback's code and state.
 */
const HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-frame-options": "DENY",
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
};

/** `body` is HTML already escaped by the caller (the helpers here escape what they are given). */
export function page(res: ServerResponse, status: number, title: string, body: string): true {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · Yardmaster</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1f2328}
button{font:inherit;padding:.4rem 1rem;margin-right:.5rem}</style></head>
<body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
  res.writeHead(status, { ...HEADERS, "content-length": Buffer.byteLength(html) });
  res.end(html);
  return true;
}

/** A page of one paragraph: `message` is HTML (escape what a person typed). */
export function notice(res: ServerResponse, status: number, title: string, message: string): true {
  return page(res, status, title, `<p>${message}</p>`);
}

const strong = (text: string) => `<strong>${escapeHtml(text)}</strong>`;

/**
 * The page after GitHub's sign-in: who would be linked to whom, and a form that links them only when the
 * person confirms. `state` is the form's one-time state (good once, for 10 minutes).
 */
export function confirmationPage(
  res: ServerResponse,
  a: { names: ChatNames; githubLogin: string; state: string; action: string; expiresInMinutes: number },
): true {
  const { names } = a;
  return page(
    res,
    200,
    "Link your accounts?",
    `<p>You signed in on GitHub as ${strong(a.githubLogin)}. Confirm to link Slack user ${strong(names.user)} in workspace ${strong(names.team)} to this GitHub account: Yardmaster will then act for that Slack user with ${strong(a.githubLogin)}'s permissions on GitHub.</p>
<p><strong>Is ${escapeHtml(names.user)} your own Slack account?</strong> If not, someone sent you their sign-in link: choose <em>Do not link</em> (or close this page) and nothing is linked.</p>
<form method="post" action="${escapeHtml(a.action)}">
<input type="hidden" name="state" value="${escapeHtml(a.state)}">
<button type="submit" name="decision" value="link">Link ${escapeHtml(names.user)} to ${escapeHtml(a.githubLogin)}</button>
<button type="submit" name="decision" value="cancel">Do not link</button>
</form>
<p>This confirmation works once, within ${a.expiresInMinutes} minutes.</p>`,
  );
}

/** The page once linked: both sides, by the names Slack gives them. */
export function linkedPage(res: ServerResponse, names: ChatNames, githubLogin: string): true {
  return notice(
    res,
    200,
    "Linked",
    `Slack user ${strong(names.user)} in workspace ${strong(names.team)} is now linked to GitHub account ${strong(githubLogin)}. You can close this tab and go back to Slack.`,
  );
}
