import {
  createPrivateKey,
  createPublicKey,
  generateKeyPair,
  type KeyObject,
  randomBytes,
  verify,
} from "node:crypto";
import { promisify } from "node:util";
import { HttpError } from "./http.js";

/** The app's RSA 2048 key pair; the private key is PKCS#1 PEM ("BEGIN RSA PRIVATE KEY"), as Probot expects. */
export async function generateAppKeyPair(): Promise<{ privateKey: string; publicKey: KeyObject }> {
  const { privateKey } = await promisify(generateKeyPair)("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
  return { privateKey, publicKey: createPublicKey(privateKey) };
}

/** A given RSA private key (PKCS#1 or PKCS#8 PEM), handed out as PKCS#1 PEM. */
export function importAppPrivateKey(pem: string): { privateKey: string; publicKey: KeyObject } {
  const key = createPrivateKey(pem.replace(/\\n/g, "\n"));
  if (key.asymmetricKeyType !== "rsa") throw new Error("the app's private key must be an RSA key");
  const privateKey = key.export({ type: "pkcs1", format: "pem" }).toString();
  return { privateKey, publicKey: createPublicKey(key) };
}

/** Clock skew tolerated on `iat` and `exp`, seconds. */
export const JWT_SKEW_SECONDS = 60;
/** GitHub's longest app JWT lifetime, seconds. */
export const JWT_MAX_LIFETIME_SECONDS = 600;

const undecodable = (): HttpError => new HttpError(401, "A JSON web token could not be decoded");

// The messages GitHub answers with; @octokit/auth-app recognises them and retries with a corrected clock.
const EXP_IN_PAST =
  "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires";
const EXP_TOO_FAR = "'Expiration time' claim ('exp') is too far in the future";
const IAT_BAD =
  "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued";

function decodeJson(part: string): Record<string, unknown> {
  const value = JSON.parse(Buffer.from(part, "base64url").toString("utf8")) as unknown;
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error("not an object");
  return value as Record<string, unknown>;
}

/**
 * Verifies an app JWT like GitHub: RS256 signed by the app's key, `iss` the app id (number or string),
 * `iat` not in the future, `exp` in the future and at most 10 minutes after `iat` (60 s skew both ways).
 * Throws the 401 GitHub would answer.
 */
export function verifyAppJwt(
  jwt: string,
  publicKey: KeyObject,
  appId: number,
  nowSeconds = Math.floor(Date.now() / 1000),
): void {
  const parts = jwt.split(".");
  if (parts.length !== 3) throw undecodable();
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  let header: Record<string, unknown>;
  let payload: Record<string, unknown>;
  try {
    header = decodeJson(headerPart);
    payload = decodeJson(payloadPart);
  } catch {
    throw undecodable();
  }
  if (header.alg !== "RS256") throw undecodable();
  const signed = verify(
    "RSA-SHA256",
    Buffer.from(`${headerPart}.${payloadPart}`),
    publicKey,
    Buffer.from(signaturePart, "base64url"),
  );
  if (!signed) throw undecodable();
  if (String(payload.iss) !== String(appId)) throw undecodable();
  const { iat, exp } = payload;
  if (typeof iat !== "number" || !Number.isInteger(iat) || iat > nowSeconds + JWT_SKEW_SECONDS) {
    throw new HttpError(401, IAT_BAD);
  }
  if (typeof exp !== "number" || exp <= nowSeconds - JWT_SKEW_SECONDS) throw new HttpError(401, EXP_IN_PAST);
  if (
    exp - iat > JWT_MAX_LIFETIME_SECONDS ||
    exp > nowSeconds + JWT_MAX_LIFETIME_SECONDS + JWT_SKEW_SECONDS
  ) {
    throw new HttpError(401, EXP_TOO_FAR);
  }
}

/** Whether an Authorization credential looks like a JWT (three base64url parts) rather than a token. */
export function looksLikeJwt(credential: string): boolean {
  return /^[\w-]+\.[\w-]+\.[\w-]*$/.test(credential);
}

const BASE62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A GitHub-style token: prefix + 36 base62 characters. */
export function newToken(prefix: "ghs_" | "ghu_"): string {
  const bytes = randomBytes(36);
  let out = prefix;
  for (const b of bytes) out += BASE62[b % BASE62.length];
  return out;
}

export interface InstallationToken {
  token: string;
  installationId: number;
  expiresAt: Date;
  permissions: Record<string, string>;
  /** Restricted to these repository ids when the token was asked for specific repositories. */
  repositoryIds: number[] | null;
}

/** Installation access tokens (`ghs_...`), valid one hour like GitHub's. */
export class InstallationTokens {
  private readonly tokens = new Map<string, InstallationToken>();

  issue(
    installationId: number,
    permissions: Record<string, string>,
    repositoryIds: number[] | null,
  ): InstallationToken {
    const issued: InstallationToken = {
      token: newToken("ghs_"),
      installationId,
      expiresAt: new Date(Date.now() + 3600_000),
      permissions,
      repositoryIds,
    };
    this.tokens.set(issued.token, issued);
    return issued;
  }

  find(token: string): InstallationToken | undefined {
    const found = this.tokens.get(token);
    if (!found) return undefined;
    if (found.expiresAt.getTime() <= Date.now()) {
      this.tokens.delete(token);
      return undefined;
    }
    return found;
  }

  revoke(token: string): boolean {
    return this.tokens.delete(token);
  }
}
