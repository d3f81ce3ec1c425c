import { TsClock } from "./timestamps.js";
import type {
  Channel,
  EphemeralMessage,
  HomeView,
  RejectedResponse,
  ResponseRecord,
  SlackMessage,
  ThreadedMessage,
  User,
} from "./types.js";
import { UnfurlStore } from "./unfurls.js";
import { ViewStore } from "./views.js";

export interface BotIdentity {
  teamId: string;
  botUserId: string;
  botId: string;
  appId: string;
  botName: string;
}

/**
 * The workspace as the stand-in knows it: channels, users, messages (with threads), ephemeral messages
 * and responses that arrived at response URLs.
 *
 * Reading methods (`messages`, `thread`, `message`, `ephemerals`) return copies. Methods marked
 * "stand-in internal" hand out the live records; they exist for the Web API and response_url handlers.
 */
export class SlackState {
  /** Responses accepted at response URLs and immediate (ack) responses, oldest first. */
  readonly responses: ResponseRecord[] = [];
  /** What chat.unfurl attached to links (unfurls.ts). */
  readonly unfurls = new UnfurlStore();
  /** Trigger ids and the modals opened with them (views.ts). */
  readonly views = new ViewStore();
  /** POSTs to response URLs that were refused (unknown or used-up URL, invalid payload, ...). */
  readonly rejectedResponses: RejectedResponse[] = [];

  private readonly channelsById = new Map<string, Channel>();
  private readonly usersById = new Map<string, User>();
  /** Per channel, every message (top level and replies) by ts, in ts order. */
  private readonly messagesByChannel = new Map<string, Map<string, SlackMessage>>();
  private readonly ephemeralList: EphemeralMessage[] = [];
  private readonly homeViews = new Map<string, HomeView>();
  private readonly clock = new TsClock();

  constructor(readonly identity: BotIdentity) {
    this.addUser({ id: identity.botUserId, name: identity.botName, isBot: true });
  }

  addChannel(channel: { id: string; name: string; botIsMember?: boolean; isPrivate?: boolean }): Channel {
    const record: Channel = {
      id: channel.id,
      name: channel.name,
      botIsMember: channel.botIsMember ?? true,
      isPrivate: channel.isPrivate ?? false,
    };
    this.channelsById.set(record.id, record);
    if (!this.messagesByChannel.has(record.id)) this.messagesByChannel.set(record.id, new Map());
    return { ...record };
  }

  /**
   * The app's direct-message conversation with a person (`D` + the user id's rest), made the first time
   * it is opened, as `conversations.open` does; undefined for an unknown user.
   */
  openDirect(userId: string): Channel | undefined {
    if (!this.usersById.has(userId)) return undefined;
    const existing = this.directChannel(userId);
    if (existing) return existing;
    const id = `D${userId.replace(/^[UW]/, "")}`;
    const record: Channel = { id, name: userId, botIsMember: true, isPrivate: false, im: { user: userId } };
    this.channelsById.set(id, record);
    this.messagesByChannel.set(id, new Map());
    return { ...record };
  }

  /** A person's direct-message conversation with the app, if it was opened. */
  directChannel(userId: string): Channel | undefined {
    const found = [...this.channelsById.values()].find((c) => c.im?.user === userId);
    return found ? { ...found } : undefined;
  }

  /** The Home tab last published for a person. */
  homeView(userId: string): HomeView | undefined {
    const view = this.homeViews.get(userId);
    return view ? structuredClone(view) : undefined;
  }

  /** stand-in internal: `views.publish`. */
  publishHome(userId: string, view: HomeView["view"]): HomeView {
    const previous = this.homeViews.get(userId);
    const record: HomeView = {
      user: userId,
      view,
      id: previous?.id ?? `V${String(this.homeViews.size + 1).padStart(8, "0")}`,
      publishes: (previous?.publishes ?? 0) + 1,
      at: Date.now(),
    };
    this.homeViews.set(userId, record);
    return record;
  }

  /** The bot joins or leaves (is removed from) a channel. */
  setBotMembership(channelId: string, isMember: boolean): void {
    const channel = this.channelsById.get(channelId);
    if (!channel) throw new Error(`Slack stand-in: unknown channel ${channelId}`);
    channel.botIsMember = isMember;
  }

  channel(id: string): Channel | undefined {
    const channel = this.channelsById.get(id);
    return channel ? { ...channel } : undefined;
  }

  channels(): Channel[] {
    return [...this.channelsById.values()].map((channel) => ({ ...channel }));
  }

  addUser(user: { id: string; name: string; realName?: string; isBot?: boolean; tz?: string }): User {
    const record: User = {
      id: user.id,
      name: user.name,
      realName: user.realName ?? user.name,
      isBot: user.isBot ?? false,
      tz: user.tz ?? "America/Los_Angeles",
    };
    this.usersById.set(record.id, record);
    return { ...record };
  }

  user(id: string): User | undefined {
    const user = this.usersById.get(id);
    return user ? { ...user } : undefined;
  }

  /** A message written by a person (or anyone but the bot), e.g. to check `cant_update_message`. */
  addMessage(message: {
    channel: string;
    user: string;
    text: string;
    blocks?: unknown[];
    threadTs?: string;
  }): SlackMessage {
    if (!this.channelsById.has(message.channel)) {
      throw new Error(`Slack stand-in: unknown channel ${message.channel}`);
    }
    let threadTs: string | undefined;
    if (message.threadTs !== undefined) {
      const parent = this.find(message.channel, message.threadTs);
      if (!parent) throw new Error(`Slack stand-in: no message ${message.threadTs} in ${message.channel}`);
      threadTs = parent.thread_ts ?? parent.ts;
    }
    const stored = this.insert({
      channel: message.channel,
      ts: this.nextTs(),
      text: message.text,
      ...(message.blocks ? { blocks: message.blocks } : {}),
      user: message.user,
      ...(threadTs ? { thread_ts: threadTs } : {}),
      missingFallback: false,
      origin: "test",
    });
    return structuredClone(stored);
  }

  /** Top-level messages of a channel, oldest first, each with its replies (oldest first). */
  messages(channel: string): ThreadedMessage[] {
    return this.channelMessages(channel)
      .filter((message) => message.thread_ts === undefined)
      .map((message) => ({
        ...structuredClone(message),
        replies: this.repliesOf(channel, message.ts).map((reply) => structuredClone(reply)),
      }));
  }

  /** A thread: its parent then its replies, oldest first; `ts` may be the parent's or a reply's. Empty if unknown. */
  thread(channel: string, ts: string): SlackMessage[] {
    const message = this.find(channel, ts);
    if (!message) return [];
    const parentTs = message.thread_ts ?? message.ts;
    const parent = this.find(channel, parentTs);
    const replies = this.repliesOf(channel, parentTs);
    return [...(parent ? [parent] : []), ...replies].map((entry) => structuredClone(entry));
  }

  /** One message (top level or reply). */
  message(channel: string, ts: string): SlackMessage | undefined {
    const message = this.find(channel, ts);
    return message ? structuredClone(message) : undefined;
  }

  /** Ephemeral messages shown in a channel (to one user, if given), oldest first. */
  ephemerals(channel: string, user?: string): EphemeralMessage[] {
    return this.ephemeralList
      .filter((entry) => entry.channel === channel && (user === undefined || entry.user === user))
      .map((entry) => structuredClone(entry));
  }

  // --- stand-in internal -------------------------------------------------------------------------

  /** Message timestamps follow this clock (epoch milliseconds) from now on, instead of the wall clock. */
  useClock(now: () => number): void {
    this.clock.now = now;
  }

  nextTs(): string {
    return this.clock.next();
  }

  insert(message: SlackMessage): SlackMessage {
    let messages = this.messagesByChannel.get(message.channel);
    if (!messages) {
      messages = new Map();
      this.messagesByChannel.set(message.channel, messages);
    }
    messages.set(message.ts, message);
    return message;
  }

  find(channel: string, ts: string): SlackMessage | undefined {
    return this.messagesByChannel.get(channel)?.get(ts);
  }

  remove(channel: string, ts: string): boolean {
    return this.messagesByChannel.get(channel)?.delete(ts) ?? false;
  }

  /** Every message of a channel (top level and replies), oldest first. */
  channelMessages(channel: string): SlackMessage[] {
    return [...(this.messagesByChannel.get(channel)?.values() ?? [])];
  }

  repliesOf(channel: string, parentTs: string): SlackMessage[] {
    return this.channelMessages(channel).filter((message) => message.thread_ts === parentTs);
  }

  addEphemeral(ephemeral: EphemeralMessage): EphemeralMessage {
    this.ephemeralList.push(ephemeral);
    return ephemeral;
  }

  findEphemeral(channel: string, messageTs: string): EphemeralMessage | undefined {
    return this.ephemeralList.find((entry) => entry.channel === channel && entry.message_ts === messageTs);
  }
}
