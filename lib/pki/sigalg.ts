/**
 * X.509 signature algorithms: reading a signature AlgorithmIdentifier as Go
 * names it. Checking a signature is x509_signature.ts's (Go's
 * `checkSignature`, one implementation for chains and CSRs).
 *
 * Also the encodings a signer writes: the signature AlgorithmIdentifier Go
 * writes for a WebCrypto algorithm, and ECDSA signatures between WebCrypto's
 * raw r‖s and DER's ECDSA-Sig-Value. Loads no library (the certificate parser
 * names every certificate's algorithm at start-up).
 *
 * @module
 */

import {
  goAlgorithmIdentifier,
  type GoElement,
  goField,
  goParseInt64,
  goTagAndLength,
  Tag,
} from "./der.ts";
import { derOid, derPositiveInteger, derTlv } from "./der_encode.ts";

/** A signature algorithm as read: its OID and the WebCrypto form (hash, PSS salt). */
export interface SigAlg {
  oid: string;
  /**
   * Go's `SignatureAlgorithm.String()` ("SHA256-RSA", "SHA256-RSAPSS", …), ""
   * for Go's UnknownSignatureAlgorithm (unknown OID, PSS parameters Go does
   * not support, Ed25519 with parameters). Absent on values made before it.
   */
  goName?: string;
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

/**
 * Go's name of a signature algorithm (e.g. `ECDSA-SHA256`, `SHA256-RSAPSS`),
 * or the OID.
 */
export function sigAlgName(alg: SigAlg): string {
  if (alg.goName) return alg.goName;
  if (FAMILY[alg.oid] === "RSA-PSS") {
    const h = hashName(alg.web.hash);
    return h ? `${h.replace("-", "")}-RSAPSS` : "RSASSA-PSS";
  }
  return GO_NAMES[alg.oid] ?? alg.oid;
}

// No MD2: Go's signatureAlgorithmDetails has no md2WithRSAEncryption entry, so Go reads that
// OID as UnknownSignatureAlgorithm (found by the oracle, csr-3-6106).
const GO_SIG: Record<string, string> = {
  "1.2.840.113549.1.1.4": "MD5-RSA",
  "1.2.840.113549.1.1.5": "SHA1-RSA",
  "1.3.14.3.2.29": "SHA1-RSA",
  "1.2.840.113549.1.1.11": "SHA256-RSA",
  "1.2.840.113549.1.1.12": "SHA384-RSA",
  "1.2.840.113549.1.1.13": "SHA512-RSA",
  "1.2.840.10040.4.3": "DSA-SHA1",
  "2.16.840.1.101.3.4.3.2": "DSA-SHA256",
  "1.2.840.10045.4.1": "ECDSA-SHA1",
  "1.2.840.10045.4.3.2": "ECDSA-SHA256",
  "1.2.840.10045.4.3.3": "ECDSA-SHA384",
  "1.2.840.10045.4.3.4": "ECDSA-SHA512",
  "1.3.101.112": "Ed25519",
};

const WEB_HASH: Record<string, string> = {
  "SHA1-RSA": "SHA-1",
  "SHA256-RSA": "SHA-256",
  "SHA384-RSA": "SHA-384",
  "SHA512-RSA": "SHA-512",
  "ECDSA-SHA1": "SHA-1",
  "ECDSA-SHA256": "SHA-256",
  "ECDSA-SHA384": "SHA-384",
  "ECDSA-SHA512": "SHA-512",
};

const PSS_HASH: Record<string, [string, number, string]> = {
  "2.16.840.1.101.3.4.2.1": ["SHA-256", 32, "SHA256-RSAPSS"],
  "2.16.840.1.101.3.4.2.2": ["SHA-384", 48, "SHA384-RSAPSS"],
  "2.16.840.1.101.3.4.2.3": ["SHA-512", 64, "SHA512-RSAPSS"],
};

const isAbsentOrNull = (p: Uint8Array | undefined) =>
  p === undefined || p.length === 0 || (p.length === 2 && p[0] === 5 && p[1] === 0);

/** encoding/asn1's `explicit,tag:n` unwrapping: the inner element's header offset, or null (optional, absent). */
function explicitInner(
  b: Uint8Array,
  offset: number,
  limit: number,
  n: number,
  optional: boolean,
): number | null {
  if (offset === limit) {
    if (optional) return null;
    throw new Error("sequence truncated");
  }
  // encoding/asn1 does not bound the wrapper's length; the inner element is read from the parent.
  const t: GoElement = goTagAndLength(b, offset, limit);
  if (t.contentStart === limit) throw new Error("explicit tag has no child");
  if (t.cls === 2 && t.tag === n && (t.end === t.contentStart || t.compound)) {
    if (t.end === t.contentStart) throw new Error("zero length explicit tag was not an asn1.Flag");
    return t.contentStart;
  }
  if (optional) return null;
  throw new Error("explicitly tagged member didn't match");
}

/** The RSA-PSS parameters Go accepts, or undefined (Go: UnknownSignatureAlgorithm). */
function goPssParams(full: Uint8Array | undefined): [string, number, string] | undefined {
  if (!full || full.length === 0) return undefined;
  try {
    const seq = goField(full, 0, full.length, { tag: 16, compound: true, what: "pssParameters" })!;
    let off = seq.contentStart;
    const lim = seq.end;
    const hashAt = explicitInner(full, off, lim, 0, false)!;
    const hash = goAlgorithmIdentifier(full, hashAt, lim, "AlgorithmIdentifier");
    off = hash.end;
    const mgfAt = explicitInner(full, off, lim, 1, false)!;
    const mgf = goAlgorithmIdentifier(full, mgfAt, lim, "AlgorithmIdentifier");
    off = mgf.end;
    const saltAt = explicitInner(full, off, lim, 2, false)!;
    const salt = goField(full, saltAt, lim, { tag: 2, compound: false, what: "int" })!;
    const saltLength = goParseInt64(full.subarray(salt.contentStart, salt.end));
    off = salt.end;
    let trailer = 1n;
    const trAt = explicitInner(full, off, lim, 3, true);
    if (trAt !== null) {
      const tr = goField(full, trAt, lim, { tag: 2, compound: false, what: "int" })!;
      trailer = goParseInt64(full.subarray(tr.contentStart, tr.end));
    }
    const mp = mgf.params;
    if (!mp || mp.length === 0) return undefined;
    const mgfHash = goAlgorithmIdentifier(mp, 0, mp.length, "AlgorithmIdentifier");
    if (
      !isAbsentOrNull(hash.params) || mgf.oid !== "1.2.840.113549.1.1.8" ||
      mgfHash.oid !== hash.oid || !isAbsentOrNull(mgfHash.params) || trailer !== 1n
    ) return undefined;
    const h = PSS_HASH[hash.oid];
    return h && BigInt(h[1]) === saltLength ? h : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A signature AlgorithmIdentifier (OID and parameters element, as read) as
 * Go's `getSignatureAlgorithmFromAI` names it, with its WebCrypto form.
 */
export function sigAlgFromAi(oid: string, params: Uint8Array | undefined): SigAlg {
  if (oid === "1.3.101.112") {
    return { oid, goName: params ? "" : "Ed25519", web: { name: "Ed25519" } };
  }
  if (oid === "1.2.840.113549.1.1.10") {
    const p = goPssParams(params);
    if (!p) return { oid, goName: "", web: { name: oid } };
    return { oid, goName: p[2], web: { name: "RSA-PSS", hash: { name: p[0] }, saltLength: p[1] } };
  }
  const goName = GO_SIG[oid] ?? "";
  const hash = WEB_HASH[goName];
  const web: SigAlg["web"] = !hash
    ? { name: oid }
    : goName.startsWith("ECDSA")
    ? { name: "ECDSA", hash: { name: hash } }
    : { name: "RSASSA-PKCS1-v1_5", hash: { name: hash } };
  return { oid, goName, web };
}

/**
 * A DER ECDSA-Sig-Value from WebCrypto's raw r‖s (two halves of equal
 * length), as Go's `SignASN1` writes it: minimal INTEGERs, a leading zero
 * byte where the top bit is set.
 *
 * @example
 * ```ts
 * ecdsaSignatureDer(new Uint8Array([0, 1, 0x80, 2])); // 30 07 02 01 01 02 02 00 80 02
 * ```
 */
export function ecdsaSignatureDer(raw: Uint8Array): Uint8Array {
  if (raw.length === 0 || raw.length % 2 !== 0) {
    throw new Error("cannot encode the ECDSA signature");
  }
  const half = raw.length / 2;
  return derTlv(
    Tag.SEQUENCE,
    derPositiveInteger(raw.subarray(0, half)),
    derPositiveInteger(raw.subarray(half)),
  );
}

/** The signature OIDs Go writes, by WebCrypto algorithm and hash; RSA's carry NULL parameters. */
const SIGN_OIDS: Record<string, [string, boolean]> = {
  "ECDSA SHA-256": ["1.2.840.10045.4.3.2", false],
  "ECDSA SHA-384": ["1.2.840.10045.4.3.3", false],
  "ECDSA SHA-512": ["1.2.840.10045.4.3.4", false],
  "RSASSA-PKCS1-v1_5 SHA-256": ["1.2.840.113549.1.1.11", true],
  "RSASSA-PKCS1-v1_5 SHA-384": ["1.2.840.113549.1.1.12", true],
  "RSASSA-PKCS1-v1_5 SHA-512": ["1.2.840.113549.1.1.13", true],
  "Ed25519": ["1.3.101.112", false],
};

const NULL_DER = new Uint8Array([0x05, 0x00]);

/**
 * The DER signature AlgorithmIdentifier Go's `crypto/x509` writes for a
 * WebCrypto signing algorithm: ecdsa-with-SHA256/384/512 and Ed25519 with
 * absent parameters, sha256/384/512WithRSAEncryption with NULL. Throws for
 * any other algorithm.
 *
 * @example
 * ```ts
 * signatureAlgorithmDer({ name: "Ed25519" }); // 30 05 06 03 2b 65 70
 * ```
 */
export function signatureAlgorithmDer(alg: Algorithm & { hash?: Algorithm | string }): Uint8Array {
  const hash = hashName(alg.hash);
  const entry = SIGN_OIDS[alg.name === "Ed25519" ? alg.name : `${alg.name} ${hash}`];
  if (!entry) throw new Error(`unsupported signing algorithm ${alg.name} ${hash ?? ""}`.trim());
  return derTlv(Tag.SEQUENCE, derOid(entry[0]), ...entry[1] ? [NULL_DER] : []);
}
