/**
 * Describing a SubjectPublicKeyInfo: key type, size and curve, read with the
 * `@peculiar/asn1-*` schemas (SPKI, EC parameters, RSA public key).
 *
 * @module
 */

import { ECParameters } from "@peculiar/asn1-ecc";
import { RSAPublicKey } from "@peculiar/asn1-rsa";
import { AsnConvert } from "@peculiar/asn1-schema";
import { SubjectPublicKeyInfo } from "@peculiar/asn1-x509";
import { Buffer } from "node:buffer";
import { InputError } from "./errors.ts";

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

/** Bit length of an unsigned big-endian integer. */
function bitLength(m: Uint8Array): number {
  let i = 0;
  while (i < m.length && m[i] === 0) i++;
  return m.length - i === 0 ? 0 : (m.length - i - 1) * 8 + (32 - Math.clz32(m[i]!));
}

const curveMemo = new Map<string, string | undefined>();

/** The named-curve OID of EC parameters (remembered: a batch repeats a few curves). */
function namedCurve(params: ArrayBuffer): string | undefined {
  const key = Buffer.from(params).toString("latin1");
  if (curveMemo.has(key)) return curveMemo.get(key);
  let named: string | undefined;
  try {
    named = AsnConvert.parse(params, ECParameters).namedCurve;
  } catch {
    named = undefined; // Go: an unknown curve, not a parse error
  }
  if (curveMemo.size >= 64) curveMemo.clear();
  curveMemo.set(key, named);
  return named;
}

/**
 * Describes a parsed SubjectPublicKeyInfo whose DER is `der` (or made by
 * `der()` when first asked for).
 */
export function describeAsnSpki(
  asn: SubjectPublicKeyInfo,
  der: Uint8Array | (() => Uint8Array),
): KeyInfo {
  const a = asn.algorithm.algorithm;
  const type = KEY_ALGS[a] ?? a;
  let bits = 0;
  let curve: string | undefined;
  try {
    if (type === "RSA") {
      bits = bitLength(
        new Uint8Array(AsnConvert.parse(asn.subjectPublicKey, RSAPublicKey).modulus),
      );
    }
  } catch (e) {
    throw new InputError(`malformed ${type} public key: ${(e as Error).message}`);
  }
  if (type === "ECDSA") {
    const p = asn.algorithm.parameters;
    const c = p ? CURVES[namedCurve(p) ?? ""] : undefined;
    curve = c?.name ?? "unknown";
    bits = c?.bits ?? 0;
  }
  if (type === "Ed25519") bits = 256;
  let spki = typeof der === "function" ? undefined : der;
  return {
    type,
    bits,
    ...(curve === undefined ? {} : { curve }),
    get spki() {
      return (spki ??= (der as () => Uint8Array)());
    },
  };
}

/** Describes a DER SubjectPublicKeyInfo. */
export function describeSpki(spki: Uint8Array): KeyInfo {
  let asn: SubjectPublicKeyInfo;
  try {
    asn = AsnConvert.parse(spki as BufferSource, SubjectPublicKeyInfo);
  } catch (e) {
    throw new InputError(`malformed subject public key info: ${(e as Error).message}`);
  }
  return describeAsnSpki(asn, spki);
}

/** Key type and size as text, e.g. `ECDSA P-256`, `RSA 2048`, `Ed25519`. */
export function formatKey(k: KeyInfo): string {
  if (k.type === "RSA") return `RSA ${k.bits}`;
  if (k.type === "ECDSA") return `ECDSA ${k.curve}`;
  return k.type;
}
