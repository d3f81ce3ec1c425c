import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { WebhookRequest, WebhookTransport } from "../../stand-ins/github/index.js";

/** A webhook for the sender process to POST. */
export interface SenderRequest extends WebhookRequest {
  id: number;
}

/** Its answer, timed in the sender process; or why it failed (`TimeoutError` after GitHub's 10 s). */
export type SenderReply =
  | { id: number; status: number; text: string; ms: number }
  | { id: number; error: string; message: string };

/** The sender process (sender.ts) as the stand-in's webhook transport, with each answer's time. */
export interface ProcessSender {
  transport: WebhookTransport;
  /** Ms from sending to answer, by delivery id, as the sender timed it. */
  answeredIn: Map<string, number>;
  close(): void;
}

export function startProcessSender(): ProcessSender {
  const child = fork(fileURLToPath(new URL("./sender.ts", import.meta.url)), [], {
    execArgv: ["--import", import.meta.resolve("tsx")],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const waiting = new Map<number, { resolve: (r: SenderReply) => void; delivery: string }>();
  const answeredIn = new Map<string, number>();
  let next = 0;
  child.on("message", (reply: SenderReply) => {
    const pending = waiting.get(reply.id);
    waiting.delete(reply.id);
    if (pending && "ms" in reply) answeredIn.set(pending.delivery, reply.ms);
    pending?.resolve(reply);
  });
  const transport: WebhookTransport = (request) =>
    new Promise((resolve, reject) => {
      const id = next++;
      const delivery = request.headers["x-github-delivery"] ?? String(id);
      waiting.set(id, {
        delivery,
        resolve: (reply) => {
          if ("status" in reply) return resolve({ status: reply.status, text: reply.text });
          const error = new Error(reply.message);
          error.name = reply.error;
          reject(error);
        },
      });
      child.send({ id, ...request } satisfies SenderRequest);
    });
  return { transport, answeredIn, close: () => child.disconnect() };
}
