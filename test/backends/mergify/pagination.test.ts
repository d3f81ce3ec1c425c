import nock from "nock";
import { describe, expect, it } from "vitest";
import { type LogEvent, MergeQueueError, MergeQueueErrorCode } from "../../../src/backends/mergify/index.js";
import {
  commandQueueEvent,
  eventsBody,
  makeClient,
  ORIGIN,
  pauseCreateEvent,
  queueEnterEvent,
  queueLeaveEvent,
  queueMergedEvent,
  REPO,
  REPO_PATH,
} from "./fixtures.js";

const LOGS = `${REPO_PATH}/logs`;
const pageUrl = (cursor: string) => `${ORIGIN}${LOGS}?cursor=${cursor}&per_page=2`;

async function collect(events: AsyncIterable<LogEvent>): Promise<LogEvent[]> {
  const all: LogEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

describe("events pagination", () => {
  it("follows next across pages with odd Link headers, using the URLs as given", async () => {
    const scope = nock(ORIGIN)
      .get(LOGS)
      .query({ per_page: "2", received_from: "2025-11-05T13:00:00.000Z" })
      .reply(200, eventsBody([queueEnterEvent(1), queueLeaveEvent(2)], 2), {
        Link: `<${pageUrl("c2")}> ;rel=next,<${pageUrl("c9")}>;rel=last`,
      })
      .get(LOGS)
      .query({ cursor: "c2", per_page: "2" })
      .reply(200, eventsBody([queueMergedEvent(3), pauseCreateEvent(4)], 2), {
        Link: `<${pageUrl("c1")}>; rel="prev first", <${pageUrl("c3")}>; title="more"; rel="next last"`,
      })
      .get(LOGS)
      .query({ cursor: "c3", per_page: "2" })
      .reply(200, eventsBody([commandQueueEvent(5)], 2), {
        Link: `<${pageUrl("c2")}>; rel="prev", <${pageUrl("c1")}>; rel="first"`,
      });
    const events = await collect(
      makeClient().iterateEvents(REPO, { perPage: 2, receivedFrom: "2025-11-05T13:00:00Z" }),
    );
    expect(events.map((event) => event.id)).toEqual([1, 2, 3, 4, 5]);
    expect(scope.isDone()).toBe(true);
  });

  it("gives next and prev of a page as absolute URLs", async () => {
    nock(ORIGIN)
      .get(LOGS)
      .reply(200, eventsBody([queueEnterEvent()], 2), {
        Link: `<${pageUrl("p")}>; rel="prev", <${pageUrl("n")}>; rel="next last"`,
      });
    const page = await makeClient().getEventsPage(REPO, {});
    expect(page.next).toBe(pageUrl("n"));
    expect(page.prev).toBe(pageUrl("p"));
  });

  it("resolves a relative Link URL against the request", async () => {
    nock(ORIGIN)
      .get(LOGS)
      .reply(200, eventsBody([]), { Link: `<${LOGS}?cursor=r&per_page=2>; rel="next"` });
    const page = await makeClient().getEventsPage(REPO, {});
    expect(page.next).toBe(pageUrl("r"));
  });

  it("has no next on a single page without a Link header", async () => {
    const scope = nock(ORIGIN)
      .get(LOGS)
      .reply(200, eventsBody([queueEnterEvent(1), queueLeaveEvent(2)]));
    const page = await makeClient().getEventsPage(REPO, {});
    expect(page.next).toBeNull();
    expect(page.prev).toBeNull();

    nock(ORIGIN)
      .get(LOGS)
      .reply(200, eventsBody([queueEnterEvent(1), queueLeaveEvent(2)]));
    const events = await collect(makeClient().iterateEvents(REPO, {}));
    expect(events.map((event) => event.id)).toEqual([1, 2]);
    expect(scope.isDone()).toBe(true);
  });

  it("reads a page from a Link URL on the same origin", async () => {
    const scope = nock(ORIGIN)
      .get(LOGS)
      .query({ cursor: "c2", per_page: "2" })
      .reply(200, eventsBody([queueMergedEvent()], 2));
    const page = await makeClient().getEventsPageAt(pageUrl("c2"));
    expect(page.events).toHaveLength(1);
    expect(scope.isDone()).toBe(true);
  });

  it.each([
    ["another host", "https://evil.example.com/v1/repos/acme/widgets/logs?cursor=x"],
    ["another scheme", "http://api.mergify.com/v1/repos/acme/widgets/logs?cursor=x"],
    ["another port", "https://api.mergify.com:8443/v1/repos/acme/widgets/logs?cursor=x"],
    ["a relative URL", "/v1/repos/acme/widgets/logs?cursor=x"],
  ])("refuses a page URL on %s, sending nothing", async (_, url) => {
    const scope = nock(/.*/).get(/.*/).reply(200, eventsBody([]));
    const error = await makeClient()
      .getEventsPageAt(url)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MergeQueueError);
    expect((error as MergeQueueError).code).toBe(MergeQueueErrorCode.InvalidInput);
    expect((error as MergeQueueError).field).toBe("nextUrl");
    expect(scope.isDone()).toBe(false);
  });

  it("stops iterating when the service links to another origin", async () => {
    nock(ORIGIN)
      .get(LOGS)
      .reply(200, eventsBody([queueEnterEvent(1)]), {
        Link: '<https://evil.example.com/v1/repos/acme/widgets/logs?cursor=x>; rel="next"',
      });
    const seen: number[] = [];
    const error = await (async () => {
      for await (const event of makeClient().iterateEvents(REPO, {})) seen.push(event.id);
    })().catch((e: unknown) => e);
    expect(seen).toEqual([1]);
    expect((error as MergeQueueError).code).toBe(MergeQueueErrorCode.MalformedResponse);
    expect((error as MergeQueueError).field).toBe("Link");
  });

  it("stops iterating when the pages loop", async () => {
    nock(ORIGIN)
      .get(LOGS)
      .reply(200, eventsBody([queueEnterEvent(1)]), { Link: `<${pageUrl("a")}>; rel="next"` })
      .get(LOGS)
      .query({ cursor: "a", per_page: "2" })
      .reply(200, eventsBody([queueEnterEvent(2)]), { Link: `<${pageUrl("b")}>; rel="next"` })
      .get(LOGS)
      .query({ cursor: "b", per_page: "2" })
      .reply(200, eventsBody([queueEnterEvent(3)]), { Link: `<${pageUrl("a")}>; rel="next"` });
    const error = await collect(makeClient().iterateEvents(REPO, {})).catch((e: unknown) => e);
    expect((error as MergeQueueError).code).toBe(MergeQueueErrorCode.MalformedResponse);
  });
});
