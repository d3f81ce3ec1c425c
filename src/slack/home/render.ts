import { noticeScope } from "../../commands/notify.js";
import { PERSONAL_EVENT_GROUPS } from "../../core/event-groups.js";
import { type ListedFreeze, windowText } from "../../freezes/present.js";
import type { Repo } from "../../repo.js";
import { VERSION } from "../../version.js";
import { exceptLabels } from "../../wording/lists.js";
import { formatTime } from "../../wording/words.js";
import { ACTION_IDS, buttonValue } from "../actions.js";
import { codeMrkdwn as code, escapeMrkdwn, linkMrkdwn, mrkdwnFormat } from "../mrkdwn.js";
import {
  actions,
  button,
  context,
  header,
  type KnownBlock,
  packItems,
  SLACK_LIMITS,
  section,
  unpauseButton,
  withBlockIds,
} from "../render-kit.js";

/** What a person's Home tab shows: only what they may see (home-tab.ts gathers it). */
export interface HomeModel {
  /** The GitHub login they linked; null when they have not. */
  login: string | null;
  /** Whether `/mq login` works here (identity linking is configured). */
  canLink: boolean;
  /** Their pull requests in a queue now, in repositories they can read. */
  queued: {
    repo: Repo;
    number: number;
    title: string;
    url: string;
    /** 1-based, in the repository's queue. */
    position: number;
    eta: Date | null;
    canDequeue: boolean;
  }[];
  /** Paused queues of repositories they can read. */
  paused: {
    repo: Repo;
    reason: string | null;
    since: Date | null;
    canUnpause: boolean;
    /** How it holds its queue (absent: paused), who holds it, the branch, and the labels it lets through. */
    hold?: "paused" | "draining" | "drained";
    by?: string | null;
    branch?: string;
    except?: readonly string[];
  }[];
  /** The next freeze window of each repository that has one, soonest first. */
  freezes?: { repo: Repo; freeze: ListedFreeze }[];
  /** Repositories they can read whose flake shield is on (docs/notifications.md, "The flake shield"). */
  shielded?: Repo[];
  /** This workspace's channel subscriptions to repositories they can read. */
  subscriptions: { channelId: string; repo: Repo; branchGlob: string | null; groups: string[] }[];
  /** Their notice preferences; null when not linked. */
  preferences: { enabled: boolean; groups: string[]; muted: Repo[] } | null;
  /** Repositories they can read (to mute or unmute). */
  repositories: Repo[];
  /** What the last button did, shown at the top. */
  notice?: KnownBlock[];
  now: Date;
}

export interface HomeView {
  type: "home";
  blocks: KnownBlock[];
}

/** Slack's limit on a Home tab's blocks. */
export const HOME_MAX_BLOCKS = 100;
/** Items listed per section before "and N more": keeps the whole within HOME_MAX_BLOCKS. */
const MAX_QUEUED = 15;
const MAX_PAUSED = 10;
const MAX_REPOS = 10;
const MAX_NOTICE_BLOCKS = 8;

/** The Home tab: who you are, your queued pull requests, paused queues, subscriptions, your notices. */
export function renderHome(model: HomeModel): HomeView {
  const blocks: KnownBlock[] = [];
  if (model.notice?.length) {
    blocks.push(...model.notice.slice(0, MAX_NOTICE_BLOCKS).map(stripBlockId), { type: "divider" });
  }
  blocks.push(header("Yardmaster"), ...identity(model));
  if (model.login !== null) {
    blocks.push({ type: "divider" }, header("Your pull requests in a merge queue"), ...queued(model));
    blocks.push({ type: "divider" }, header("Paused merge queues"), ...paused(model));
    blocks.push(
      { type: "divider" },
      header("Channel subscriptions"),
      ...subscriptions(model),
      ...shielded(model),
    );
    blocks.push({ type: "divider" }, header("Your direct messages"), ...preferences(model));
  }
  blocks.push(
    context(
      `Updated ${escapeMrkdwn(formatTime(model.now.toISOString()))} · Yardmaster ${escapeMrkdwn(VERSION)}`,
    ),
  );
  return { type: "home", blocks: withBlockIds("home", blocks.slice(0, HOME_MAX_BLOCKS), model.now) };
}

function stripBlockId(block: KnownBlock): KnownBlock {
  const { block_id: _, ...rest } = block as KnownBlock & { block_id?: string };
  return rest as KnownBlock;
}

function identity(model: HomeModel): KnownBlock[] {
  if (model.login === null) {
    const text =
      "You have not linked a GitHub account. Link it to see your pull requests in the merge queue, the paused queues and subscriptions of the repositories you can read, and to get a direct message when your pull requests enter a queue, merge or leave it.";
    return model.canLink
      ? [section(text), actions(button(ACTION_IDS.login, "Link GitHub account", "{}", "primary"))]
      : [section(`${text} (Identity linking is not configured here.)`)];
  }
  return [
    section(
      `Linked to the GitHub account ${code(model.login)}.`,
      button(ACTION_IDS.logout, "Unlink", buttonValue({ name: "logout" })),
    ),
  ];
}

function queued(model: HomeModel): KnownBlock[] {
  if (model.queued.length === 0)
    return [section("None of your pull requests is in a merge queue of a repository you can read.")];
  const blocks: KnownBlock[] = model.queued.slice(0, MAX_QUEUED).map((q) => {
    const eta = q.eta ? `, merge expected ${escapeMrkdwn(formatTime(q.eta.toISOString()))}` : "";
    const text = `${linkMrkdwn(q.url, `${q.repo.fullName}#${q.number}`)} ${escapeMrkdwn(q.title)}\nPosition ${q.position}${eta}`;
    return q.canDequeue
      ? section(
          text,
          button(
            ACTION_IDS.dequeue,
            "Dequeue",
            buttonValue({ name: "dequeue", repo: q.repo, pull: q.number }),
          ),
        )
      : section(text);
  });
  if (model.queued.length > MAX_QUEUED)
    blocks.push(context(`…and ${model.queued.length - MAX_QUEUED} more in a queue`));
  return blocks;
}

function paused(model: HomeModel): KnownBlock[] {
  if (model.paused.length === 0)
    return [section("No merge queue of a repository you can read is paused."), ...freezes(model)];
  const blocks: KnownBlock[] = model.paused.slice(0, MAX_PAUSED).map((p) => {
    const since = p.since ? ` since ${escapeMrkdwn(formatTime(p.since.toISOString()))}` : "";
    const reason = p.reason ? `: ${escapeMrkdwn(p.reason)}` : "";
    const branch = p.branch ? ` (branch ${code(p.branch)})` : "";
    const by = p.by ? ` by ${escapeMrkdwn(p.by)}` : "";
    const except = exceptLabels(p.except, code);
    const hold = p.hold ?? "paused";
    const icon = hold === "draining" ? "⏬" : "⏸️";
    const text = `${icon} ${code(p.repo.fullName)}${branch} is ${hold}${by}${since}${reason}${except}`;
    return p.canUnpause ? section(text, unpauseButton(p.repo)) : section(text);
  });
  if (model.paused.length > MAX_PAUSED)
    blocks.push(context(`…and ${model.paused.length - MAX_PAUSED} more paused`));
  return [...blocks, ...freezes(model)];
}

/** Under the paused queues: the next freeze window of each repository (docs/commands.md, "Freeze windows"). */
function freezes(model: HomeModel): KnownBlock[] {
  const listed = model.freezes ?? [];
  return listed
    .slice(0, MAX_PAUSED)
    .map(({ repo, freeze }) =>
      context(
        `❄️ ${code(repo.fullName)}: freeze ${escapeMrkdwn(freeze.name)}, ${escapeMrkdwn(windowText(freeze))}`,
      ),
    );
}

function subscriptions(model: HomeModel): KnownBlock[] {
  if (model.subscriptions.length === 0)
    return [section("No channel of this workspace is subscribed to a repository you can read.")];
  const f = mrkdwnFormat();
  const lines = model.subscriptions.map(
    (s) =>
      `• ${channel(s.channelId)}: ${code(s.repo.fullName)}, ${s.groups.map((g) => code(g)).join(", ")}${s.branchGlob ? ` on ${code(s.branchGlob)}` : ""}`,
  );
  const packed = packItems(
    lines.map((line) => [line]),
    {
      maxSections: 3,
      moreLine: (n) => `…and ${n} more ${f.escape(n === 1 ? "subscription" : "subscriptions")}`,
      max: SLACK_LIMITS.sectionText,
    },
  );
  return packed.map((text) => section(text));
}

/** Under the subscriptions: the repositories whose flake shield is on. */
function shielded(model: HomeModel): KnownBlock[] {
  const repos = model.shielded ?? [];
  if (repos.length === 0) return [];
  const shown = repos.slice(0, MAX_REPOS).map((r) => code(r.fullName));
  const more = repos.length > MAX_REPOS ? ` and ${repos.length - MAX_REPOS} more` : "";
  return [
    context(
      `🛡️ Flake shield on for ${shown.join(", ")}${more}: a pull request removed for a check that also failed for two others within the hour is queued again, once.`,
    ),
  ];
}

function preferences(model: HomeModel): KnownBlock[] {
  const p = model.preferences;
  if (!p) return [];
  const f = mrkdwnFormat();
  const blocks: KnownBlock[] = [
    section(
      p.enabled
        ? `🔔 On: ${noticeScope(f, p.groups)}, in repositories you can read.`
        : "🔕 Off: no direct message about your pull requests.",
      button(
        ACTION_IDS.notify,
        p.enabled ? "Turn off" : "Turn on",
        buttonValue({ name: "notify", change: { kind: "enabled", enabled: !p.enabled } }),
      ),
    ),
  ];
  // One block per group: Slack wants a block's action ids unique.
  for (const group of PERSONAL_EVENT_GROUPS) {
    const on = p.groups.includes(group);
    const groups = PERSONAL_EVENT_GROUPS.filter((g) => (g === group ? !on : p.groups.includes(g)));
    blocks.push(
      section(
        `${on ? "✅" : "▫️"} ${code(group)} events`,
        // The last group cannot be removed (turn the notices off instead).
        on && groups.length === 0
          ? undefined
          : button(
              ACTION_IDS.notify,
              on ? "Remove" : "Add",
              buttonValue({ name: "notify", change: { kind: "events", groups } }),
            ),
      ),
    );
  }
  const repos = model.repositories.slice(0, MAX_REPOS);
  for (const repo of repos) {
    const muted = p.muted.some((m) => m.equals(repo));
    blocks.push(
      section(
        `${code(repo.fullName)}: ${muted ? "muted" : "on"}`,
        button(
          ACTION_IDS.notify,
          muted ? "Unmute" : "Mute",
          buttonValue({ name: "notify", change: { kind: "repo", repo, muted: !muted } }),
        ),
      ),
    );
  }
  if (model.repositories.length > MAX_REPOS)
    blocks.push(
      context(
        `…and ${model.repositories.length - MAX_REPOS} more: ${code("/mq notify repo=<owner/repo> off")} mutes one.`,
      ),
    );
  return blocks;
}

/** `<#C123>` for a channel id; anything else is escaped text. */
function channel(id: string): string {
  return /^[CG][A-Z0-9]{2,40}$/.test(id) ? `<#${id}>` : escapeMrkdwn(id);
}
