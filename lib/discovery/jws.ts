/**
 * Detached JWS signatures over cluster-info, exactly as cluster-bootstrap's
 * `token/jws` computes them: HS256, protected header
 * `{"alg":"HS256","kid":"<token-id>"}`, key = the token secret only, payload
 * the raw kubeconfig string, serialised as `<b64url(header)>..<b64url(mac)>`.
 *
 * @module
 */

import * as nodeCrypto from "node:crypto";
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
  // HMAC's inner block (key ^ ipad), the signing input after it; the outer block (key ^
  // opad) and the inner hash: made when first needed, then only key and ID change.
  let inner: Buffer | undefined;
  let outer: Buffer | undefined;
  const oneShotHash = hashFunction();
  return (tokenId, tokenSecret) => {
    if (
      oneShotHash !== undefined && isSixCharId(tokenId) && tokenSecret.length <= BLOCK &&
      ASCII.test(tokenSecret)
    ) {
      // A token: HMAC-SHA256 by its definition (RFC 2104) over two one-shot hashes, without
      // an Hmac object per token. An ASCII secret of at most a block is its own key block.
      if (inner === undefined || outer === undefined) {
        inner = Buffer.alloc(BLOCK + HEADER_CHARS + payload.length);
        inner.write(HEADER_HEAD, BLOCK, "latin1");
        payload.copy(inner, BLOCK + HEADER_CHARS);
        outer = Buffer.alloc(BLOCK + 32);
      }
      inner.set(IPAD);
      outer.set(OPAD);
      for (let i = 0; i < tokenSecret.length; i++) {
        const c = tokenSecret.charCodeAt(i);
        inner[i] = 0x36 ^ c;
        outer[i] = 0x5c ^ c;
      }
      writeHeaderTail(inner, BLOCK + HEADER_HEAD.length, tokenId);
      outer.set(oneShotHash("sha256", inner, "buffer"), BLOCK);
      const header = inner.toString("latin1", BLOCK, BLOCK + HEADER_CHARS);
      return `${header}..${oneShotHash("sha256", outer, "base64url")}`;
    }
    const header = headerOfSixChars(tokenId) ?? base64Url(jwsHeader(tokenId));
    // An ASCII secret is its own UTF-8: handed over as is, without a buffer per token.
    const key = ASCII.test(tokenSecret) ? tokenSecret : Buffer.from(tokenSecret, "utf8");
    const mac = nodeCrypto.createHmac("sha256", key)
      .update(header, "latin1")
      .update(payload)
      .digest("base64url");
    return `${header}..${mac}`;
  };
}

/** SHA-256's block size: HMAC's key block. */
const BLOCK = 64;
/** HMAC's pads: a key block of zeros XORed with them. */
const IPAD = new Uint8Array(BLOCK).fill(0x36);
const OPAD = new Uint8Array(BLOCK).fill(0x5c);
/** The length of a six-character ID's header, base64url (30 bytes). */
const HEADER_CHARS = 40;

/** node:crypto's one-shot `hash` (Node 20.12+, Deno), when there is one. */
function hashFunction(): OneShotHash | undefined {
  return (nodeCrypto as { hash?: OneShotHash }).hash;
}

interface OneShotHash {
  (alg: "sha256", data: Uint8Array, enc: "buffer"): Uint8Array;
  (alg: "sha256", data: Uint8Array, enc: "base64url"): string;
}

// deno-lint-ignore no-control-regex
const ASCII = /^[\x00-\x7f]*$/;

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
/** The header's first 21 bytes (`{"alg":"HS256","kid":`), whole base64 groups. */
const HEADER_HEAD = base64Url(jwsHeader("").slice(0, 21));

/** Whether `id` is six printable ASCII characters that JSON writes as they are. */
function isSixCharId(id: string): boolean {
  if (id.length !== 6) return false;
  for (let i = 0; i < 6; i++) {
    const c = id.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

/**
 * `base64Url(jwsHeader(id))` for an ID of six printable ASCII characters
 * that JSON writes as they are (a token ID is six of `[a-z0-9]`): the 30
 * header bytes are the first 21, encoded once, and 9 that end with the ID.
 * Undefined for any other ID.
 */
function headerOfSixChars(id: string): string | undefined {
  if (!isSixCharId(id)) return undefined;
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

/** headerOfSixChars' last 12 characters (after HEADER_HEAD), written into `buf` at `at`. */
function writeHeaderTail(buf: Uint8Array, at: number, id: string): void {
  putGroup(buf, at, 0x22, id.charCodeAt(0), id.charCodeAt(1));
  putGroup(buf, at + 4, id.charCodeAt(2), id.charCodeAt(3), id.charCodeAt(4));
  putGroup(buf, at + 8, id.charCodeAt(5), 0x22, 0x7d);
}

function putGroup(buf: Uint8Array, at: number, a: number, b: number, c: number): void {
  const bits = (a << 16) | (b << 8) | c;
  buf[at] = BASE64URL_CODES[bits >> 18]!;
  buf[at + 1] = BASE64URL_CODES[(bits >> 12) & 63]!;
  buf[at + 2] = BASE64URL_CODES[(bits >> 6) & 63]!;
  buf[at + 3] = BASE64URL_CODES[bits & 63]!;
}

const BASE64URL_CODES = Uint8Array.from(BASE64URL, (c) => c.charCodeAt(0));

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
