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
  let hmac: ReusedHmac | undefined;
  const oneShotHash = hashFunction();
  return (tokenId, tokenSecret) => {
    if (
      oneShotHash !== undefined && isSixCharId(tokenId) && tokenSecret.length <= BLOCK &&
      isAscii(tokenSecret)
    ) {
      // A token: HMAC-SHA256 by its definition (RFC 2104) over two one-shot hashes, without
      // an Hmac object per token. An ASCII secret of at most a block is its own key block.
      hmac ??= new ReusedHmac(payload);
      return hmac.sign(oneShotHash, tokenId, tokenSecret);
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

/**
 * The two blocks HMAC-SHA256 hashes for a six-character token ID and a key
 * of at most a block, kept from token to token: `inner` is key ^ ipad, the
 * header and the payload (copied in once); `outer` is key ^ opad and the
 * inner hash. Plain byte arrays (a Buffer's element writes are slower until
 * optimised, and most of a fleet's tokens are signed before that); the inner
 * hash comes back as a latin1 string (a Buffer per token costs more).
 */
class ReusedHmac {
  readonly inner: Uint8Array;
  readonly outer: Uint8Array;
  /** Writes a latin1 string's bytes into `outer` at an offset. */
  readonly writeOuter: (text: string, at: number, length: number) => number;

  constructor(payload: Uint8Array) {
    this.inner = new Uint8Array(BLOCK + HEADER_CHARS + payload.length);
    for (let i = 0; i < HEADER_HEAD.length; i++) {
      this.inner[BLOCK + i] = HEADER_HEAD.charCodeAt(i);
    }
    this.inner.set(payload, BLOCK + HEADER_CHARS);
    this.outer = new Uint8Array(BLOCK + 32);
    const buf = Buffer.from(this.outer.buffer, this.outer.byteOffset, this.outer.length);
    // Node's own latin1 writer (what Buffer#write calls after checking its arguments and
    // looking up the encoding, at every token); Buffer#write where there is none.
    const direct = (buf as unknown as { latin1Write?: Buffer["write"] }).latin1Write;
    this.writeOuter = typeof direct === "function"
      ? (text, at, length) => direct.call(buf, text, at, length)
      : (text, at, length) => buf.write(text, at, length, "latin1");
  }

  sign(hash: OneShotHash, id: string, key: string): string {
    const inner = this.inner, outer = this.outer;
    inner.fill(0x36, 0, BLOCK);
    outer.fill(0x5c, 0, BLOCK);
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i);
      inner[i] = 0x36 ^ c;
      outer[i] = 0x5c ^ c;
    }
    const at = BLOCK + HEADER_HEAD.length;
    writeHeaderTail(inner, at, id);
    this.writeOuter(hash("sha256", inner, "latin1"), BLOCK, 32);
    // The header's last 12 characters, as written into the signing input.
    const tail = String.fromCharCode(
      inner[at]!,
      inner[at + 1]!,
      inner[at + 2]!,
      inner[at + 3]!,
      inner[at + 4]!,
      inner[at + 5]!,
      inner[at + 6]!,
      inner[at + 7]!,
      inner[at + 8]!,
      inner[at + 9]!,
      inner[at + 10]!,
      inner[at + 11]!,
    );
    return HEADER_HEAD + tail + ".." + hash("sha256", outer, "base64url");
  }
}

/** Whether every code unit of `s` is below 0x80. */
function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** SHA-256's block size: HMAC's key block. */
const BLOCK = 64;
/** The length of a six-character ID's header, base64url (30 bytes). */
const HEADER_CHARS = 40;

/** node:crypto's one-shot `hash` (Node 20.12+, Deno), when there is one. */
function hashFunction(): OneShotHash | undefined {
  return (nodeCrypto as { hash?: OneShotHash }).hash;
}

interface OneShotHash {
  (alg: "sha256", data: Uint8Array, enc: "latin1" | "base64url"): string;
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
