/**
 * kubeadm's certificate key and its AES-256-GCM layout (k/k
 * `cmd/kubeadm/app/util/crypto/crypto.go`, `phases/copycerts/copycerts.go`,
 * `apis/kubeadm/validation/validation.go` `ValidateCertificateKey`).
 *
 * `EncryptBytes` seals with a fresh 12-byte nonce, no additional data, and
 * stores **nonce ‖ ciphertext ‖ 16-byte tag**; `DecryptBytes` splits the
 * nonce off the front. The key is 32 random bytes, printed as 64 lower-case
 * hex characters (`kubeadm certs certificate-key`).
 *
 * @module
 */

import { createCipheriv, createDecipheriv } from "node:crypto";
import { Buffer } from "node:buffer";
import { CheckError, UsageError } from "../base/errors.ts";
import { cryptoRandom, type RandomBytes } from "../base/random.ts";

/** `constants.CertificateKeySize`: an AES-256 key. */
export const CERTIFICATE_KEY_SIZE = 32;

/** `cipher.NewGCM`'s standard nonce size. */
export const GCM_NONCE_SIZE = 12;

/** `cipher.NewGCM`'s tag size. */
export const GCM_TAG_SIZE = 16;

/**
 * `copycerts.CreateCertificateKey`: 32 random bytes as lower-case hex.
 *
 * @example
 * ```ts
 * createCertificateKey().length; // 64
 * ```
 */
export function createCertificateKey(random: RandomBytes = cryptoRandom): string {
  return Buffer.from(random(CERTIFICATE_KEY_SIZE)).toString("hex");
}

const HEX = /^[0-9a-fA-F]$/;

/** Go's `%#U` of one character: `U+0067 'g'`. */
function goRuneU(ch: string): string {
  const cp = ch.codePointAt(0)!;
  const hex = cp.toString(16).toUpperCase().padStart(4, "0");
  // Printable runes are shown quoted; controls only as U+XXXX.
  const printable = cp >= 0x20 && cp !== 0x7f && !(cp >= 0x80 && cp < 0xa0);
  return printable ? `U+${hex} '${ch}'` : `U+${hex}`;
}

/**
 * Go's `hex.DecodeString`: the bytes, or its error text
 * (`encoding/hex: invalid byte: U+0067 'g'`, `encoding/hex: odd length hex string`).
 * Go reads the string byte by byte, so a non-ASCII character is reported as
 * its first UTF-8 byte, as Go does.
 */
export function goHexDecode(text: string): Uint8Array | string {
  const bytes = Buffer.from(text, "utf8");
  const check = (b: number): string | undefined => {
    const ch = String.fromCharCode(b);
    if (HEX.test(ch)) return undefined;
    return `encoding/hex: invalid byte: ${goRuneU(b < 0x80 ? ch : String.fromCodePoint(b))}`;
  };
  const half = bytes.length >> 1;
  for (let i = 0; i < half; i++) {
    const err = check(bytes[2 * i]!) ?? check(bytes[2 * i + 1]!);
    if (err) return err;
  }
  if (bytes.length % 2 === 1) {
    return check(bytes[bytes.length - 1]!) ?? "encoding/hex: odd length hex string";
  }
  return new Uint8Array(Buffer.from(text, "hex"));
}

/**
 * kubeadm's `ValidateCertificateKey` detail for a non-empty key, or
 * `undefined` when the key is good: `certificate key decoding error: <hex
 * error>` or `invalid certificate key size <n>, the key must be an AES key of
 * size 32`.
 *
 * @example
 * ```ts
 * validateCertificateKey("abcd"); // "invalid certificate key size 2, the key must be an AES key of size 32"
 * ```
 */
export function validateCertificateKey(text: string): string | undefined {
  const decoded = goHexDecode(text);
  if (typeof decoded === "string") return `certificate key decoding error: ${decoded}`;
  if (decoded.length !== CERTIFICATE_KEY_SIZE) {
    return `invalid certificate key size ${decoded.length}, the key must be an AES key of size ${CERTIFICATE_KEY_SIZE}`;
  }
  return undefined;
}

/**
 * The 32 key bytes of a certificate key given on the command line; a
 * malformed or empty one is a usage error with kubeadm's detail (the key
 * itself is never repeated).
 *
 * @example
 * ```ts
 * certificateKeyBytes("e6a2eb8581237ab72a4f494f30285ec12a9694d750b9785706a83bfcbbbd2204").length; // 32
 * ```
 */
export function certificateKeyBytes(text: string, what = "--certificate-key"): Uint8Array {
  if (text === "") throw new UsageError(`${what} must not be empty`);
  const err = validateCertificateKey(text);
  if (err) throw new UsageError(`invalid ${what}: ${err}`);
  return goHexDecode(text) as Uint8Array;
}

/**
 * `cryptoutil.EncryptBytes`: AES-GCM under `key` (32 bytes ⇒ AES-256) with a
 * fresh 12-byte nonce from `random`, no additional data; returns nonce ‖
 * ciphertext ‖ tag (`len(data) + 28` bytes).
 *
 * @example
 * ```ts ignore
 * encryptBytes(new TextEncoder().encode("cert-data"), key).length; // 37
 * ```
 */
export function encryptBytes(
  data: Uint8Array,
  key: Uint8Array,
  random: RandomBytes = cryptoRandom,
): Uint8Array {
  if (key.length !== CERTIFICATE_KEY_SIZE) throw new RangeError("AES-256 needs a 32-byte key");
  const nonce = random(GCM_NONCE_SIZE);
  if (nonce.length !== GCM_NONCE_SIZE) throw new RangeError("a GCM nonce has 12 bytes");
  const cipher = createCipheriv("aes-256-gcm", key, nonce, { authTagLength: GCM_TAG_SIZE });
  const body = Buffer.concat([cipher.update(data), cipher.final()]);
  return new Uint8Array(Buffer.concat([nonce, body, cipher.getAuthTag()]));
}

/** Go's `gcm.Open` error for a wrong key or altered data. */
export const GCM_AUTH_FAILED = "cipher: message authentication failed";

/** `DecryptBytes`'s error for data shorter than a nonce. */
export const SHORTER_THAN_NONCE = "size of data is less than the nonce";

/**
 * `cryptoutil.DecryptBytes`: splits the nonce off and opens the rest. A
 * wrong key or altered data is a {@link CheckError} with Go's text.
 *
 * @example
 * ```ts ignore
 * decryptBytes(encryptBytes(data, key), key); // data
 * ```
 */
export function decryptBytes(data: Uint8Array, key: Uint8Array): Uint8Array {
  if (key.length !== CERTIFICATE_KEY_SIZE) throw new RangeError("AES-256 needs a 32-byte key");
  if (data.length < GCM_NONCE_SIZE) throw new CheckError(SHORTER_THAN_NONCE);
  // Go's Open also refuses a sealed text shorter than its tag.
  if (data.length < GCM_NONCE_SIZE + GCM_TAG_SIZE) throw new CheckError(GCM_AUTH_FAILED);
  const nonce = data.subarray(0, GCM_NONCE_SIZE);
  const tag = data.subarray(data.length - GCM_TAG_SIZE);
  const body = data.subarray(GCM_NONCE_SIZE, data.length - GCM_TAG_SIZE);
  const decipher = createDecipheriv("aes-256-gcm", key, nonce, { authTagLength: GCM_TAG_SIZE });
  decipher.setAuthTag(tag);
  try {
    return new Uint8Array(Buffer.concat([decipher.update(body), decipher.final()]));
  } catch {
    throw new CheckError(GCM_AUTH_FAILED);
  }
}
