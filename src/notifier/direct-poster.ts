import type { NotificationPoster } from "./chat.js";
import { parseDirectAddress } from "./personal-notices.js";

/**
 * A poster that also reaches people: an address `dm:<team>:<user>` (personal-notices.ts) is the
 * person's direct-message conversation with the app, opened once (`conversations.open`, which answers
 * the same conversation every time) and remembered; any other address is a channel, passed on as it is.
 */
export function directMessagePoster(
  poster: NotificationPoster,
  open: (slackUserId: string) => Promise<string>,
): NotificationPoster {
  const opened = new Map<string, Promise<string>>();
  const resolve = async (address: string): Promise<string> => {
    const person = parseDirectAddress(address);
    if (!person) return address;
    let channel = opened.get(address);
    if (!channel) {
      channel = open(person.slackUserId);
      opened.set(address, channel);
      // A failed open is tried again next time.
      channel.catch(() => opened.delete(address));
    }
    return channel;
  };
  return {
    async post(message) {
      return poster.post({ ...message, channel: await resolve(message.channel) });
    },
    async update(message) {
      await poster.update({ ...message, channel: await resolve(message.channel) });
    },
    async findPosted(channel, options) {
      return poster.findPosted(await resolve(channel), options);
    },
  };
}
