/** The people of the sandbox: who the page lets you be, on GitHub and on Slack. */

export const SANDBOX_REPOSITORY = "acme/widgets";
/** A repository on GitHub's own merge queue (the GitHub stand-in's), next to acme/widgets on Mergify. */
export const SANDBOX_GITHUB_QUEUE_REPOSITORY = "acme/ships";
export const SANDBOX_TEAM_ID = "T0001";

export interface SandboxPerson {
  /** GitHub login. */
  login: string;
  githubId: number;
  role: "write" | "read";
  slackUserId: string;
  /** What the page's switcher says. */
  label: string;
  /** Seeded pull requests they wrote (their direct messages and Home tab show them). */
  authorOf?: readonly number[];
}

export const SANDBOX_PEOPLE: readonly SandboxPerson[] = [
  {
    login: "octocat",
    githubId: 583231,
    role: "write",
    slackUserId: "U0OCTOCAT",
    label: "writer",
    authorOf: [101, 102, 236],
  },
  { login: "reader", githubId: 9001, role: "read", slackUserId: "U0READER", label: "read-only" },
];

export const SANDBOX_CHANNEL = { id: "C0MERGEQ", name: "merge-queue" } as const;

/**
 * An admin of acme/ships, who may merge past its merge queue (an admin's bypass): the page's "Merge without
 * the queue" merges as them. Not someone the page lets you be.
 */
export const SANDBOX_ADMIN = "sam";

export function findPerson(login: string | null | undefined): SandboxPerson | undefined {
  return SANDBOX_PEOPLE.find((p) => p.login === login);
}
