import { sentence, type TextFormat } from "../wording/description.js";
import { clip, cut, plural } from "../wording/words.js";
import { defineCommand, slackAccount } from "./command.js";
import { alone } from "./grammar/arguments.js";
import { subscribe, subscriptionScope } from "./subscribe.js";

interface Listed {
  /** "owner/repo", as subscribed. */
  repository: string;
  branchGlob: string | null;
  groups: string[];
  digest?: boolean;
}

export interface SubscriptionsResult {
  name: "subscriptions";
  subscriptions: Listed[];
}

/** subscriptions: what this Slack channel is subscribed to. */
export const subscriptions = defineCommand<{ name: "subscriptions" }, SubscriptionsResult>({
  name: "subscriptions",
  summary: "list this channel's subscriptions",
  permission: "none",
  needsLink: false,
  changes: false,
  grammar: { slack: alone("subscriptions") },
  async execute(_command, actor, ports) {
    const { slack, account } = slackAccount(actor, ports, "subscriptions");
    const listed = await account.store.listSubscriptions({ channelId: slack.channelId });
    return {
      name: "subscriptions",
      subscriptions: listed.map((s) => ({
        repository: s.repository.fullName,
        branchGlob: s.branchGlob,
        groups: s.groups,
        digest: s.digest?.cadence === "weekly",
      })),
    };
  },
  describe({ subscriptions: listed }) {
    if (!listed.length) {
      const usage = subscribe.grammar.slack?.usage ?? "subscribe";
      return sentence(
        (f) => `This channel has no subscriptions. Subscribe with ${f.code(`${f.invocation} ${usage}`)}.`,
      );
    }
    const line = (f: TextFormat, s: Listed) =>
      `${f.code(clip(s.repository, 141))}: ${subscriptionScope(f, s.groups, s.branchGlob, s.digest)}`;
    const few = cut(listed, 20);
    return {
      parts: [
        {
          kind: "list",
          name: "subscriptions",
          heading: (f) => `${f.bold("Subscriptions of this channel")} (${listed.length})`,
          items: listed.map((s) => (f) => line(f, s)),
          more: (n) => () => `…and ${plural(n, "more subscription", "more subscriptions")}`,
        },
      ],
      summary: (f) =>
        `This channel is subscribed to ${few.shown.map((s) => line(f, s)).join("; ")}${few.more ? `; and ${few.more} more` : ""}.`,
    };
  },
});
