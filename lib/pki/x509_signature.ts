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

import { createHash, createPublicKey, type KeyObject, verify as nodeVerify } from "node:crypto";
import { Buffer } from "node:buffer";
import { integerMinimal, oidString, readTlv, Tag } from "./der.ts";

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

/** A Buffer view of `b`'s bytes (no copy). */
const view = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

function publicKey(spki: Uint8Array): KeyObject {
  // latin1 maps each byte to one character: a distinct key for distinct bytes, without base64's cost.
  const id = view(spki).toString("latin1");
  let k = keyCache.get(id);
  if (!k) {
    const ec = plainEc(spki);
    // An EC key through its JWK (node checks the point is on the curve): Node 24 imports it in
    // ~68 µs (Node 20 took ~140). The undocumented native-handle import of the raw point that
    // Node 20 allowed (~38 µs) is gone in Node 24 and is not used.
    k = ec
      ? createPublicKey({ key: ecJwk(ec), format: "jwk" })
      : createPublicKey({ key: Buffer.from(spki), format: "der", type: "spki" });
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
    return ecdsaVerify(d.hash, data, spki, sig) ? undefined : "x509: ECDSA verification failure";
  }
  let ok = false;
  try {
    ok = sig.length === 64 && nodeVerify(null, data, publicKey(spki), sig);
  } catch {
    ok = false;
  }
  return ok ? undefined : "x509: Ed25519 verification failure";
}

// ---------------------------------------------------------------------------
// ECDSA: Go's `ecdsa.VerifyASN1`

/** A NIST prime curve y² = x³ − 3x + b over GF(p), base point G of prime order n. */
interface EcCurve {
  p: bigint;
  n: bigint;
  nBits: number;
  b: bigint;
  gx: bigint;
  gy: bigint;
  /** Field element size in bytes. */
  size: number;
}

function curve(
  hex: { p: string; n: string; b: string; gx: string; gy: string },
  bits: number,
): EcCurve {
  const n = BigInt("0x" + hex.n);
  return {
    p: BigInt("0x" + hex.p),
    n,
    nBits: n.toString(2).length,
    b: BigInt("0x" + hex.b),
    gx: BigInt("0x" + hex.gx),
    gy: BigInt("0x" + hex.gy),
    size: Math.ceil(bits / 8),
  };
}

/** The curves Go's x509 parser accepts, by named-curve OID (SEC 2 / FIPS 186 parameters). */
const EC_CURVES: Readonly<Record<string, EcCurve>> = {
  "1.3.132.0.33": curve({
    p: "ffffffffffffffffffffffffffffffff000000000000000000000001",
    n: "ffffffffffffffffffffffffffff16a2e0b8f03e13dd29455c5c2a3d",
    b: "b4050a850c04b3abf54132565044b0b7d7bfd8ba270b39432355ffb4",
    gx: "b70e0cbd6bb4bf7f321390b94a03c1d356c21122343280d6115c1d21",
    gy: "bd376388b5f723fb4c22dfe6cd4375a05a07476444d5819985007e34",
  }, 224),
  "1.2.840.10045.3.1.7": curve({
    p: "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff",
    n: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551",
    b: "5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b",
    gx: "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296",
    gy: "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5",
  }, 256),
  "1.3.132.0.34": curve({
    p: "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000ffffffff",
    n: "ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973",
    b: "b3312fa7e23ee7e4988e056be3f82d19181d9c6efe8141120314088f5013875ac656398d8a2ed19d2a85c8edd3ec2aef",
    gx:
      "aa87ca22be8b05378eb1c71ef320ad746e1d3b628ba79b9859f741e082542a385502f25dbf55296c3a545e3872760ab7",
    gy:
      "3617de4a96262c6f5d9e98bf9292dc29f8f41dbd289a147ce9da3113b5f0b8c00a60b1ce1d7e819d7a431d7c90ea0e5f",
  }, 384),
  "1.3.132.0.35": curve({
    p: "1ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    n: "1fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409",
    b: "51953eb9618e1c9a1f929a21a0b68540eea2da725b99b315f3b8b489918ef109e156193951ec7e937b1652c0bd3bb1bf073573df883d2c34f1ef451fd46b503f00",
    gx:
      "c6858e06b70404e9cd9e3ecb662395b4429c648139053fb521f828af606b4d3dbaa14b5e77efe75928fe1dc127a2ffa8de3348b3c1856a429bf97e7e31c2e5bd66",
    gy:
      "11839296a789a3bc0045c8a5fb42c7d1bd998f54449579b446817afbd17273e662c97ee72995ef42640c550b9013fad0761353c7086a272c24088be94769fd16650",
  }, 521),
};

const DIGEST_LEN: Readonly<Record<string, number>> = {
  sha1: 20,
  sha256: 32,
  sha384: 48,
  sha512: 64,
};

/** JWK and OpenSSL names of the curves a JWK knows. */
const JWK_CURVES: Readonly<Record<string, { crv: string; curve: string }>> = {
  "1.2.840.10045.3.1.7": { crv: "P-256", curve: "prime256v1" },
  "1.3.132.0.34": { crv: "P-384", curve: "secp384r1" },
  "1.3.132.0.35": { crv: "P-521", curve: "secp521r1" },
};

/** The DER contents of id-ecPublicKey (1.2.840.10045.2.1). */
const ID_EC_PUBLIC_KEY = Uint8Array.of(0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01);

/** The DER contents of the OIDs of {@link JWK_CURVES}. */
const JWK_CURVE_OIDS: readonly { oid: string; der: Uint8Array }[] = [
  {
    oid: "1.2.840.10045.3.1.7",
    der: Uint8Array.of(0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07),
  },
  { oid: "1.3.132.0.34", der: Uint8Array.of(0x2b, 0x81, 0x04, 0x00, 0x22) },
  { oid: "1.3.132.0.35", der: Uint8Array.of(0x2b, 0x81, 0x04, 0x00, 0x23) },
];

/** Whether `b[from, to)` holds exactly the bytes of `want`. */
function sameBytes(b: Uint8Array, from: number, to: number, want: Uint8Array): boolean {
  if (to - from !== want.length) return false;
  for (let i = 0; i < want.length; i++) if (b[from + i] !== want[i]) return false;
  return true;
}

/** A plain EC public key: its curve's names and uncompressed point (`04 || X || Y`). */
interface PlainEc {
  crv: string;
  curve: string;
  size: number;
  pt: Uint8Array;
}

/**
 * A plain EC SubjectPublicKeyInfo (id-ecPublicKey, a named curve JWK knows,
 * an uncompressed point, nothing else), or undefined.
 */
function plainEc(spki: Uint8Array): PlainEc | undefined {
  try {
    const outer = readTlv(spki, 0);
    if (outer.tag !== Tag.SEQUENCE || outer.end !== spki.length) return undefined;
    const alg = readTlv(spki, outer.contentStart, outer.end);
    if (alg.tag !== Tag.SEQUENCE) return undefined;
    const algOid = readTlv(spki, alg.contentStart, alg.end);
    if (algOid.tag !== Tag.OID) return undefined;
    if (!sameBytes(spki, algOid.contentStart, algOid.end, ID_EC_PUBLIC_KEY)) return undefined;
    const param = readTlv(spki, algOid.end, alg.end);
    if (param.tag !== Tag.OID || param.end !== alg.end) return undefined;
    const oid = JWK_CURVE_OIDS.find((o) => sameBytes(spki, param.contentStart, param.end, o.der))
      ?.oid ?? "";
    const names = JWK_CURVES[oid];
    const c = EC_CURVES[oid];
    const bits = readTlv(spki, alg.end, outer.end);
    if (!names || !c || bits.tag !== Tag.BIT_STRING || bits.end !== outer.end) return undefined;
    const pt = spki.subarray(bits.contentStart + 1, bits.end);
    if (spki[bits.contentStart] !== 0 || pt.length !== 1 + 2 * c.size || pt[0] !== 4) {
      return undefined;
    }
    return { ...names, size: c.size, pt };
  } catch {
    return undefined;
  }
}

/**
 * The JWK of a plain EC key. OpenSSL imports a JWK in about half the time of
 * the same key as DER; both refuse a point that is not on the curve.
 */
function ecJwk(k: PlainEc): { kty: "EC"; crv: string; x: string; y: string } {
  const b64 = (b: Uint8Array) => view(b).toString("base64url");
  return {
    kty: "EC",
    crv: k.crv,
    x: b64(k.pt.subarray(1, 1 + k.size)),
    y: b64(k.pt.subarray(1 + k.size)),
  };
}

/** An EC SubjectPublicKeyInfo's curve and uncompressed point, or undefined. */
function ecPublicKey(spki: Uint8Array): { c: EcCurve; x: bigint; y: bigint } | undefined {
  const k = ecPoint(spki);
  return k && {
    c: k.c,
    x: bytesToBigInt(k.pt.subarray(1, 1 + k.c.size)),
    y: bytesToBigInt(k.pt.subarray(1 + k.c.size)),
  };
}

/**
 * An EC SubjectPublicKeyInfo's curve and uncompressed point bytes (`04 || X || Y`), or
 * undefined: what {@link ecPublicKey} reads, without making numbers of it.
 */
function ecPoint(spki: Uint8Array): { c: EcCurve; pt: Uint8Array } | undefined {
  try {
    const outer = readTlv(spki, 0);
    const alg = readTlv(spki, outer.contentStart, outer.end);
    const algOid = readTlv(spki, alg.contentStart, alg.end);
    const param = readTlv(spki, algOid.end, alg.end);
    if (param.tag !== Tag.OID) return undefined;
    const c = EC_CURVES[oidString(spki.subarray(param.contentStart, param.end)) ?? ""];
    const bits = readTlv(spki, alg.end, outer.end);
    if (!c || bits.tag !== Tag.BIT_STRING) return undefined;
    const pt = spki.subarray(bits.contentStart + 1, bits.end);
    if (spki[bits.contentStart] !== 0 || pt.length !== 1 + 2 * c.size || pt[0] !== 4) {
      return undefined;
    }
    return { c, pt };
  } catch {
    return undefined;
  }
}

function bytesToBigInt(b: Uint8Array): bigint {
  return b.length === 0 ? 0n : BigInt("0x" + Buffer.from(b).toString("hex"));
}

/**
 * Go's `parseSignature`: exactly one DER SEQUENCE of two INTEGERs, each
 * minimally encoded and not negative (cryptobyte `ReadASN1Integer` into `[]byte`).
 */
export function parseEcdsaSignature(sig: Uint8Array): { r: bigint; s: bigint } | undefined {
  const ints = ecdsaSignatureInts(sig);
  return ints && { r: bytesToBigInt(ints[0]), s: bytesToBigInt(ints[1]) };
}

/** {@link parseEcdsaSignature}'s r and s as their DER content bytes, or undefined. */
function ecdsaSignatureInts(sig: Uint8Array): [Uint8Array, Uint8Array] | undefined {
  try {
    const seq = readTlv(sig, 0);
    if (seq.tag !== Tag.SEQUENCE || seq.end !== sig.length) return undefined;
    const ints: Uint8Array[] = [];
    let pos = seq.contentStart;
    for (let i = 0; i < 2; i++) {
      const t = readTlv(sig, pos, seq.end);
      const v = sig.subarray(t.contentStart, t.end);
      if (t.tag !== Tag.INTEGER || !integerMinimal(v) || (v[0]! & 0x80) !== 0) return undefined;
      ints.push(v);
      pos = t.end;
    }
    if (pos !== seq.end) return undefined;
    return [ints[0]!, ints[1]!];
  } catch {
    return undefined;
  }
}

const mod = (a: bigint, m: bigint): bigint => {
  const r = a % m;
  return r < 0n ? r + m : r;
};

function modPow(base: bigint, exp: bigint, m: bigint): bigint {
  let result = 1n;
  let b = mod(base, m);
  let e = exp;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % m;
    b = (b * b) % m;
    e >>= 1n;
  }
  return result;
}

/** Jacobian point (X/Z², Y/Z³); Z = 0 is the point at infinity. */
type Jacobian = [bigint, bigint, bigint];

function jDouble(c: EcCurve, [x, y, z]: Jacobian): Jacobian {
  if (z === 0n || y === 0n) return [1n, 1n, 0n];
  const p = c.p;
  // dbl-2001-b (a = −3)
  const delta = (z * z) % p;
  const gamma = (y * y) % p;
  const beta = (x * gamma) % p;
  const alpha = mod(3n * (x - delta) * (x + delta), p);
  const x3 = mod(alpha * alpha - 8n * beta, p);
  const z3 = mod((y + z) * (y + z) - gamma - delta, p);
  const y3 = mod(alpha * (4n * beta - x3) - 8n * gamma * gamma, p);
  return [x3, y3, z3];
}

function jAdd(c: EcCurve, a: Jacobian, b: Jacobian): Jacobian {
  if (a[2] === 0n) return b;
  if (b[2] === 0n) return a;
  const p = c.p;
  // add-2007-bl
  const z1z1 = (a[2] * a[2]) % p;
  const z2z2 = (b[2] * b[2]) % p;
  const u1 = (a[0] * z2z2) % p;
  const u2 = (b[0] * z1z1) % p;
  const s1 = (a[1] * b[2] * z2z2) % p;
  const s2 = (b[1] * a[2] * z1z1) % p;
  const h = mod(u2 - u1, p);
  const r = mod(2n * (s2 - s1), p);
  if (h === 0n) return r === 0n ? jDouble(c, a) : [1n, 1n, 0n];
  const i = (4n * h * h) % p;
  const j = (h * i) % p;
  const v = (u1 * i) % p;
  const x3 = mod(r * r - j - 2n * v, p);
  const y3 = mod(r * (v - x3) - 2n * s1 * j, p);
  const z3 = mod(((a[2] + b[2]) * (a[2] + b[2]) - z1z1 - z2z2) * h, p);
  return [x3, y3, z3];
}

/**
 * SEC 1 §4.1.4 as Go's `verifyNISTEC` does it: r and s in [1, n−1], the hash
 * truncated to the order's bit length (`hashToNat`), R = u₁G + u₂Q (one pass,
 * Shamir's trick), and Rx mod n = r.
 */
export function ecdsaVerifyDigest(
  spki: Uint8Array,
  digest: Uint8Array,
  r: bigint,
  s: bigint,
): boolean {
  const key = ecPublicKey(spki);
  if (!key) return false;
  const { c } = key;
  if (r <= 0n || r >= c.n || s <= 0n || s >= c.n) return false;
  let h = digest;
  let e: bigint;
  const nSize = Math.ceil(c.nBits / 8);
  if (h.length >= nSize) {
    h = h.subarray(0, nSize);
    e = bytesToBigInt(h) >> BigInt(h.length * 8 - c.nBits);
  } else e = bytesToBigInt(h);
  e = mod(e, c.n);
  const w = modPow(s, c.n - 2n, c.n);
  const u1 = (e * w) % c.n;
  const u2 = (r * w) % c.n;
  const g: Jacobian = [c.gx, c.gy, 1n];
  const q: Jacobian = [key.x, key.y, 1n];
  const gq = jAdd(c, g, q);
  let acc: Jacobian = [1n, 1n, 0n];
  const bits = Math.max(u1.toString(2).length, u2.toString(2).length);
  for (let i = bits - 1; i >= 0; i--) {
    acc = jDouble(c, acc);
    const b1 = (u1 >> BigInt(i)) & 1n, b2 = (u2 >> BigInt(i)) & 1n;
    if (b1 && b2) acc = jAdd(c, acc, gq);
    else if (b1) acc = jAdd(c, acc, g);
    else if (b2) acc = jAdd(c, acc, q);
  }
  if (acc[2] === 0n) return false;
  const zInv = modPow(acc[2], c.p - 2n, c.p);
  const x = (acc[0] * zInv * zInv) % c.p;
  return x % c.n === r;
}

/**
 * `ecdsa.VerifyASN1(pub, hash(data), sig)`. node:crypto does the work, except
 * for a digest shorter than half the field size (SHA-1 on P-384 and P-521,
 * SHA-256 on P-521): Deno's node:crypto refuses such prehashes and reports
 * `false`, where Go (and OpenSSL) verify them.
 */
function ecdsaVerify(hash: string, data: Buffer, spki: Uint8Array, sig: Buffer): boolean {
  const ints = ecdsaSignatureInts(sig);
  if (!ints) return false;
  const digestLen = DIGEST_LEN[hash] ?? 0;
  // The point (1 + 2·size bytes) lies inside the key: a key this short has no curve that large.
  const key = spki.length > 1 + 4 * digestLen ? ecPoint(spki) : undefined;
  if (key && digestLen * 2 < key.c.size) {
    const [r, s] = [bytesToBigInt(ints[0]), bytesToBigInt(ints[1])];
    return ecdsaVerifyDigest(spki, createHash(hash).update(data).digest(), r, s);
  }
  try {
    // The KeyObject itself (DER signatures are the default dsaEncoding): Node 24 tells an
    // options object from a key by two failed internal slot reads that each throw, ~10 µs a
    // verification, a sixth of a P-256 one.
    return nodeVerify(hash, data, publicKey(spki), sig);
  } catch {
    return false;
  }
}
