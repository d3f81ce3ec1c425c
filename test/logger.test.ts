import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, REDACTED } from "../src/logger.js";
import { SECRET_SETTING_NAMES } from "../src/settings/settings.js";

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger({ level: "debug" }, stream), text: () => lines.join("") };
}

describe("logger redaction", () => {
  const secrets = {
    token: "mq-token-123",
    privateKey: "-----BEGIN RSA PRIVATE KEY-----abc",
    signing: "slack-signing-secret-xyz",
    bearer: "Bearer gh-installation-token",
  };

  it("never writes tokens, keys, signing secrets or authorization headers", () => {
    const { logger, text } = capture();
    logger.info({ token: secrets.token }, "top level");
    logger.info(
      { req: { headers: { authorization: secrets.bearer, Authorization: secrets.bearer } } },
      "headers",
    );
    logger.info({ config: { github: { privateKey: secrets.privateKey, webhookSecret: "whsec" } } }, "nested");
    logger.info({ slack: { signingSecret: secrets.signing, botToken: "xoxb-1" } }, "slack");
    logger.info({ env: { MERGE_QUEUE_API_TOKEN: secrets.token, PRIVATE_KEY: secrets.privateKey } }, "env");
    logger.info({ a: { b: { c: { access_token: "gho_abc" } } } }, "deep");
    logger.info({ headers: { "x-slack-signature": "v0=abc", "x-hub-signature-256": "sha256=def" } }, "sigs");
    const out = text();
    for (const s of [...Object.values(secrets), "whsec", "xoxb-1", "gho_abc", "v0=abc", "sha256=def"]) {
      expect(out).not.toContain(s);
    }
    expect(out.split(REDACTED).length - 1).toBeGreaterThanOrEqual(12);
  });

  it("never writes the value of a secret setting of the table, wherever it is", () => {
    const { logger, text } = capture();
    expect(SECRET_SETTING_NAMES).toContain("MERGE_QUEUE_API_TOKEN");
    for (const name of SECRET_SETTING_NAMES) {
      logger.info({ [name]: `top-${name}`, env: { [name]: `env-${name}` } }, "settings");
    }
    const out = text();
    for (const name of SECRET_SETTING_NAMES) {
      expect(out).not.toContain(`top-${name}`);
      expect(out).not.toContain(`env-${name}`);
    }
  });

  it("keeps ordinary fields", () => {
    const { logger, text } = capture();
    logger.info({ repository: "acme/widgets", status: 200 }, "call done");
    const line = JSON.parse(text());
    expect(line).toMatchObject({ repository: "acme/widgets", status: 200, msg: "call done" });
  });
});

describe("logged errors", () => {
  /** What @octokit/webhooks throws for a webhook whose signature does not match: the webhook hangs on it. */
  function signatureError(payload: string) {
    const error = Object.assign(
      new Error("[@octokit/webhooks] signature does not match event payload and secret"),
      {
        event: { id: "d-1", name: "issue_comment", payload, signature: "sha256=00" },
        status: 400,
      },
    );
    return Object.assign(new AggregateError([error], error.message), { event: error.event });
  }

  it("keep a webhook's delivery id, event name and size, never its body or signature", () => {
    const { logger, text } = capture();
    const payload = JSON.stringify({ filler: "BODY-MARKER ".repeat(100_000) });
    const aggregate = signatureError(payload);
    logger.error(aggregate);
    logger.error({ err: aggregate.errors[0] }, "as Probot's error handler logs it");
    const out = text();
    expect(out).not.toContain("BODY-MARKER");
    expect(out).not.toContain("sha256=00");
    expect(out.length).toBeLessThan(8_000);
    const [first, second] = out
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const event = { id: "d-1", name: "issue_comment", bytes: Buffer.byteLength(payload) };
    expect(first.err).toMatchObject({
      type: "AggregateError",
      event,
      aggregateErrors: [{ event, status: 400 }],
    });
    expect(second.err).toMatchObject({ type: "Error", status: 400, event });
  });

  it("replace any other long text an error carries by its length", () => {
    const { logger, text } = capture();
    logger.error(
      { err: Object.assign(new Error("x".repeat(10_000)), { body: "y".repeat(10_000), code: "E1" }) },
      "big",
    );
    const { err } = JSON.parse(text());
    expect(err.body).toBe("[10000 characters]");
    expect(err.code).toBe("E1");
    expect(err.message).toMatch(/^x{4096}… \(10000 characters\)$/);
  });
});
