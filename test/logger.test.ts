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
