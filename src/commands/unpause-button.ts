import type { Repo } from "../repo.js";
import type { Button } from "../wording/description.js";

/** Every answer that shows a paused queue offers to unpause it. */
export function unpauseButton(repo: Repo, branch?: string): Button {
  return {
    label: "Unpause",
    runs: { name: "unpause", repo, ...(branch !== undefined ? { branch } : {}) },
    style: "primary",
  };
}
