import http from "node:http";
import https from "node:https";
// The deadline is the real clock's, as the socket it watches is (a test's fake timers replace the global
// setTimeout only; AbortSignal.timeout, which this replaces, ran on the real clock too).
import { clearTimeout, setTimeout } from "node:timers";

/** One request as the transport sends it: the whole answer is read before it resolves. */
export interface SendInit {
  method: string;
  headers: Record<string, string>;
  body?: string | undefined;
  /** The attempt fails with a TimeoutError when the whole answer has not come within this. */
  timeoutMs: number;
}

/** An answer's headers, read by name (any case). */
export interface AnswerHeaders {
  get(name: string): string | null;
}

export interface SendAnswer {
  status: number;
  headers: AnswerHeaders;
  text: string;
}

/** Sends one request; rejects on a network failure, or with a TimeoutError (its `name`) after timeoutMs. */
export type HttpSend = (url: URL, init: SendInit) => Promise<SendAnswer>;

/** The largest answer read: a bigger one is a network failure, not memory held (a page of 100 events is far less). */
export const MOST_ANSWER_BYTES = 16 * 1024 * 1024;

/**
 * Connections kept open between requests (keep-alive): a quiet repository's read is one request on a
 * connection already open. Idle ones close after IDLE_SOCKET_MS, before a server's own idle limit is likely.
 */
const IDLE_SOCKET_MS = 4_000;
const agents = {
  "http:": new http.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS, maxFreeSockets: 64 }),
  "https:": new https.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS, maxFreeSockets: 64 }),
};

/**
 * The Mergify client's HTTP, on Node's own http and https modules with keep-alive: a quiet repository's
 * read costs less than half the processor time the global fetch's does (undici's streams, abort signals and
 * resource timings; docs/operations.md, "Benchmarks"). Redirects are never followed: the token must never
 * travel to another address.
 */
export const nodeHttpSend: HttpSend = (url, init) =>
  new Promise<SendAnswer>((resolve, reject) => {
    const secure = url.protocol === "https:";
    const request = (secure ? https : http).request({
      // The URL's parts as given, not parsed again (an IPv6 host without its brackets).
      hostname: url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname,
      port: url.port,
      path: `${url.pathname}${url.search}`,
      method: init.method,
      headers: headerList(url, init),
      agent: agents[secure ? "https:" : "http:"],
    });
    const timer = setTimeout(() => request.destroy(timeoutError(init.timeoutMs)), init.timeoutMs);
    const fail = (error: Error) => {
      clearTimeout(timer);
      reject(error);
    };
    request.on("error", fail);
    request.on("response", (answer) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      answer.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > MOST_ANSWER_BYTES)
          request.destroy(new Error(`the answer is larger than ${MOST_ANSWER_BYTES} bytes`));
        else chunks.push(chunk);
      });
      answer.on("error", fail);
      answer.on("end", () => {
        clearTimeout(timer);
        const text =
          chunks.length === 1
            ? (chunks[0] as Buffer).toString("utf8")
            : Buffer.concat(chunks).toString("utf8");
        resolve({ status: answer.statusCode ?? 0, headers: headersOf(answer.headers), text });
      });
    });
    request.end(init.body);
  });

/**
 * The request's headers as a flat list of names and values, the Host first: Node checks and writes such a
 * list as it is, without first keeping each header by name (a sixth less processor time a request).
 */
function headerList(url: URL, init: SendInit): string[] {
  const list = ["host", url.host];
  for (const name in init.headers) list.push(name, init.headers[name] as string);
  if (init.body !== undefined) list.push("content-length", String(Buffer.byteLength(init.body)));
  return list;
}

function timeoutError(ms: number): Error {
  const error = new Error(`no answer within ${ms} ms`);
  error.name = "TimeoutError";
  return error;
}

function headersOf(headers: http.IncomingHttpHeaders): AnswerHeaders {
  return {
    get(name) {
      const value = headers[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(", ") : value;
    },
  };
}
