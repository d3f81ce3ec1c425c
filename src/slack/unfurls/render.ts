import { exceptLabels } from "../../wording/lists.js";
import { clip, formatEta, pullUrl } from "../../wording/words.js";
import { codeMrkdwn, escapeMrkdwn, linkMrkdwn } from "../mrkdwn.js";
import { type Button, type KnownBlock, mrkdwn } from "../render-kit.js";
import type { UnfurlFacts } from "./read.js";
import { UNFURL_ACTION_IDS, type UnfurlActionId, unfurlValue } from "./values.js";

/** One unfurl of chat.unfurl's map: blocks only (Slack shows them under the posted message). */
export interface Unfurl {
  blocks: KnownBlock[];
}

/** The line that says where the pull request stands. */
function stateLine(facts: UnfurlFacts, now: Date): string {
  if (facts.merged) return "🟣 Merged.";
  const q = facts.queue;
  if (q.kind === "queued") {
    const where = `in the merge queue ${codeMrkdwn(clip(q.queueName, 100))}`;
    if (!q.checks) return `⏳ Waiting at position ${q.position} ${where}, ETA ${formatEta(q.eta, now)}.`;
    const checks = `checks ${q.checks.passed}/${q.checks.total} passed (${escapeMrkdwn(q.checks.state)})`;
    return `📍 Position ${q.position} ${where}, ETA ${formatEta(q.eta, now)}, ${checks}.`;
  }
  if (q.kind === "not_queued") return facts.closed ? "Closed, not queued." : "Not queued.";
  return "⚠️ Yardmaster could not read its merge-queue state: try Refresh in a moment.";
}

function button(actionId: UnfurlActionId, text: string, value: string, style?: "primary" | "danger"): Button {
  return {
    type: "button",
    action_id: actionId,
    text: { type: "plain_text", text, emoji: true },
    value,
    ...(style ? { style } : {}),
  };
}

/**
 * The unfurl of a pull-request link: its title, where it stands, a paused queue, and the buttons
 * (Queue when it is not queued and open, Dequeue when it is queued, Refresh always).
 */
export function renderUnfurl(facts: UnfurlFacts, githubWebUrl: string, now: Date): Unfurl {
  const link = linkMrkdwn(
    pullUrl(githubWebUrl, facts.repo, facts.pull),
    `${facts.repo.fullName}#${facts.pull}`,
  );
  const title = facts.title ? ` ${escapeMrkdwn(clip(facts.title, 200))}` : "";
  const lines = [`*${link}*${title}`, stateLine(facts, now)];
  if (facts.paused && !facts.merged) {
    const { hold = "paused", by, except } = facts.paused;
    const reason = facts.paused.reason ? `: ${escapeMrkdwn(clip(facts.paused.reason, 255))}` : "";
    const who = by ? ` by ${escapeMrkdwn(clip(by, 100))}` : "";
    const labels = exceptLabels(except, (l) => codeMrkdwn(clip(l, 50)));
    const icon = hold === "draining" ? "⏬" : "⏸️";
    lines.push(
      `${icon} The merge queue of ${codeMrkdwn(facts.repo.fullName)} is ${hold}${who}${reason}${labels}.`,
    );
  }
  const value = unfurlValue(facts);
  const buttons: Button[] = [];
  if (!facts.merged && facts.queue.kind === "not_queued" && !facts.closed) {
    buttons.push(button(UNFURL_ACTION_IDS.queue, "Queue", value, "primary"));
  }
  if (!facts.merged && facts.queue.kind === "queued") {
    buttons.push(button(UNFURL_ACTION_IDS.dequeue, "Dequeue", value, "danger"));
  }
  buttons.push(button(UNFURL_ACTION_IDS.refresh, "Refresh", value));
  const stamp = now.getTime().toString(36);
  return {
    blocks: [
      { type: "section", block_id: `unfurl.0.${stamp}`, text: mrkdwn(lines.join("\n")) },
      { type: "actions", block_id: `unfurl.1.${stamp}`, elements: buttons },
    ],
  };
}
