/**
 * Go's `crypto/x509` `checkSignature` (x509.go), synchronous on `node:crypto`:
 * the signature algorithm's hash from Go's fixed table, MD5 and (for chains)
 * SHA-1 refused as insecure, unknown algorithms unimplemented, the key type
 * matched against the algorithm, then RSA (PKCS #1 v1.5 or PSS with the salt
 * equal to the hash), ECDSA (ASN.1 signature) or Ed25519 verification — with
 * Go 1.24+'s RSA key checks (`rsa1024min`, the FIPS public-key checks) first.
 * Used for certificate chains (`allowSha1 = false`) and CSRs (`true`).
 *
 * @module
 */

import { createPublicKey, type KeyObject, verify as nodeVerify } from "node:crypto";
import { Buffer } from "node:buffer";
import { readTlv, Tag } from "./der.ts";

/** `x509.ErrUnsupportedAlgorithm`. */
export const ERR_UNSUPPORTED_ALGORITHM = "x509: cannot verify signature: algorithm unimplemented";

interface AlgorithmDetails {
  /** Node digest name; "" for Ed25519 (no pre-hash). */
  hash: "" | "md5" | "sha1" | "sha256" | "sha384" | "sha512";
  pubKeyAlgo: "RSA" | "DSA" | "ECDSA" | "Ed25519";
  pss: boolean;
}

/**
 * Go's `signatureAlgorithmDetails`, by Go name. MD2-RSA and unknown
 * algorithms are absent (hash 0: "algorithm unimplemented").
 */
const DETAILS: Readonly<Record<string, AlgorithmDetails>> = {
  "MD5-RSA": { hash: "md5", pubKeyAlgo: "RSA", pss: false },
  "SHA1-RSA": { hash: "sha1", pubKeyAlgo: "RSA", pss: false },
  "SHA256-RSA": { hash: "sha256", pubKeyAlgo: "RSA", pss: false },
  "SHA384-RSA": { hash: "sha384", pubKeyAlgo: "RSA", pss: false },
  "SHA512-RSA": { hash: "sha512", pubKeyAlgo: "RSA", pss: false },
  "SHA256-RSAPSS": { hash: "sha256", pubKeyAlgo: "RSA", pss: true },
  "SHA384-RSAPSS": { hash: "sha384", pubKeyAlgo: "RSA", pss: true },
  "SHA512-RSAPSS": { hash: "sha512", pubKeyAlgo: "RSA", pss: true },
  "DSA-SHA1": { hash: "sha1", pubKeyAlgo: "DSA", pss: false },
  "DSA-SHA256": { hash: "sha256", pubKeyAlgo: "DSA", pss: false },
  "ECDSA-SHA1": { hash: "sha1", pubKeyAlgo: "ECDSA", pss: false },
  "ECDSA-SHA256": { hash: "sha256", pubKeyAlgo: "ECDSA", pss: false },
  "ECDSA-SHA384": { hash: "sha384", pubKeyAlgo: "ECDSA", pss: false },
  "ECDSA-SHA512": { hash: "sha512", pubKeyAlgo: "ECDSA", pss: false },
  "Ed25519": { hash: "", pubKeyAlgo: "Ed25519", pss: false },
};

/** What `%T` prints for the public key Go parsed for each key algorithm. */
const GO_KEY_TYPE: Readonly<Record<string, string>> = {
  RSA: "*rsa.PublicKey",
  ECDSA: "*ecdsa.PublicKey",
  Ed25519: "ed25519.PublicKey",
};

/** `InsecureAlgorithmError.Error()` (Go ≥ 1.24: no GODEBUG suffix, x509sha1 is gone). */
export function insecureAlgorithmError(algorithm: string): string {
  return `x509: cannot verify signature: insecure algorithm ${algorithm}`;
}

const keyCache = new Map<string, KeyObject>();

function publicKey(spki: Uint8Array): KeyObject {
  const id = Buffer.from(spki).toString("base64");
  let k = keyCache.get(id);
  if (!k) {
    k = createPublicKey({ key: Buffer.from(spki), format: "der", type: "spki" });
    // A fleet has few CAs; a bounded cache keeps a stream of leaf keys from growing it.
    if (keyCache.size >= 256) keyCache.clear();
    keyCache.set(id, k);
  }
  return k;
}

/** The RSA modulus and exponent of an RSA SubjectPublicKeyInfo. */
export function rsaPublicNumbers(spki: Uint8Array): { n: bigint; e: bigint } | undefined {
  try {
    const outer = readTlv(spki, 0);
    const alg = readTlv(spki, outer.contentStart, outer.end);
    const bits = readTlv(spki, alg.end, outer.end);
    if (bits.tag !== Tag.BIT_STRING) return undefined;
    const seq = readTlv(spki, bits.contentStart + 1, bits.end);
    const n = readTlv(spki, seq.contentStart, seq.end);
    const e = readTlv(spki, n.end, seq.end);
    if (n.tag !== Tag.INTEGER || e.tag !== Tag.INTEGER) return undefined;
    const int = (from: number, to: number) => {
      let v = 0n;
      for (let i = from; i < to; i++) v = (v << 8n) | BigInt(spki[i]!);
      // Two's complement: a set top bit is negative (Go's parser refuses those already).
      if (to > from && (spki[from]! & 0x80) !== 0) v -= 1n << BigInt(8 * (to - from));
      return v;
    };
    return { n: int(n.contentStart, n.end), e: int(e.contentStart, e.end) };
  } catch {
    return undefined;
  }
}

function bitLen(n: bigint): number {
  return n <= 0n ? 0 : n.toString(2).length;
}

/**
 * Go 1.24+ `crypto/rsa` checks before any verification: `checkPublicKeySize`
 * (rsa1024min, on by default) then the FIPS module's `checkPublicKey`.
 */
export function rsaPublicKeyError(n: bigint, e: bigint): string | undefined {
  const bits = bitLen(n);
  if (bits < 1024) {
    return `crypto/rsa: ${bits}-bit keys are insecure (see https://go.dev/pkg/crypto/rsa#hdr-Minimum_key_size)`;
  }
  if ((n & 1n) === 0n) return "crypto/rsa: public modulus is even";
  if (e < 2n) return "crypto/rsa: public exponent too small or negative";
  if ((e & 1n) === 0n) return "crypto/rsa: public exponent is even";
  if (e > 2n ** 31n - 1n) return "crypto/rsa: public exponent too large";
  return undefined;
}

/**
 * Go's `checkSignature(algo, signed, signature, publicKey, allowSHA1)`.
 * `algorithm` is Go's name ("" or anything unknown = UnknownSignatureAlgorithm);
 * `publicKeyAlgorithm` is Go's name of the key ("" = no key parsed).
 * Returns `undefined` when the signature verifies, else Go's error text.
 */
export function checkSignature(
  algorithm: string,
  signed: Uint8Array,
  signature: Uint8Array,
  publicKeyAlgorithm: string,
  spki: Uint8Array,
  allowSha1: boolean,
): string | undefined {
  const d = Object.hasOwn(DETAILS, algorithm) ? DETAILS[algorithm] : undefined;
  if (!d || (d.hash === "" && d.pubKeyAlgo !== "Ed25519")) return ERR_UNSUPPORTED_ALGORITHM;
  if (d.hash === "md5") return insecureAlgorithmError(algorithm);
  if (d.hash === "sha1" && !allowSha1) return insecureAlgorithmError(algorithm);

  // The switch on the key's Go type: DSA, X25519 and unparsed keys fall through.
  const goType = GO_KEY_TYPE[publicKeyAlgorithm];
  if (!goType) return ERR_UNSUPPORTED_ALGORITHM;
  if (d.pubKeyAlgo !== publicKeyAlgorithm) {
    return `x509: signature algorithm specifies an ${d.pubKeyAlgo} public key, but have public key of type ${goType}`;
  }
  const data = Buffer.from(signed.buffer, signed.byteOffset, signed.byteLength);
  const sig = Buffer.from(signature.buffer, signature.byteOffset, signature.byteLength);
  if (publicKeyAlgorithm === "RSA") {
    const nums = rsaPublicNumbers(spki);
    if (!nums) return "crypto/rsa: verification error";
    const bad = rsaPublicKeyError(nums.n, nums.e);
    if (bad) return bad;
    // Go's verifiers want exactly k bytes; OpenSSL would also take a shorter value.
    if (sig.length !== Math.ceil(bitLen(nums.n) / 8)) return "crypto/rsa: verification error";
    let ok = false;
    try {
      const key = publicKey(spki);
      ok = d.pss
        ? nodeVerify(d.hash, data, {
          key,
          padding: 6, // RSA_PKCS1_PSS_PADDING; MGF1 with the same hash
          saltLength: { sha256: 32, sha384: 48, sha512: 64 }[d.hash as "sha256"],
        }, sig)
        : nodeVerify(d.hash, data, { key, padding: 1 /* RSA_PKCS1_PADDING */ }, sig);
    } catch {
      ok = false;
    }
    return ok ? undefined : "crypto/rsa: verification error";
  }
  if (publicKeyAlgorithm === "ECDSA") {
    let ok = false;
    try {
      ok = nodeVerify(d.hash, data, { key: publicKey(spki), dsaEncoding: "der" }, sig);
    } catch {
      ok = false;
    }
    return ok ? undefined : "x509: ECDSA verification failure";
  }
  let ok = false;
  try {
    ok = sig.length === 64 && nodeVerify(null, data, publicKey(spki), sig);
  } catch {
    ok = false;
  }
  return ok ? undefined : "x509: Ed25519 verification failure";
}
