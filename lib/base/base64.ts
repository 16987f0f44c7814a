/**
 * Base64 as Go and JWS use it: strict standard base64 (what `encoding/json`
 * accepts for `[]byte`, so what kubectl accepts in Secrets and kubeconfigs)
 * and unpadded base64url (RFC 7515).
 *
 * @module
 */

import { Buffer } from "node:buffer";

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Decodes base64 as Go's `encoding/json` does for `[]byte`: standard
 * alphabet, padding required, CR and LF ignored; anything else is refused.
 * Returns `undefined` when the text is not valid base64.
 *
 * @example
 * ```ts
 * decodeGoBase64("YWJj\r\nZGVm"); // Uint8Array of "abcdef"
 * decodeGoBase64("YWJjZGVm=="); // undefined
 * ```
 */
export function decodeGoBase64(text: string): Uint8Array | undefined {
  const clean = text.replace(/[\r\n]/g, "");
  if (!BASE64.test(clean)) return undefined;
  return new Uint8Array(Buffer.from(clean, "base64"));
}

/**
 * Base64url without padding (RFC 7515 section 2); strings are taken as UTF-8.
 *
 * @example
 * ```ts
 * base64Url('{"alg":"HS256"}'); // "eyJhbGciOiJIUzI1NiJ9"
 * ```
 */
export function base64Url(data: Uint8Array | string): string {
  const buf = typeof data === "string"
    ? Buffer.from(data, "utf8")
    : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return buf.toString("base64url");
}
