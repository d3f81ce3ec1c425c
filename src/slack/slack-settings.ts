import { type PostPace, SLACK_POST_PACE } from "./slack-holds.js";
import type { PosterOptions } from "./slack-poster.js";

/** The Web API client's options every Slack poster is made with (its retries are the tests' to shorten). */
export function slackPosterOptions(
  slack: { botToken: string; apiUrl: string },
  options: { slackBot?: { retries?: number } | undefined },
): PosterOptions {
  return {
    token: slack.botToken,
    apiUrl: slack.apiUrl,
    ...(options.slackBot?.retries !== undefined ? { retries: options.slackBot.retries } : {}),
  };
}

/** Each channel's pace for posts (default Slack's); false: as fast as Slack answers (tests). */
export function postPace(options: { slackPace?: PostPace | false | undefined }): PostPace | false {
  return options.slackPace === false ? false : (options.slackPace ?? SLACK_POST_PACE);
}
