/**
 * X.509 signature algorithms, on `@peculiar/x509`'s algorithm provider and
 * signature formatters with WebCrypto: checking a signature made by a
 * SubjectPublicKeyInfo (RSA PKCS#1 v1.5 and PSS, ECDSA, Ed25519) with Go's
 * reasons, naming algorithms as Go does, and picking the algorithm Go's
 * `x509` signs with for a key.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import type { AlgorithmIdentifier as AsnAlgorithmIdentifier } from "@peculiar/asn1-x509";
import type { KeyInfo } from "./pkix_key.ts";
import { x509 } from "./x509.ts";

/** A signature algorithm as read: its OID and the WebCrypto form (hash, PSS salt). */
export interface SigAlg {
  oid: string;
  /** The library's WebCrypto algorithm (`{ name: oid }` when it knows none). */
  web: Algorithm & { hash?: Algorithm | string; saltLength?: number };
}

const GO_NAMES: Record<string, string> = {
  "1.2.840.113549.1.1.5": "SHA1-RSA",
  "1.2.840.113549.1.1.11": "SHA256-RSA",
  "1.2.840.113549.1.1.12": "SHA384-RSA",
  "1.2.840.113549.1.1.13": "SHA512-RSA",
  "1.2.840.113549.1.1.10": "RSASSA-PSS",
  "1.2.840.10045.4.1": "ECDSA-SHA1",
  "1.2.840.10045.4.3.2": "ECDSA-SHA256",
  "1.2.840.10045.4.3.3": "ECDSA-SHA384",
  "1.2.840.10045.4.3.4": "ECDSA-SHA512",
  "1.3.101.112": "Ed25519",
  "1.2.840.113549.1.1.4": "MD5-RSA",
  "2.16.840.1.101.3.4.3.17": "ML-DSA-44",
  "2.16.840.1.101.3.4.3.18": "ML-DSA-65",
  "2.16.840.1.101.3.4.3.19": "ML-DSA-87",
};

/** The key family each signature OID joinkit can check needs. */
const FAMILY: Record<string, "RSA" | "RSA-PSS" | "ECDSA" | "Ed25519"> = {
  "1.2.840.113549.1.1.5": "RSA",
  "1.2.840.113549.1.1.11": "RSA",
  "1.2.840.113549.1.1.12": "RSA",
  "1.2.840.113549.1.1.13": "RSA",
  "1.2.840.113549.1.1.10": "RSA-PSS",
  "1.2.840.10045.4.1": "ECDSA",
  "1.2.840.10045.4.3.2": "ECDSA",
  "1.2.840.10045.4.3.3": "ECDSA",
  "1.2.840.10045.4.3.4": "ECDSA",
  "1.3.101.112": "Ed25519",
};

const hashName = (h: Algorithm | string | undefined) => typeof h === "string" ? h : h?.name;

let provider: x509.AlgorithmProvider | undefined;
const algorithms = {
  toWebAlgorithm: (a: AsnAlgorithmIdentifier) =>
    (provider ??= new x509.AlgorithmProvider()).toWebAlgorithm(a),
};

/** Reads an ASN.1 AlgorithmIdentifier with the library's algorithm provider. */
export function readSigAlg(asn: AsnAlgorithmIdentifier): SigAlg {
  let web: SigAlg["web"];
  try {
    web = algorithms.toWebAlgorithm(asn) as SigAlg["web"];
  } catch {
    web = { name: asn.algorithm };
  }
  return { oid: asn.algorithm, web: web ?? { name: asn.algorithm } };
}

/**
 * Go's name of a signature algorithm (e.g. `ECDSA-SHA256`, `SHA256-RSAPSS`),
 * or the OID.
 */
export function sigAlgName(alg: SigAlg): string {
  if (FAMILY[alg.oid] === "RSA-PSS") {
    const h = hashName(alg.web.hash);
    return h ? `${h.replace("-", "")}-RSAPSS` : "RSASSA-PSS";
  }
  return GO_NAMES[alg.oid] ?? alg.oid;
}

const keyCache = new Map<string, Promise<CryptoKey>>();

/** Imports a public key for verifying; cached so one CA key is imported once. */
function importVerifyKey(spki: Uint8Array, params: Algorithm): Promise<CryptoKey> {
  const cacheKey = `${JSON.stringify(params)}|${Buffer.from(spki).toString("base64")}`;
  let p = keyCache.get(cacheKey);
  if (!p) {
    p = globalThis.crypto.subtle.importKey("spki", spki as BufferSource, params, false, [
      "verify",
    ]);
    if (keyCache.size > 64) keyCache.clear();
    keyCache.set(cacheKey, p);
  }
  return p;
}

/** Something signed: the signed bytes, the algorithm and the X.509 signature value. */
export interface Signed {
  tbs: Uint8Array;
  sigAlg: SigAlg;
  signature: Uint8Array;
}

/**
 * Checks the signature of `s` with the public key `key`. Resolves to
 * `undefined` when valid, else to a Go-style reason (e.g. `x509: ECDSA
 * verification failure`).
 */
export async function checkSignature(s: Signed, key: KeyInfo): Promise<string | undefined> {
  const family = FAMILY[s.sigAlg.oid];
  if (!family) {
    return `x509: cannot verify signature: algorithm unimplemented (${sigAlgName(s.sigAlg)})`;
  }
  const want = family === "RSA-PSS" ? "RSA" : family;
  if (key.type !== want) {
    return "x509: signature algorithm specifies an " +
      `${want} public key, but have public key of type ${key.type}`;
  }
  const web = s.sigAlg.web;
  const hash = hashName(web.hash);
  let params: Algorithm & Record<string, unknown>;
  if (family === "RSA-PSS") {
    if (!hash) return "x509: unsupported RSASSA-PSS parameters";
    params = { name: "RSA-PSS", hash, saltLength: web.saltLength ?? 20 };
  } else if (family === "RSA") params = { name: "RSASSA-PKCS1-v1_5", hash: hash! };
  else if (family === "ECDSA") {
    if (!["P-256", "P-384", "P-521"].includes(key.curve ?? "")) {
      return `x509: unsupported elliptic curve ${key.curve}`;
    }
    params = { name: "ECDSA", namedCurve: key.curve!, hash: hash! };
  } else params = { name: "Ed25519" };
  let sig: BufferSource | null = s.signature as BufferSource;
  if (family === "ECDSA") {
    try {
      sig = new x509.AsnEcSignatureFormatter().toWebSignature(params, s.signature as BufferSource);
    } catch {
      sig = null; // not a DER ECDSA-Sig-Value: Go says the verification failed
    }
  }
  try {
    const ck = await importVerifyKey(key.spki, params);
    if (sig && await globalThis.crypto.subtle.verify(params, ck, sig, s.tbs as BufferSource)) {
      return undefined;
    }
  } catch (e) {
    return `x509: ${family} public key not usable: ${(e as Error).message}`;
  }
  if (family === "RSA" || family === "RSA-PSS") return "crypto/rsa: verification error";
  if (family === "ECDSA") return "x509: ECDSA verification failure";
  return "x509: Ed25519 verification failure";
}
