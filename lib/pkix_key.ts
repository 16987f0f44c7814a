/**
 * Describing a SubjectPublicKeyInfo: key type, size and curve.
 *
 * @module
 */

import { children, DerError, readTlv, tlvContent } from "./der.ts";
import { readOid } from "./der_build.ts";

/** What a SubjectPublicKeyInfo holds. */
export interface KeyInfo {
  /** `RSA`, `ECDSA`, `Ed25519`, `ML-DSA-65`, `DSA` or the algorithm OID. */
  type: string;
  /** Key size in bits (RSA modulus, curve size, 256 for Ed25519); 0 if unknown. */
  bits: number;
  /** The named curve for ECDSA (`P-256`, …). */
  curve?: string;
  /** The DER SubjectPublicKeyInfo. */
  spki: Uint8Array;
}

/** Curve OIDs and sizes. */
export const CURVES: Record<string, { name: string; bits: number }> = {
  "1.2.840.10045.3.1.7": { name: "P-256", bits: 256 },
  "1.3.132.0.34": { name: "P-384", bits: 384 },
  "1.3.132.0.35": { name: "P-521", bits: 521 },
  "1.3.132.0.33": { name: "P-224", bits: 224 },
  "1.2.840.10045.3.1.1": { name: "P-192", bits: 192 },
};

const KEY_ALGS: Record<string, string> = {
  "1.2.840.113549.1.1.1": "RSA",
  "1.2.840.10045.2.1": "ECDSA",
  "1.3.101.112": "Ed25519",
  "1.3.101.113": "Ed448",
  "1.2.840.10040.4.1": "DSA",
  "2.16.840.1.101.3.4.3.17": "ML-DSA-44",
  "2.16.840.1.101.3.4.3.18": "ML-DSA-65",
  "2.16.840.1.101.3.4.3.19": "ML-DSA-87",
};

/** Describes a DER SubjectPublicKeyInfo. */
export function describeSpki(spki: Uint8Array): KeyInfo {
  const top = readTlv(spki, 0);
  const [algId, key] = children(spki, top);
  if (!algId || !key || algId.tag !== 0x30 || key.tag !== 0x03) {
    throw new DerError("malformed subject public key info");
  }
  const [algOid, params] = children(spki, algId);
  if (!algOid || algOid.tag !== 0x06) throw new DerError("malformed public key algorithm");
  const a = readOid(tlvContent(spki, algOid));
  const type = KEY_ALGS[a] ?? a;
  const keyBits = tlvContent(spki, key).subarray(1);
  if (type === "RSA") {
    const rsa = readTlv(keyBits, 0);
    const n = children(keyBits, rsa)[0];
    if (!n || n.tag !== 0x02) throw new DerError("malformed RSA public key");
    const m = tlvContent(keyBits, n);
    let i = 0;
    while (i < m.length && m[i] === 0) i++;
    const bitsLen = m.length - i === 0 ? 0 : (m.length - i - 1) * 8 + (32 - Math.clz32(m[i]!));
    return { type, bits: bitsLen, spki };
  }
  if (type === "ECDSA") {
    const c = params && params.tag === 0x06 ? CURVES[readOid(tlvContent(spki, params))] : undefined;
    if (!c) return { type, bits: 0, curve: "unknown", spki };
    return { type, bits: c.bits, curve: c.name, spki };
  }
  if (type === "Ed25519") return { type, bits: 256, spki };
  return { type, bits: 0, spki };
}

/** Key type and size as text, e.g. `ECDSA P-256`, `RSA 2048`, `Ed25519`. */
export function formatKey(k: KeyInfo): string {
  if (k.type === "RSA") return `RSA ${k.bits}`;
  if (k.type === "ECDSA") return `ECDSA ${k.curve}`;
  return k.type;
}
