/**
 * A cluster CA as kubeadm creates `ca.crt`/`ca.key` (`pkiutil.NewCertificateAuthority`
 * → `NewSelfSignedCACert`): self-signed, subject CN only, SAN DNS:<CN>,
 * BasicConstraints CA:TRUE (critical), KeyUsage digitalSignature +
 * keyEncipherment + keyCertSign (critical), a SubjectKeyIdentifier, a random
 * positive 63-bit serial, NotBefore backdated 5 minutes
 * (`CertificateBackdate`) and NotAfter = now + validity (default 87600h,
 * `CACertificateValidityPeriod`).
 *
 * The key is made, exported and signs with `node:crypto` key objects (under
 * `deno run` the first WebCrypto key generation costs ~40 ms of start-up); the
 * certificate is assembled from DER pieces (`der_encode.ts`): no ASN.1 schema
 * library is loaded.
 *
 * @module
 */

import {
  createHash,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign as nodeSign,
} from "node:crypto";
import { Buffer } from "node:buffer";
import type { KeyType } from "./keys.ts";
import { children, readTlv, tlvContent } from "./der.ts";
import { derOid, derPositiveInteger, derTime, derTlv } from "./der_encode.ts";
import { encodePem } from "./pem.ts";
import { spkiHash } from "./pin.ts";
import { InputError } from "../base/errors.ts";
import { goQuote } from "../go/quote.ts";
import { cryptoRandom, type RandomBytes } from "../base/random.ts";

/** kubeadm's `CertificateBackdate`: NotBefore is this much before now. */
export const CA_BACKDATE_MS = 5 * 60 * 1000;

/** kubeadm's default CA lifetime, `CACertificateValidityPeriod` (87600h, 10×365 days). */
export const DEFAULT_CA_VALIDITY_MS = 87600 * 3600 * 1000;

/** What {@link createCa} needs. */
export interface CaOptions {
  /** Subject CN (kubeadm: `kubernetes`). */
  commonName: string;
  /** Key type (kubeadm default: RSA 2048). */
  keyType: KeyType;
  /** The clock; NotBefore = now − 5 min, NotAfter = now + validity. */
  now: Date;
  /** Lifetime in milliseconds, counted from `now` (not from the backdated NotBefore). */
  validityMs: number;
  /** Source of the serial number (default: the CSPRNG). */
  random?: RandomBytes;
}

/** A new CA: PEM files to write and facts to report. */
export interface CreatedCa {
  /** `ca.crt` content. */
  certPem: string;
  /** `ca.key` content (PKCS#1 / SEC 1 / PKCS#8 as kubeadm writes). Never print it. */
  keyPem: string;
  /** The certificate, DER. */
  certDer: Uint8Array;
  /** Serial number, lowercase hex without leading zeros. */
  serialHex: string;
  /** Certificate NotBefore (whole seconds). */
  notBefore: Date;
  /** Certificate NotAfter (whole seconds). */
  notAfter: Date;
  /** `sha256:<hex>` pin of the CA key (`--discovery-token-ca-cert-hash`). */
  hash: string;
  /** e.g. `RSA 2048`. */
  keyDescription: string;
}

/**
 * A random serial as client-go/kubeadm picks it: uniform in [1, 2^63 − 1),
 * returned as the hex of its positive DER INTEGER content.
 */
export function randomSerialHex(random: RandomBytes = cryptoRandom): string {
  const max = (1n << 63n) - 2n; // rand.Int(MaxInt64 - 1) + 1
  // Rejection sampling over 63 bits for an unbiased value in [0, max).
  for (;;) {
    const b = random(8);
    b[0] = b[0]! & 0x7f;
    const v = BigInt("0x" + Buffer.from(b).toString("hex"));
    if (v < max) return (v + 1n).toString(16);
  }
}

/** RFC 7093 method 1 / Go ≥1.25: the leftmost 160 bits of SHA-256 over the subjectPublicKey bits. */
function subjectKeyId(spki: Uint8Array): Uint8Array {
  const parts = children(spki, readTlv(spki, 0));
  const bits = tlvContent(spki, parts[1]!).subarray(1); // skip the unused-bits octet
  return new Uint8Array(createHash("sha256").update(bits).digest().subarray(0, 20));
}

function wholeSeconds(ms: number): Date {
  return new Date(Math.floor(ms / 1000) * 1000);
}

/** What {@link caCertificateDer} signs: everything but the key generation and the draws. */
export interface CaCertificateInput {
  /** Subject and issuer CN. */
  commonName: string;
  /** Serial number as hex (as {@link randomSerialHex} returns it). */
  serialHex: string;
  /** Whole seconds. */
  notBefore: Date;
  /** Whole seconds. */
  notAfter: Date;
  /** The DER SubjectPublicKeyInfo of `privateKey`'s public half. */
  spki: Uint8Array;
  /** The signing key: RSA (PKCS #1 v1.5, SHA-256), ECDSA P-256/P-384/P-521, Ed25519. */
  privateKey: KeyObject;
}

/** The node:crypto arguments that generate each key type (RSA with e = 65537). */
function generate(type: KeyType): KeyObject {
  switch (type) {
    case "rsa-2048":
    case "rsa-3072":
    case "rsa-4096":
      return generateKeyPairSync("rsa", {
        modulusLength: Number(type.slice(4)),
        publicExponent: 65537,
      }).privateKey;
    case "ecdsa-p256":
      return generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey;
    case "ecdsa-p384":
      return generateKeyPairSync("ec", { namedCurve: "P-384" }).privateKey;
    case "ed25519":
      return generateKeyPairSync("ed25519").privateKey;
  }
}

const CURVES: Record<string, { name: string; hash: string; arc: string }> = {
  prime256v1: { name: "P-256", hash: "sha256", arc: "2" },
  "P-256": { name: "P-256", hash: "sha256", arc: "2" },
  secp384r1: { name: "P-384", hash: "sha384", arc: "3" },
  "P-384": { name: "P-384", hash: "sha384", arc: "3" },
  secp521r1: { name: "P-521", hash: "sha512", arc: "4" },
  "P-521": { name: "P-521", hash: "sha512", arc: "4" },
};

/** How a key signs as Go's `CreateCertificate` picks: digest, AlgorithmIdentifier, description. */
export interface Signing {
  /** node:crypto digest name; `null` for Ed25519 (no pre-hash). */
  hash: string | null;
  ecdsa: boolean;
  algorithmId: Uint8Array;
  /** e.g. `RSA 2048`, `ECDSA P-256`, `Ed25519`. */
  description: string;
}

/**
 * How `key` signs a certificate as Go's `CreateCertificate` picks: SHA-256
 * with RSA (PKCS #1 v1.5), ECDSA with the curve's hash, Ed25519; also the
 * AlgorithmIdentifier DER and a description. Other keys are refused.
 */
export function signing(key: KeyObject): Signing {
  const details = key.asymmetricKeyDetails ?? {};
  switch (key.asymmetricKeyType) {
    case "rsa":
      return {
        hash: "sha256",
        ecdsa: false,
        // sha256WithRSAEncryption carries a NULL.
        algorithmId: derTlv(
          0x30,
          derOid("1.2.840.113549.1.1.11"),
          new Uint8Array([0x05, 0x00]),
        ),
        description: `RSA ${details.modulusLength}`,
      };
    case "ec": {
      const c = CURVES[details.namedCurve ?? ""];
      if (!c) throw new InputError(`unsupported EC curve ${details.namedCurve ?? "(unknown)"}`);
      return {
        hash: c.hash,
        ecdsa: true,
        algorithmId: derTlv(0x30, derOid(`1.2.840.10045.4.3.${c.arc}`)),
        description: `ECDSA ${c.name}`,
      };
    }
    case "ed25519":
      return {
        hash: null,
        ecdsa: false,
        algorithmId: derTlv(0x30, derOid("1.3.101.112")), // no parameters
        description: "Ed25519",
      };
    default:
      throw new InputError(`unsupported key algorithm ${key.asymmetricKeyType ?? "(unknown)"}`);
  }
}

/**
 * Go's `encoding/asn1` choice for a string without an explicit type
 * (`makeField`): a PrintableString when every character is in the
 * PrintableString set — `*` and `&` rejected when marshalling — else a
 * UTF8String.
 */
function goStringDer(s: string): Uint8Array {
  const printable = /^[A-Za-z0-9 '()+,\-./:=?]*$/.test(s);
  return derTlv(printable ? 0x13 : 0x0c, new TextEncoder().encode(s));
}

/** `[0] EXPLICIT INTEGER 2`: version v3. */
const V3 = new Uint8Array([0xa0, 0x03, 0x02, 0x01, 0x02]);
const BOOL_TRUE = new Uint8Array([0x01, 0x01, 0xff]);

/** One Extension: `extnID`, `critical` (DEFAULT FALSE, so only when true), `extnValue`. */
function extensionDer(oid: string, critical: boolean, value: Uint8Array): Uint8Array {
  return critical
    ? derTlv(0x30, derOid(oid), BOOL_TRUE, derTlv(0x04, value))
    : derTlv(0x30, derOid(oid), derTlv(0x04, value));
}

/**
 * The self-signed CA certificate (DER) kubeadm's `NewSelfSignedCACert` +
 * Go's `x509.CreateCertificate` write for `input`: extensions in Go's order
 * (KeyUsage, BasicConstraints, SubjectKeyIdentifier, SubjectAltName), no
 * AuthorityKeyIdentifier (self-signed), ECDSA signatures DER-encoded
 * (minimal INTEGERs, as Go's `ecdsa.SignASN1`).
 *
 * @example
 * ```ts ignore
 * const der = caCertificateDer({ commonName: "kubernetes", serialHex: "1", notBefore,
 *   notAfter, spki, privateKey });
 * ```
 */
export function caCertificateDer(input: CaCertificateInput): Uint8Array {
  const { hash, ecdsa, algorithmId } = signing(input.privateKey);
  const name = derTlv(
    0x30,
    derTlv(0x31, derTlv(0x30, derOid("2.5.4.3"), goStringDer(input.commonName))),
  );
  const serial = Buffer.from(
    input.serialHex.length % 2 ? "0" + input.serialHex : input.serialHex,
    "hex",
  );
  const extensions = [
    // digitalSignature | keyEncipherment | keyCertSign: bits 0, 2, 5 (6 bits used).
    extensionDer("2.5.29.15", true, new Uint8Array([0x03, 0x02, 0x02, 0xa4])),
    // BasicConstraints { cA TRUE } (MaxPathLen -1: omitted).
    extensionDer("2.5.29.19", true, derTlv(0x30, BOOL_TRUE)),
    extensionDer("2.5.29.14", false, derTlv(0x04, subjectKeyId(input.spki))),
  ];
  // kubeadm: DNSNames: []string{cfg.CommonName}. Go's marshalSANs takes any
  // IA5String (ASCII, control characters included) and refuses other names
  // (createCa refuses them as Go does; this builder leaves the SAN out).
  if (!/[\u0080-\uffff]/.test(input.commonName)) {
    const dns = new Uint8Array(input.commonName.length);
    for (let i = 0; i < dns.length; i++) dns[i] = input.commonName.charCodeAt(i);
    extensions.push(extensionDer("2.5.29.17", false, derTlv(0x30, derTlv(0x82, dns))));
  }
  const tbs = derTlv(
    0x30,
    V3,
    derPositiveInteger(serial),
    algorithmId,
    name,
    derTlv(0x30, derTime(input.notBefore), derTime(input.notAfter)),
    name,
    input.spki,
    derTlv(0xa3, derTlv(0x30, ...extensions)),
  );
  const signature = new Uint8Array(
    nodeSign(hash, tbs, ecdsa ? { key: input.privateKey, dsaEncoding: "der" } : input.privateKey),
  );
  return derTlv(0x30, tbs, algorithmId, derTlv(0x03, new Uint8Array([0]), signature));
}

/**
 * Why Go's `CreateCertificate` would refuse kubeadm's CA template for this
 * common name, or undefined: kubeadm puts the name in the SAN as a DNS name,
 * and `marshalSANs` takes only IA5String (ASCII) names.
 */
export function caNameError(commonName: string): string | undefined {
  return /[\u0080-\uffff]/.test(commonName)
    ? `x509: ${goQuote(commonName)} cannot be encoded as an IA5String`
    : undefined;
}

/**
 * Creates a self-signed CA the way kubeadm does (see the module doc).
 *
 * @example
 * ```ts
 * const ca = await createCa({ commonName: "kubernetes", keyType: "rsa-2048", now: new Date(),
 *   validityMs: DEFAULT_CA_VALIDITY_MS });
 * ca.hash; // "sha256:…"
 * ```
 */
export function createCa(opts: CaOptions): Promise<CreatedCa> {
  // Synchronous work behind the promise API callers await (refusals reject).
  return Promise.resolve(opts).then(makeCa);
}

function makeCa(opts: CaOptions): CreatedCa {
  if (opts.commonName === "") throw new InputError("--cn must not be empty");
  const bad = caNameError(opts.commonName);
  if (bad) throw new InputError(bad);
  if (!(opts.validityMs > 0)) throw new InputError("validity must be positive");
  const notBefore = wholeSeconds(opts.now.getTime() - CA_BACKDATE_MS);
  const notAfter = wholeSeconds(opts.now.getTime() + opts.validityMs);
  if (notAfter.getUTCFullYear() > 9999) {
    throw new InputError("validity ends after the year 9999");
  }
  const privateKey = generate(opts.keyType);
  const spki = new Uint8Array(createPublicKey(privateKey).export({ type: "spki", format: "der" }));
  const serialHex = randomSerialHex(opts.random);
  const certDer = caCertificateDer({
    commonName: opts.commonName,
    serialHex,
    notBefore,
    notAfter,
    spki,
    privateKey,
  });
  // As client-go's keyutil.MarshalPrivateKeyToPEM: PKCS #1, SEC 1, PKCS #8.
  const kind = privateKey.asymmetricKeyType;
  const keyFormat = kind === "rsa" ? "pkcs1" : kind === "ec" ? "sec1" : "pkcs8";
  return {
    certPem: encodePem("CERTIFICATE", certDer),
    keyPem: String(privateKey.export({ type: keyFormat, format: "pem" })),
    certDer,
    serialHex,
    notBefore,
    notAfter,
    hash: spkiHash(spki),
    keyDescription: signing(privateKey).description,
  };
}
