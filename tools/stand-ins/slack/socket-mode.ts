import { randomBytes, randomUUID } from "node:crypto";
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";

/**
 * Socket Mode as Slack runs it: the app calls `apps.connections.open` with its app-level token
 * (`xapp-…`), gets a one-time `wss://` URL (here `ws://`), connects, and receives a `hello`; Slack then
 * sends each slash command, interaction and event as an envelope to one of the app's connections and
 * waits for its acknowledgement by `envelope_id` (with a `payload` for an immediate response). When
 * the app has a connection, Slack ignores the request URLs.
 */

/** The stand-in's app-level token unless another is given. */
export const STAND_IN_APP_TOKEN = "xapp-1-A0YARDMASTER-0000000000000-standin";
const PATH = "/socket-mode";

export type EnvelopeType = "slash_commands" | "interactive" | "events_api";

export interface Ack {
  envelope_id: string;
  payload?: unknown;
}

export class SocketModeHub {
  readonly #wss = new WebSocketServer({ noServer: true });
  readonly #tickets = new Set<string>();
  readonly #sockets: WebSocket[] = [];
  readonly #waiting = new Map<string, (ack: Ack) => void>();
  #next = 0;
  /** Every envelope sent, oldest first. */
  readonly sent: { envelopeId: string; type: EnvelopeType; connection: number; acked: boolean }[] = [];

  constructor(
    private readonly baseUrl: () => string,
    private readonly appId: string,
  ) {}

  /** Takes over the HTTP server's upgrades on the Socket Mode path. */
  attach(server: Server): void {
    server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const url = new URL(req.url ?? "/", "http://stand-in");
      const ticket = url.searchParams.get("ticket") ?? "";
      if (url.pathname !== PATH || !this.#tickets.delete(ticket)) {
        socket.end("HTTP/1.1 401 Unauthorized\r\n\r\n");
        return;
      }
      this.#wss.handleUpgrade(req, socket, head, (ws) => this.#connected(ws));
    });
  }

  /** apps.connections.open: a URL good for one connection. */
  open(): string {
    const ticket = randomBytes(16).toString("hex");
    this.#tickets.add(ticket);
    return `${this.baseUrl().replace(/^http/, "ws")}${PATH}?ticket=${ticket}`;
  }

  get connections(): number {
    return this.#sockets.length;
  }

  #connected(ws: WebSocket): void {
    this.#sockets.push(ws);
    ws.on("message", (data) => {
      let ack: Ack;
      try {
        ack = JSON.parse(String(data)) as Ack;
      } catch {
        return;
      }
      const waiting = typeof ack.envelope_id === "string" ? this.#waiting.get(ack.envelope_id) : undefined;
      if (waiting) waiting(ack);
    });
    ws.on("close", () => {
      const at = this.#sockets.indexOf(ws);
      if (at >= 0) this.#sockets.splice(at, 1);
    });
    ws.send(
      JSON.stringify({
        type: "hello",
        num_connections: this.#sockets.length,
        debug_info: { host: "stand-in", approximate_connection_time: 18060 },
        connection_info: { app_id: this.appId },
      }),
    );
  }

  /**
   * Sends one envelope to one connection (in turn, or the one named) and resolves with its
   * acknowledgement; rejects when none comes within `timeoutMs`.
   */
  send(
    type: EnvelopeType,
    payload: unknown,
    options: { timeoutMs: number; connection?: number; retryAttempt?: number },
  ): Promise<Ack> {
    if (this.#sockets.length === 0)
      return Promise.reject(new Error("Slack stand-in: no Socket Mode connection"));
    const index = options.connection ?? this.#next++ % this.#sockets.length;
    const ws = this.#sockets[index % this.#sockets.length] as WebSocket;
    const envelopeId = randomUUID();
    const record = { envelopeId, type, connection: index, acked: false };
    this.sent.push(record);
    return new Promise<Ack>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(envelopeId);
        reject(
          new Error(
            `Slack stand-in: no acknowledgement of envelope ${envelopeId} in ${options.timeoutMs} ms`,
          ),
        );
      }, options.timeoutMs);
      this.#waiting.set(envelopeId, (ack) => {
        clearTimeout(timer);
        this.#waiting.delete(envelopeId);
        record.acked = true;
        resolve(ack);
      });
      ws.send(
        JSON.stringify({
          envelope_id: envelopeId,
          type,
          payload,
          accepts_response_payload: type !== "events_api",
          ...(type === "events_api" ? { retry_attempt: options.retryAttempt ?? 0, retry_reason: "" } : {}),
        }),
      );
    });
  }

  close(): void {
    for (const ws of this.#sockets) ws.terminate();
    this.#wss.close();
  }
}

/** What an HTTP delivery's body becomes in an envelope: its type and payload. */
export function envelopeOf(body: string, contentType: string): { type: EnvelopeType; payload: unknown } {
  if (contentType === "application/json") return { type: "events_api", payload: JSON.parse(body) };
  const form = new URLSearchParams(body);
  const payload = form.get("payload");
  if (payload !== null) return { type: "interactive", payload: JSON.parse(payload) };
  return { type: "slash_commands", payload: Object.fromEntries(form) };
}
