/**
 * CA public-key pins as kubeadm computes and checks them
 * (`cmd/kubeadm/app/util/pubkeypin`): `sha256:<hex>` of the certificate's
 * DER SubjectPublicKeyInfo (RFC 7469 style), and a pin set with kubeadm's
 * exact parsing rules and error texts.
 *
 * Loads no ASN.1 or X.509 library: the SPKI is found with `lib/pki/der.ts`.
 *
 * @module
 */

import { certificateParts, tlvBytes } from "./der.ts";
import { CheckError, InputError } from "../base/errors.ts";
import { goQuote } from "../go/quote.ts";
import { sha256Hex as jsSha256Hex } from "../base/sha256.ts";

/** The only pin format kubeadm knows. */
export const SUPPORTED_FORMATS = "sha256";

/**
 * The DER SubjectPublicKeyInfo of a DER certificate (a view into `certDer`).
 * Throws `InputError` (prefixed with `source`) when the certificate is malformed.
 *
 * @example
 * ```ts ignore
 * const spki = spkiOf(der); // starts with 0x30
 * ```
 */
export function spkiOf(certDer: Uint8Array, source?: string): Uint8Array {
  try {
    return tlvBytes(certDer, certificateParts(certDer).spki);
  } catch (e) {
    if (source !== undefined && e instanceof InputError) {
      throw new InputError(`${source}: invalid certificate: ${e.message}`);
    }
    throw e;
  }
}

let cryptoModule: typeof import("node:crypto") | undefined;

/**
 * node:crypto, loaded on first use: every command that takes
 * `--discovery-token-ca-cert-hash` reaches this module through the flag
 * vocabulary, and most never hash (`token generate` under Deno: ~4 ms).
 * Kept once loaded (a fleet hashes one SPKI per certificate).
 */
const nodeCrypto = () => cryptoModule ??= process.getBuiltinModule("node:crypto");

/**
 * Hashes done so far by {@link sha256Hex}: the first few in plain JavaScript
 * (`ca hash` and `join-command` hash one or two SPKIs, and under `deno run`
 * loading node:crypto costs ~10 ms of their start-up), the rest (`cert
 * inspect` of a fleet: one per certificate) with node:crypto, ~5x faster per
 * hash once loaded.
 */
let hashes = 0;

/** Hashes {@link sha256Hex} does in plain JavaScript before it loads node:crypto. */
const JS_HASHES = 16;

/** SHA-256 of `data`, lowercase hex. */
export function sha256Hex(data: Uint8Array): string {
  if (hashes < JS_HASHES) {
    hashes++;
    return jsSha256Hex(data);
  }
  const crypto = nodeCrypto();
  // node:crypto's one-shot `hash` (Node 20.12+) skips the Hash object's set-up.
  const oneShot = (crypto as { hash?: (alg: string, data: Uint8Array, enc: "hex") => string })
    .hash;
  return oneShot
    ? oneShot("sha256", data, "hex")
    : crypto.createHash("sha256").update(data).digest("hex");
}

/**
 * kubeadm's pin of a certificate: `sha256:` + lowercase hex SHA-256 of its
 * DER SubjectPublicKeyInfo (`pubkeypin.Hash`).
 *
 * @example
 * ```ts ignore
 * caCertHash(der); // "sha256:345959acb2c3b2feb87d281961c893f62a314207ef02599f1cc4a5fb255480b3"
 * ```
 */
export function caCertHash(certDer: Uint8Array): string {
  return spkiHash(spkiOf(certDer));
}

/** The pin of a DER SubjectPublicKeyInfo (same value as {@link caCertHash} of its certificate). */
/**
 * `pubkeypin.Hash` of a DER SubjectPublicKeyInfo: `sha256:` + lowercase hex.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { spkiHash } from "./pin.ts";
 * assert.equal(
 *   spkiHash(new Uint8Array()),
 *   "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
 * );
 * ```
 */
export function spkiHash(spki: Uint8Array): string {
  return "sha256:" + sha256Hex(spki);
}

/** Go's `%#U` of one byte treated as a rune, as in `encoding/hex.InvalidByteError`. */
function goRune(b: number): string {
  const code = `U+${b.toString(16).toUpperCase().padStart(4, "0")}`;
  const printable = (b >= 0x20 && b < 0x7f) || b >= 0xa1 && b !== 0xad;
  return printable ? `${code} '${String.fromCodePoint(b)}'` : code;
}

/** Go's `hex.DecodeString` validation: undefined when valid, else its error text. */
function hexError(bytes: Uint8Array): string | undefined {
  const isHex = (c: number) =>
    (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
  for (const c of bytes) {
    if (!isHex(c)) return `encoding/hex: invalid byte: ${goRune(c)}`;
  }
  if (bytes.length % 2 === 1) return "encoding/hex: odd length hex string";
  return undefined;
}

/**
 * A set of CA public-key pins, as kubeadm join's `pubkeypin.Set`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PinSet } from "./pin.ts";
 * const pins = new PinSet();
 * pins.allow("SHA256:345959ACB2C3B2FEB87D281961C893F62A314207EF02599F1CC4A5FB255480B3");
 * assert.deepEqual(pins.pins(), [
 *   "sha256:345959acb2c3b2feb87d281961c893f62a314207ef02599f1cc4a5fb255480b3",
 * ]);
 * assert.throws(() => pins.allow("md5:00"), {
 *   message: 'unknown hash format "md5". Known format(s) are: sha256',
 * });
 * // pins.checkAny([caDer]) throws CheckError unless one certificate matches.
 * ```
 */
export class PinSet {
  readonly #sha256 = new Set<string>();

  /**
   * Adds pins (`sha256:<64 hex>`, format case-insensitive, hex of either
   * case). Throws `InputError` with kubeadm's text at the first malformed
   * one; pins before it stay added, as upstream.
   */
  allow(...hashes: string[]): void {
    for (const hash of hashes) {
      const parts = hash.split(":");
      if (parts.length !== 2) {
        throw new InputError(
          `invalid hash, expected "format:hex-value". Known format(s) are: ${SUPPORTED_FORMATS}`,
        );
      }
      const format = parts[0]!.toLowerCase();
      const value = parts[1]!;
      if (format !== "sha256") {
        throw new InputError(
          `unknown hash format ${goQuote(format)}. Known format(s) are: ${SUPPORTED_FORMATS}`,
        );
      }
      const bytes = new TextEncoder().encode(value);
      const decodedLength = Math.floor(bytes.length / 2);
      let why: string | undefined;
      if (decodedLength !== 32) {
        why = `expected a 32 byte SHA-256 hash, found ${decodedLength} bytes`;
      } else {
        const bad = hexError(bytes);
        if (bad !== undefined) why = `could not decode SHA-256 from hex: ${bad}`;
      }
      if (why !== undefined) throw new InputError(`invalid hash ${goQuote(hash)}, ${why}`);
      this.#sha256.add(value.toLowerCase());
    }
  }

  /** Whether no pin was added (`Set.Empty`). */
  isEmpty(): boolean {
    return this.#sha256.size === 0;
  }

  /** The pins, normalised to `sha256:<lowercase hex>`, in the order added. */
  pins(): string[] {
    return [...this.#sha256].map((h) => "sha256:" + h);
  }

  /** Index of the first certificate whose key is pinned, or -1. */
  match(certDers: readonly Uint8Array[]): number {
    return certDers.findIndex((der) => this.#sha256.has(sha256Hex(spkiOf(der))));
  }

  /**
   * Passes when any certificate's public key is pinned (`Set.CheckAny`);
   * returns the index of the first that is. Otherwise throws `CheckError`
   * `none of the public keys "<h1>:<h2>…" are pinned`.
   */
  checkAny(certDers: readonly Uint8Array[]): number {
    const hashes: string[] = [];
    for (let i = 0; i < certDers.length; i++) {
      const h = sha256Hex(spkiOf(certDers[i]!));
      if (this.#sha256.has(h)) return i;
      hashes.push("sha256:" + h);
    }
    throw new CheckError(`none of the public keys ${goQuote(hashes.join(":"))} are pinned`);
  }
}
