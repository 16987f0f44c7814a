/**
 * Detached JWS signatures over cluster-info, exactly as cluster-bootstrap's
 * `token/jws` computes them: HS256, protected header
 * `{"alg":"HS256","kid":"<token-id>"}`, key = the token secret only, payload
 * the raw kubeconfig string, serialised as `<b64url(header)>..<b64url(mac)>`.
 *
 * @module
 */

import { createHmac } from "node:crypto";
import { Buffer } from "node:buffer";
import { base64Url } from "../base/base64.ts";
import { constantTimeEqual } from "../base/constant_time.ts";

/** The protected header cluster-bootstrap signs with (keys in this order, no spaces). */
export function jwsHeader(tokenId: string): string {
  return `{"alg":"HS256","kid":${JSON.stringify(tokenId)}}`;
}

/**
 * `jws.ComputeDetachedSignature`: the detached compact JWS of `content`
 * under the token secret. An empty secret or empty content is accepted, as
 * upstream.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { computeDetachedSignature } from "./jws.ts";
 * assert.equal(
 *   computeDetachedSignature("payload", "abc123", "tokenSecret"),
 *   "eyJhbGciOiJIUzI1NiIsImtpZCI6ImFiYzEyMyJ9..QSxpUG7Q542CirTI2ECPSZjvBOJURUW5a7XqFpNI958",
 * );
 * ```
 */
export function computeDetachedSignature(
  content: string,
  tokenId: string,
  tokenSecret: string,
): string {
  return detachedSigner(content)(tokenId, tokenSecret);
}

/**
 * A signer for one payload and many tokens: the payload is encoded once, as
 * the bootstrapsigner signs the same kubeconfig for every token.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { computeDetachedSignature, detachedSigner } from "./jws.ts";
 * const sign = detachedSigner("payload");
 * assert.equal(sign("abc123", "tokenSecret"), computeDetachedSignature("payload", "abc123", "tokenSecret"));
 * ```
 */
export function detachedSigner(content: string): (tokenId: string, tokenSecret: string) => string {
  // The signing input is `<header>.<payload>`: the payload part is encoded to bytes once.
  const payload = Buffer.from(`.${base64Url(content)}`, "latin1");
  return (tokenId, tokenSecret) => {
    const header = headerOfSixChars(tokenId) ?? base64Url(jwsHeader(tokenId));
    // An ASCII secret is its own UTF-8: handed over as is, without a buffer per token.
    const key = ASCII.test(tokenSecret) ? tokenSecret : Buffer.from(tokenSecret, "utf8");
    const mac = createHmac("sha256", key)
      .update(header, "latin1")
      .update(payload)
      .digest("base64url");
    return `${header}..${mac}`;
  };
}

// deno-lint-ignore no-control-regex
const ASCII = /^[\x00-\x7f]*$/;

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
/** The header's first 21 bytes (`{"alg":"HS256","kid":`), whole base64 groups. */
const HEADER_HEAD = base64Url(jwsHeader("").slice(0, 21));

/**
 * `base64Url(jwsHeader(id))` for an ID of six printable ASCII characters
 * that JSON writes as they are (a token ID is six of `[a-z0-9]`): the 30
 * header bytes are the first 21, encoded once, and 9 that end with the ID.
 * Undefined for any other ID.
 */
function headerOfSixChars(id: string): string | undefined {
  if (id.length !== 6) return undefined;
  for (let i = 0; i < 6; i++) {
    const c = id.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return undefined;
  }
  // `"` + id + `"}`, three groups of three bytes.
  return HEADER_HEAD + group(0x22, id.charCodeAt(0), id.charCodeAt(1)) +
    group(id.charCodeAt(2), id.charCodeAt(3), id.charCodeAt(4)) +
    group(id.charCodeAt(5), 0x22, 0x7d);
}

function group(a: number, b: number, c: number): string {
  const bits = (a << 16) | (b << 8) | c;
  return BASE64URL[bits >> 18]! + BASE64URL[(bits >> 12) & 63]! + BASE64URL[(bits >> 6) & 63]! +
    BASE64URL[bits & 63]!;
}

/**
 * `jws.DetachedTokenIsValid`: recomputes the signature and compares it with
 * `detached` in constant time (upstream uses `==`; the result is the same).
 * The received header is never parsed, so no algorithm can be substituted.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { computeDetachedSignature, detachedTokenIsValid } from "./jws.ts";
 * const sig = computeDetachedSignature("payload", "abc123", "tokenSecret");
 * assert.equal(detachedTokenIsValid(sig, "payload", "abc123", "tokenSecret"), true);
 * assert.equal(detachedTokenIsValid(sig, "payload", "abc123", "otherSecret"), false);
 * ```
 */
export function detachedTokenIsValid(
  detached: string,
  content: string,
  tokenId: string,
  tokenSecret: string,
): boolean {
  // Lengths of well-formed signatures are public (fixed by the token ID).
  return constantTimeEqual(detached, computeDetachedSignature(content, tokenId, tokenSecret));
}
