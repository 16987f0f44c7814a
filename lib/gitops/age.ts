/**
 * age (age-encryption.org/v1) for SOPS data keys: X25519 recipients
 * (`age1…`, Bech32 with HRP `age` over a 32-byte public key) checked as
 * Go's `age.ParseX25519Recipient` checks them, and armored encryption
 * through the reference TypeScript implementation (npm `age-encryption`,
 * loaded on first use), as sops' `age/keysource.go` `Encrypt` writes it:
 * the raw data key, armored.
 *
 * Only X25519 recipients are accepted: sops hands any `age1…` with a second
 * `1` to a plugin, and age 1.1 knows no post-quantum recipients.
 *
 * @module
 */

import { createPublicKey, diffieHellman, generateKeyPairSync, type KeyObject } from "node:crypto";
import { Buffer } from "node:buffer";
import { UsageError } from "../base/errors.ts";

const CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
const GENERATOR = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

function polymod(values: readonly number[]): number {
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= GENERATOR[i]!;
  }
  return chk >>> 0;
}

function hrpExpand(hrp: string): number[] {
  const out: number[] = [];
  for (const c of hrp) out.push(c.charCodeAt(0) >>> 5);
  out.push(0);
  for (const c of hrp) out.push(c.charCodeAt(0) & 31);
  return out;
}

/**
 * Bech32 (BIP 173, no length limit, as age's `internal/bech32`) decoding:
 * the HRP and the data bytes, or the reason it is malformed.
 */
export function bech32Decode(text: string): { hrp: string; data: Uint8Array } | string {
  const lower = text.toLowerCase();
  if (text !== lower && text !== text.toUpperCase()) return "mixed case";
  const pos = lower.lastIndexOf("1");
  if (pos < 1 || pos + 7 > lower.length) return "separator '1' at invalid position";
  const hrp = lower.slice(0, pos);
  for (const c of hrp) {
    const code = c.charCodeAt(0);
    if (code < 33 || code > 126) return "invalid character in human-readable part";
  }
  const values: number[] = [];
  for (const c of lower.slice(pos + 1)) {
    const v = CHARSET.indexOf(c);
    if (v < 0) return `invalid character data part: ${JSON.stringify(c)}`;
    values.push(v);
  }
  if (polymod([...hrpExpand(hrp), ...values]) !== 1) return "invalid checksum";
  // 5-bit groups to bytes, refusing non-zero or over-long padding.
  const bytes: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const v of values.slice(0, -6)) {
    acc = (acc << 5) | v;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((acc >>> bits) & 0xff);
    }
  }
  if (bits >= 5 || ((acc << (8 - bits)) & 0xff) !== 0) return "invalid padding";
  return { hrp, data: new Uint8Array(bytes) };
}

/**
 * Checks one `--age-recipient` as `age.ParseX25519Recipient` does and returns
 * it; a malformed one is a {@link UsageError} naming it (recipients are
 * public keys).
 *
 * @example
 * ```ts
 * parseAgeRecipient("age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p");
 * ```
 */
export function parseAgeRecipient(text: string): string {
  const decoded = bech32Decode(text);
  const bad = (why: string) =>
    new UsageError(`malformed recipient ${JSON.stringify(text)}: ${why} (want age1… X25519)`);
  if (typeof decoded === "string") throw bad(decoded);
  if (decoded.hrp !== "age") throw bad(`invalid type ${JSON.stringify(decoded.hrp)}`);
  if (decoded.data.length !== 32) throw bad("invalid length");
  if (text !== text.toLowerCase()) throw bad("not lower case");
  // age's Wrap refuses such a point (X25519 gives the all-zero secret): age's own text.
  if (isLowOrderPoint(decoded.data)) throw bad("bad input point: low order point");
  return text;
}

let probeKey: KeyObject | undefined;

/**
 * Whether an X25519 public key is a point of small order: with it, the
 * shared secret is all zeros whatever the other side's key, so the wrapped
 * file key would open for anyone. A clamped scalar is a multiple of the
 * cofactor 8, so X25519 with any private key gives zero exactly for those
 * points (OpenSSL refuses the derivation: "failed during derivation").
 */
export function isLowOrderPoint(point: Uint8Array): boolean {
  probeKey ??= generateKeyPairSync("x25519").privateKey;
  try {
    const publicKey = createPublicKey({
      key: { kty: "OKP", crv: "X25519", x: Buffer.from(point).toString("base64url") },
      format: "jwk",
    });
    return diffieHellman({ privateKey: probeKey, publicKey }).every((b) => b === 0);
  } catch {
    return true;
  }
}

/**
 * Encrypts `plaintext` to every recipient and armors it (`-----BEGIN AGE
 * ENCRYPTED FILE-----`, 64-column padded base64), as sops stores a data key.
 */
export async function ageEncryptArmored(
  recipients: readonly string[],
  plaintext: Uint8Array,
): Promise<string> {
  const { Encrypter, armor } = await import("age-encryption");
  const e = new Encrypter();
  for (const r of recipients) e.addRecipient(parseAgeRecipient(r));
  return armor.encode(await e.encrypt(plaintext));
}
