// The GitHub-load benchmark's webhook sender, forked by benchmark.ts: it POSTs the webhooks the GitHub
// stand-in signed, from a process of its own as GitHub's Hookshot sends from machines of its own, and
// times each from its sending to Yardmaster's answer. Sending 200 at once costs CPU that, in one
// process, Yardmaster's answers would wait for.

import type { SenderReply, SenderRequest } from "./sender-protocol.js";

const reply = (message: SenderReply) => process.send?.(message);

process.on("message", (message: SenderRequest) => {
  const started = performance.now();
  fetch(message.url, {
    method: "POST",
    headers: message.headers,
    body: message.body,
    signal: AbortSignal.timeout(10_000),
  })
    .then(async (response) => {
      const text = await response.text();
      reply({ id: message.id, status: response.status, text, ms: performance.now() - started });
    })
    .catch((error: unknown) => {
      const name = error instanceof Error ? error.name : "Error";
      reply({ id: message.id, error: name, message: String((error as Error)?.message ?? error) });
    });
});
// The benchmark ends: so does the sender.
process.on("disconnect", () => process.exit(0));
