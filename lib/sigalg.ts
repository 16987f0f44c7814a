/**
 * X.509 signature algorithms with WebCrypto: checking a signature made by a
 * SubjectPublicKeyInfo (RSA PKCS#1 v1.5, ECDSA, Ed25519) and signing with a
 * CryptoKey the way Go's `x509` picks the algorithm for a key. ECDSA
 * signatures are converted between DER (X.509) and r||s (WebCrypto).
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { children, DerError, readTlv, tlvContent } from "./der.ts";
import { bits, NULL, oid, readOid, seq, uint } from "./der_build.ts";
import { CURVES } from "./pkix.ts";

interface SigAlg {
  name: string;
  family: "RSA" | "RSA-PSS" | "ECDSA" | "Ed25519";
  hash?: string;
}

/** Signature-algorithm OIDs joinkit can check. */
export const SIG_ALGS: Record<string, SigAlg> = {
  "1.2.840.113549.1.1.5": { name: "SHA1-RSA", family: "RSA", hash: "SHA-1" },
  "1.2.840.113549.1.1.11": { name: "SHA256-RSA", family: "RSA", hash: "SHA-256" },
  "1.2.840.113549.1.1.12": { name: "SHA384-RSA", family: "RSA", hash: "SHA-384" },
  "1.2.840.113549.1.1.13": { name: "SHA512-RSA", family: "RSA", hash: "SHA-512" },
  "1.2.840.113549.1.1.10": { name: "RSASSA-PSS", family: "RSA-PSS" },
  "1.2.840.10045.4.1": { name: "ECDSA-SHA1", family: "ECDSA", hash: "SHA-1" },
  "1.2.840.10045.4.3.2": { name: "ECDSA-SHA256", family: "ECDSA", hash: "SHA-256" },
  "1.2.840.10045.4.3.3": { name: "ECDSA-SHA384", family: "ECDSA", hash: "SHA-384" },
  "1.2.840.10045.4.3.4": { name: "ECDSA-SHA512", family: "ECDSA", hash: "SHA-512" },
  "1.3.101.112": { name: "Ed25519", family: "Ed25519" },
};

const OTHER_NAMES: Record<string, string> = {
  "1.2.840.113549.1.1.4": "MD5-RSA",
  "2.16.840.1.101.3.4.3.17": "ML-DSA-44",
  "2.16.840.1.101.3.4.3.18": "ML-DSA-65",
  "2.16.840.1.101.3.4.3.19": "ML-DSA-87",
};

/**
 * Go's name of a signature algorithm (e.g. `ECDSA-SHA256`, `SHA256-RSAPSS`
 * when the AlgorithmIdentifier is given), or the OID.
 */
export function sigAlgName(id: string, algId?: Uint8Array): string {
  if (id === "1.2.840.113549.1.1.10" && algId) {
    try {
      return `${pssParams(algId).hash.replace("-", "")}-RSAPSS`;
    } catch {
      return "RSASSA-PSS";
    }
  }
  return SIG_ALGS[id]?.name ?? OTHER_NAMES[id] ?? id;
}

/** The OID inside a DER AlgorithmIdentifier. */
export function algorithmOid(algId: Uint8Array): string {
  const t = readTlv(algId, 0);
  const o = children(algId, t)[0];
  if (!o || o.tag !== 0x06) throw new DerError("malformed algorithm identifier");
  return readOid(tlvContent(algId, o));
}

const HASH_OIDS: Record<string, { name: string; bytes: number }> = {
  "1.3.14.3.2.26": { name: "SHA-1", bytes: 20 },
  "2.16.840.1.101.3.4.2.1": { name: "SHA-256", bytes: 32 },
  "2.16.840.1.101.3.4.2.2": { name: "SHA-384", bytes: 48 },
  "2.16.840.1.101.3.4.2.3": { name: "SHA-512", bytes: 64 },
};

/** RSASSA-PSS-params (RFC 4055): hash (default SHA-1) and salt length (default 20). */
export function pssParams(algId: Uint8Array): { hash: string; saltLength: number } {
  const t = readTlv(algId, 0);
  const params = children(algId, t)[1];
  let hash = "SHA-1";
  let saltLength = 20;
  if (params && params.tag === 0x30) {
    for (const f of children(algId, params)) {
      if (f.tag === 0xa0) {
        const inner = children(algId, f)[0];
        const o = inner ? children(algId, inner)[0] : undefined;
        const h = o && o.tag === 0x06 ? HASH_OIDS[readOid(tlvContent(algId, o))] : undefined;
        if (!h) throw new DerError("unsupported RSASSA-PSS hash");
        hash = h.name;
      } else if (f.tag === 0xa2) {
        const n = children(algId, f)[0];
        if (!n || n.tag !== 0x02) throw new DerError("malformed RSASSA-PSS salt length");
        saltLength = 0;
        for (const b of tlvContent(algId, n)) saltLength = saltLength * 256 + b;
      }
    }
  }
  return { hash, saltLength };
}

/** The family and curve of a SubjectPublicKeyInfo, for importing it. */
function spkiImportParams(spki: Uint8Array): { family: string; curve?: string } {
  const top = readTlv(spki, 0);
  const algId = children(spki, top)[0];
  if (!algId) throw new DerError("malformed subject public key info");
  const [a, p] = children(spki, algId);
  if (!a) throw new DerError("malformed subject public key info");
  const id = readOid(tlvContent(spki, a));
  if (id === "1.2.840.113549.1.1.1") return { family: "RSA" };
  if (id === "1.3.101.112") return { family: "Ed25519" };
  if (id === "1.2.840.10045.2.1") {
    const c = p && p.tag === 0x06 ? CURVES[readOid(tlvContent(spki, p))] : undefined;
    return { family: "ECDSA", curve: c?.name ?? "unknown" };
  }
  return { family: id };
}

/** ECDSA DER signature → fixed-width r||s. */
function ecdsaDerToRaw(sig: Uint8Array, size: number): Uint8Array {
  const t = readTlv(sig, 0);
  if (t.tag !== 0x30 || t.end !== sig.length) throw new DerError("malformed ECDSA signature");
  const [r, s] = children(sig, t);
  if (!r || !s || r.tag !== 0x02 || s.tag !== 0x02) {
    throw new DerError("malformed ECDSA signature");
  }
  const out = new Uint8Array(2 * size);
  const put = (v: Uint8Array, at: number) => {
    let i = 0;
    while (i < v.length - 1 && v[i] === 0) i++;
    const m = v.subarray(i);
    if (m.length > size) throw new DerError("malformed ECDSA signature");
    out.set(m, at + size - m.length);
  };
  put(tlvContent(sig, r), 0);
  put(tlvContent(sig, s), size);
  return out;
}

/** Fixed-width r||s → ECDSA DER signature. */
function ecdsaRawToDer(raw: Uint8Array): Uint8Array {
  const h = raw.length / 2;
  return seq(uint(raw.subarray(0, h)), uint(raw.subarray(h)));
}

const CURVE_BYTES: Record<string, number> = { "P-256": 32, "P-384": 48, "P-521": 66 };

const keyCache = new Map<string, Promise<CryptoKey>>();

/** Imports a public key for verifying; cached by SPKI so one CA key is imported once. */
function importVerifyKey(
  spki: Uint8Array,
  family: string,
  curve: string | undefined,
  hash: string | undefined,
): Promise<CryptoKey> {
  const cacheKey = `${family}|${hash ?? ""}|${Buffer.from(spki).toString("base64")}`;
  let p = keyCache.get(cacheKey);
  if (!p) {
    const params = family === "RSA"
      ? { name: "RSASSA-PKCS1-v1_5", hash: hash! }
      : family === "RSA-PSS"
      ? { name: "RSA-PSS", hash: hash! }
      : family === "ECDSA"
      ? { name: "ECDSA", namedCurve: curve! }
      : { name: "Ed25519" };
    p = globalThis.crypto.subtle.importKey("spki", spki as BufferSource, params, false, ["verify"]);
    if (keyCache.size > 64) keyCache.clear();
    keyCache.set(cacheKey, p);
  }
  return p;
}

/**
 * Checks `signature` over `data` with the public key `spki`, for the signature
 * algorithm `sigOid`. Resolves to `undefined` when the signature is valid,
 * else to a Go-style reason (e.g. `x509: ECDSA verification failure`).
 */
export async function checkSignature(
  sigOid: string,
  data: Uint8Array,
  signature: Uint8Array,
  spki: Uint8Array,
  algId?: Uint8Array,
): Promise<string | undefined> {
  const alg = SIG_ALGS[sigOid];
  if (!alg) return `x509: cannot verify signature: algorithm unimplemented (${sigAlgName(sigOid)})`;
  let key: { family: string; curve?: string };
  try {
    key = spkiImportParams(spki);
  } catch {
    return "x509: malformed public key";
  }
  let pss: { hash: string; saltLength: number } | undefined;
  if (alg.family === "RSA-PSS") {
    try {
      pss = pssParams(algId ?? seq(oid(sigOid)));
    } catch (e) {
      return `x509: ${(e as Error).message}`;
    }
  }
  const wantFamily = alg.family === "RSA-PSS" ? "RSA" : alg.family;
  if (key.family !== wantFamily) {
    return "x509: signature algorithm specifies an " +
      `${wantFamily} public key, but have public key of type ${key.family}`;
  }
  try {
    const ck = await importVerifyKey(
      spki,
      pss ? "RSA-PSS" : key.family,
      key.curve,
      pss ? pss.hash : alg.hash,
    );
    let sig = signature;
    let params: AlgorithmIdentifier | EcdsaParams | RsaPssParams = { name: ck.algorithm.name };
    if (pss) params = { name: "RSA-PSS", saltLength: pss.saltLength };
    if (alg.family === "ECDSA") {
      const size = CURVE_BYTES[key.curve ?? ""];
      if (!size) return `x509: unsupported elliptic curve ${key.curve}`;
      sig = ecdsaDerToRaw(signature, size);
      params = { name: "ECDSA", hash: alg.hash! };
    }
    const ok = await globalThis.crypto.subtle.verify(
      params,
      ck,
      sig as BufferSource,
      data as BufferSource,
    );
    if (ok) return undefined;
  } catch (e) {
    if (!(e instanceof DerError)) {
      return `x509: ${alg.family} public key not usable: ${(e as Error).message}`;
    }
  }
  if (alg.family === "RSA" || alg.family === "RSA-PSS") return "crypto/rsa: verification error";
  if (alg.family === "ECDSA") return "x509: ECDSA verification failure";
  return "x509: Ed25519 verification failure";
}

/** A key ready to sign X.509 structures. */
export interface Signer {
  /** The DER AlgorithmIdentifier of the signature. */
  algorithmId: Uint8Array;
  /** Signs the DER to-be-signed bytes; returns the X.509 signature value. */
  sign(tbs: Uint8Array): Promise<Uint8Array>;
}

/**
 * A signer for a WebCrypto private key, with the algorithm Go's x509 picks:
 * SHA256-RSA; ECDSA with SHA-256 / SHA-384 / SHA-512 by curve; Ed25519.
 */
export function makeSigner(key: CryptoKey): Signer {
  const alg = key.algorithm as Algorithm & { namedCurve?: string };
  const subtle = globalThis.crypto.subtle;
  if (alg.name === "RSASSA-PKCS1-v1_5") {
    const hash = (key.algorithm as RsaHashedKeyAlgorithm).hash.name;
    const o = hash === "SHA-512"
      ? "1.2.840.113549.1.1.13"
      : hash === "SHA-384"
      ? "1.2.840.113549.1.1.12"
      : "1.2.840.113549.1.1.11";
    return {
      algorithmId: seq(oid(o), NULL),
      sign: async (tbs) =>
        new Uint8Array(await subtle.sign({ name: "RSASSA-PKCS1-v1_5" }, key, tbs as BufferSource)),
    };
  }
  if (alg.name === "ECDSA") {
    const [o, hash] = alg.namedCurve === "P-384"
      ? ["1.2.840.10045.4.3.3", "SHA-384"]
      : alg.namedCurve === "P-521"
      ? ["1.2.840.10045.4.3.4", "SHA-512"]
      : ["1.2.840.10045.4.3.2", "SHA-256"];
    return {
      algorithmId: seq(oid(o!)),
      sign: async (tbs) =>
        ecdsaRawToDer(
          new Uint8Array(
            await subtle.sign({ name: "ECDSA", hash: hash! }, key, tbs as BufferSource),
          ),
        ),
    };
  }
  if (alg.name === "Ed25519") {
    return {
      algorithmId: seq(oid("1.3.101.112")),
      sign: async (tbs) =>
        new Uint8Array(await subtle.sign({ name: "Ed25519" }, key, tbs as BufferSource)),
    };
  }
  throw new DerError(`unsupported signing key algorithm ${alg.name}`);
}

/** The complete signed structure: SEQUENCE { tbs, algorithm, BIT STRING signature }. */
export async function signStructure(signer: Signer, tbs: Uint8Array): Promise<Uint8Array> {
  const sig = await signer.sign(tbs);
  return seq(tbs, signer.algorithmId, bits(sig));
}
