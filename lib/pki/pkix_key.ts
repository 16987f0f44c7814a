/**
 * Describing a SubjectPublicKeyInfo: key type, size and curve, read with
 * joinkit's DER reader (`der.ts`), and Go's `parsePublicKey` rules for the
 * certificate and CSR parsers. Loads no ASN.1 library: `ca hash` and
 * `join-command` parse every CA certificate through here at start-up.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { DerCursor, oidString, Tag, type Tlv } from "./der.ts";
import { InputError } from "../base/errors.ts";

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

/**
 * Describes a DER SubjectPublicKeyInfo (any algorithm; the key itself is
 * read only for an RSA modulus size). Throws `InputError` when it is not one.
 */
export function describeSpki(spki: Uint8Array): KeyInfo {
  const seq = DerCursor.all(spki).enter(Tag.SEQUENCE);
  const ai = seq?.enter(Tag.SEQUENCE);
  const oid = ai?.readOid();
  if (!ai || oid === undefined) {
    throw new InputError("malformed subject public key info: no algorithm identifier");
  }
  const params = ai.empty() ? undefined : ai.readAny();
  const key = seq!.readBitString();
  if (!key) throw new InputError("malformed subject public key info: no subjectPublicKey");
  const type = KEY_ALGS[oid] ?? oid;
  let bits = 0;
  let curve: string | undefined;
  if (type === "RSA") {
    // RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER }
    const rsa = DerCursor.all(key.bytes).enter(Tag.SEQUENCE);
    const n = rsa?.read(Tag.INTEGER);
    if (!rsa || !n || !rsa.read(Tag.INTEGER)) {
      throw new InputError(`malformed ${type} public key: not an RSAPublicKey`);
    }
    bits = bitLength(rsa.content(n));
  }
  if (type === "ECDSA") {
    // A named curve (an OID); any other parameters are an unknown curve, as in Go.
    const named = params?.tag === Tag.OID
      ? oidString(spki.subarray(params.contentStart, params.end))
      : undefined;
    const c = CURVES[named ?? ""];
    curve = c?.name ?? "unknown";
    bits = c?.bits ?? 0;
  }
  if (type === "Ed25519") bits = 256;
  return { type, bits, ...(curve === undefined ? {} : { curve }), spki };
}

/** Key type and size as text, e.g. `ECDSA P-256`, `RSA 2048`, `Ed25519`. */
export function formatKey(k: KeyInfo): string {
  if (k.type === "RSA") return `RSA ${k.bits}`;
  if (k.type === "ECDSA") return `ECDSA ${k.curve}`;
  return k.type;
}

// ---------------------------------------------------------------------------
// Go's `parsePublicKey` and `getPublicKeyAlgorithmFromOID` (crypto/x509).

/** Go's PublicKeyAlgorithm for an SPKI algorithm OID ("" = Unknown: Go leaves PublicKey nil). */
export function goPublicKeyAlgorithm(oid: string): string {
  switch (oid) {
    case "1.2.840.113549.1.1.1":
      return "RSA";
    case "1.2.840.10040.4.1":
      return "DSA";
    case "1.2.840.10045.2.1":
      return "ECDSA";
    case "1.3.101.112":
      return "Ed25519";
  }
  return "";
}

/** `asn1.BitString.RightAlign`: the bits as bytes, shifted so the last bit is bit 0. */
export function rightAlign(bytes: Uint8Array, bitLength: number): Uint8Array {
  const shift = 8 - (bitLength % 8);
  if (shift === 8 || bytes.length === 0) return bytes;
  const a = new Uint8Array(bytes.length);
  a[0] = bytes[0]! >> shift;
  for (let i = 1; i < bytes.length; i++) {
    a[i] = ((bytes[i - 1]! << (8 - shift)) & 0xff) | (bytes[i]! >> shift);
  }
  return a;
}

/** The curves Go's x509 parser knows, with the field prime and b of each. */
export const EC_CURVES: Record<string, { name: string; bits: number; p: bigint; b: bigint }> = {
  "1.3.132.0.33": {
    name: "P-224",
    bits: 224,
    p: (1n << 224n) - (1n << 96n) + 1n,
    b: 0xb4050a850c04b3abf54132565044b0b7d7bfd8ba270b39432355ffb4n,
  },
  "1.2.840.10045.3.1.7": {
    name: "P-256",
    bits: 256,
    p: (1n << 256n) - (1n << 224n) + (1n << 192n) + (1n << 96n) - 1n,
    b: 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn,
  },
  "1.3.132.0.34": {
    name: "P-384",
    bits: 384,
    p: (1n << 384n) - (1n << 128n) - (1n << 96n) + (1n << 32n) - 1n,
    b: 0xb3312fa7e23ee7e4988e056be3f82d19181d9c6efe8141120314088f5013875ac656398d8a2ed19d2a85c8edd3ec2aefn,
  },
  "1.3.132.0.35": {
    name: "P-521",
    bits: 521,
    p: (1n << 521n) - 1n,
    b: 0x0051953eb9618e1c9a1f929a21a0b68540eea2da725b99b315f3b8b489918ef109e156193951ec7e937b1652c0bd3bb1bf073573df883d2c34f1ef451fd46b503f00n,
  },
};

/** `elliptic.Unmarshal` (nistec): an uncompressed point whose coordinates are below p and on the curve. */
export function ecPointValid(
  c: { bits: number; p: bigint; b: bigint },
  data: Uint8Array,
): boolean {
  const n = Math.ceil(c.bits / 8);
  if (data.length !== 1 + 2 * n || data[0] !== 4) return false;
  let x: bigint, y: bigint;
  if (n === 32) {
    // P-256 (nearly every key a cluster holds): four 64-bit words a coordinate.
    const v = new DataView(data.buffer, data.byteOffset, data.length);
    x = (v.getBigUint64(1) << 192n) | (v.getBigUint64(9) << 128n) | (v.getBigUint64(17) << 64n) |
      v.getBigUint64(25);
    y = (v.getBigUint64(33) << 192n) | (v.getBigUint64(41) << 128n) |
      (v.getBigUint64(49) << 64n) | v.getBigUint64(57);
  } else {
    // Both coordinates from one hex text (node:buffer's hex is native).
    const hex = Buffer.from(data.buffer, data.byteOffset + 1, 2 * n).toString("hex");
    x = BigInt("0x" + hex.slice(0, 2 * n));
    y = BigInt("0x" + hex.slice(2 * n));
  }
  const p = c.p;
  if (x >= p || y >= p) return false;
  // y² = x³ - 3x + b (mod p), with one reduction.
  return ((x * x - 3n) * x + c.b - y * y) % p === 0n;
}

/** Bit length of a big-endian unsigned integer. */
function bitLen(m: Uint8Array): number {
  let i = 0;
  while (i < m.length && m[i] === 0) i++;
  return m.length - i === 0 ? 0 : (m.length - i - 1) * 8 + (32 - Math.clz32(m[i]!));
}

/**
 * Go's `parsePublicKey` for a known algorithm: `params` is the parameters
 * element (header included; `undefined` when absent), `key` the right-aligned
 * subjectPublicKey bits. Returns the key's description; throws `InputError`
 * with Go's text.
 */
export function goParsePublicKey(
  algorithm: string,
  params: Uint8Array | undefined,
  key: Uint8Array,
  spki: Uint8Array,
): KeyInfo {
  const fail = (m: string): never => {
    throw new InputError(m);
  };
  const type = KEY_ALGS[algorithm] ?? algorithm;
  switch (algorithm) {
    case "1.2.840.113549.1.1.1": {
      if (!params || params.length !== 2 || params[0] !== 0x05 || params[1] !== 0) {
        fail("x509: RSA key missing NULL parameters");
      }
      const der = DerCursor.all(key).enter(Tag.SEQUENCE);
      if (!der) return fail("x509: invalid RSA public key");
      const n = der.readInteger();
      if (!n) return fail("x509: invalid RSA modulus");
      const e = der.readInt64();
      if (e === undefined) return fail("x509: invalid RSA public exponent");
      if ((n[0]! & 0x80) !== 0 || n.every((b) => b === 0)) {
        fail("x509: RSA modulus is not a positive number");
      }
      if (e <= 0n) fail("x509: RSA public exponent is not a positive number");
      return { type, bits: bitLen(n), spki };
    }
    case "1.2.840.10045.2.1": {
      const oid = params ? DerCursor.all(params).readOid() : undefined;
      if (oid === undefined) return fail("x509: invalid ECDSA parameters");
      const c = EC_CURVES[oid];
      if (!c) return fail("x509: unsupported elliptic curve");
      if (!ecPointValid(c, key)) fail("x509: failed to unmarshal elliptic curve point");
      return { type, bits: c.bits, curve: c.name, spki };
    }
    case "1.3.101.112":
      if (params && params.length !== 0) fail("x509: Ed25519 key encoded with illegal parameters");
      if (key.length !== 32) fail("x509: wrong Ed25519 public key size");
      return { type, bits: 256, spki };
    case "1.2.840.10040.4.1": {
      const y = DerCursor.all(key).readInteger();
      if (!y) return fail("x509: invalid DSA public key");
      const seq = params ? DerCursor.all(params).enter(Tag.SEQUENCE) : undefined;
      const p = seq?.readInteger(), q = seq?.readInteger(), g = seq?.readInteger();
      if (!p || !q || !g) return fail("x509: invalid DSA parameters");
      const positive = (v: Uint8Array) => (v[0]! & 0x80) === 0 && v.some((b) => b !== 0);
      if (![y, p, q, g].every(positive)) fail("x509: zero or negative DSA parameter");
      return { type, bits: bitLen(p), spki };
    }
  }
  return { type, bits: 0, spki };
}

/**
 * Reads a SubjectPublicKeyInfo element as crypto/x509's certificate parser
 * does (cryptobyte): returns the key description and Go's PublicKeyAlgorithm
 * (a key of an unknown algorithm is not parsed, as in Go).
 */
export function goParseSpki(buf: Uint8Array, spkiTlv: Tlv): { key: KeyInfo; algorithm: string } {
  const start = spkiTlv.start;
  if (spkiTlv.end - start === P256_SPKI_LENGTH && startsWithP256Spki(buf, start)) {
    // What the general reading below makes of these exact bytes, without its cursors: an
    // ECDSA key on P-256 (nearly every key of a cluster), whose point is checked.
    const c = EC_CURVES[P256_OID]!;
    const spki = buf.subarray(start, spkiTlv.end);
    if (!ecPointValid(c, spki.subarray(P256_SPKI_PREFIX.length - 1))) {
      throw new InputError("x509: failed to unmarshal elliptic curve point");
    }
    return { key: { type: "ECDSA", bits: c.bits, curve: c.name, spki }, algorithm: "ECDSA" };
  }
  return goParseSpkiElements(buf, spkiTlv);
}

const P256_OID = "1.2.840.10045.3.1.7";

/**
 * The DER of a P-256 SubjectPublicKeyInfo up to its point's first byte (an
 * uncompressed point, 04): SEQUENCE { SEQUENCE { id-ecPublicKey, prime256v1 },
 * BIT STRING (65 bytes, no unused bits) }; the 64 coordinate bytes follow.
 */
const P256_SPKI_PREFIX = new Uint8Array(
  Buffer.from("3059301306072a8648ce3d020106082a8648ce3d03010703420004", "hex"),
);
const P256_SPKI_LENGTH = P256_SPKI_PREFIX.length + 64;

function startsWithP256Spki(buf: Uint8Array, start: number): boolean {
  for (let i = 0; i < P256_SPKI_PREFIX.length; i++) {
    if (buf[start + i] !== P256_SPKI_PREFIX[i]) return false;
  }
  return true;
}

/**
 * {@link goParseSpki} element by element, for every SubjectPublicKeyInfo
 * (goParseSpki takes a shortcut for a P-256 key's exact bytes).
 */
export function goParseSpkiElements(
  buf: Uint8Array,
  spkiTlv: Tlv,
): { key: KeyInfo; algorithm: string } {
  const spkiDer = buf.subarray(spkiTlv.start, spkiTlv.end);
  const spki = new DerCursor(buf, spkiTlv.start, spkiTlv.end).enter(Tag.SEQUENCE);
  if (!spki) throw new InputError("x509: malformed spki");
  const ai = spki.enter(Tag.SEQUENCE);
  if (!ai) throw new InputError("x509: malformed public key algorithm identifier");
  const { oid, params } = goParseAi(ai);
  const bits = spki.readBitString();
  if (!bits) throw new InputError("x509: malformed subjectPublicKey");
  const algorithm = goPublicKeyAlgorithm(oid);
  if (algorithm === "") {
    return { key: { type: KEY_ALGS[oid] ?? oid, bits: 0, spki: spkiDer }, algorithm };
  }
  return {
    key: goParsePublicKey(oid, params, rightAlign(bits.bytes, bits.bitLength), spkiDer),
    algorithm,
  };
}

/** crypto/x509's `parseAI` on the content of an AlgorithmIdentifier. */
export function goParseAi(ai: DerCursor): { oid: string; params: Uint8Array | undefined } {
  const oid = ai.readOid();
  if (oid === undefined) throw new InputError("x509: malformed OID");
  if (ai.empty()) return { oid, params: undefined };
  const p = ai.readAny();
  if (!p) throw new InputError("x509: malformed parameters");
  return { oid, params: ai.bytes(p) };
}

/** The description of a key Go does not parse (unknown algorithm: Go's PublicKey is nil). */
export function unparsedKeyInfo(algorithm: string, spki: Uint8Array): KeyInfo {
  return { type: KEY_ALGS[algorithm] ?? algorithm, bits: 0, spki };
}
