/**
 * A cluster CA as kubeadm creates `ca.crt`/`ca.key` (`pkiutil.NewCertificateAuthority`
 * → `NewSelfSignedCACert`): self-signed, subject CN only, SAN DNS:<CN>,
 * BasicConstraints CA:TRUE (critical), KeyUsage digitalSignature +
 * keyEncipherment + keyCertSign (critical), a SubjectKeyIdentifier, a random
 * positive 63-bit serial, NotBefore backdated 5 minutes
 * (`CertificateBackdate`) and NotAfter = now + validity (default 87600h,
 * `CACertificateValidityPeriod`).
 *
 * Loads @peculiar/x509: import this module only from `ca create`.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { Buffer } from "node:buffer";
import { x509 } from "./x509.ts";
import {
  describeKey,
  exportPrivateKeyPem,
  exportSpki,
  generateKeyPair,
  type KeyType,
  signingAlgorithm,
} from "./keys.ts";
import { children, readTlv, tlvContent } from "./der.ts";
import { encodePem } from "./pem.ts";
import { spkiHash } from "./pin.ts";
import { InputError } from "../base/errors.ts";
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
function subjectKeyId(spki: Uint8Array): string {
  const parts = children(spki, readTlv(spki, 0));
  const bits = tlvContent(spki, parts[1]!).subarray(1); // skip the unused-bits octet
  return createHash("sha256").update(bits).digest("hex").slice(0, 40);
}

function wholeSeconds(ms: number): Date {
  return new Date(Math.floor(ms / 1000) * 1000);
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
export async function createCa(opts: CaOptions): Promise<CreatedCa> {
  if (opts.commonName === "") throw new InputError("--cn must not be empty");
  if (!(opts.validityMs > 0)) throw new InputError("validity must be positive");
  const notBefore = wholeSeconds(opts.now.getTime() - CA_BACKDATE_MS);
  const notAfter = wholeSeconds(opts.now.getTime() + opts.validityMs);
  if (notAfter.getUTCFullYear() > 9999) {
    throw new InputError("validity ends after the year 9999");
  }
  const keys = await generateKeyPair(opts.keyType);
  const spki = await exportSpki(keys.publicKey);
  const serialHex = randomSerialHex(opts.random);
  const extensions: InstanceType<typeof x509.Extension>[] = [
    new x509.KeyUsagesExtension(
      x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment |
        x509.KeyUsageFlags.keyCertSign,
      true,
    ),
    new x509.BasicConstraintsExtension(true, undefined, true),
    new x509.SubjectKeyIdentifierExtension(subjectKeyId(spki)),
  ];
  // kubeadm: DNSNames: []string{cfg.CommonName} (only representable as IA5String).
  if (/^[\x20-\x7e]+$/.test(opts.commonName)) {
    extensions.push(
      new x509.SubjectAlternativeNameExtension([{ type: "dns", value: opts.commonName }]),
    );
  }
  const name = new x509.Name([{ CN: [opts.commonName] }]);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialHex.length % 2 ? "0" + serialHex : serialHex,
    subject: name,
    issuer: name,
    notBefore,
    notAfter,
    publicKey: keys.publicKey,
    signingKey: keys.privateKey,
    signingAlgorithm: signingAlgorithm(keys.privateKey),
    extensions,
  });
  const certDer = new Uint8Array(cert.rawData);
  return {
    certPem: encodePem("CERTIFICATE", certDer),
    keyPem: await exportPrivateKeyPem(keys.privateKey),
    certDer,
    serialHex,
    notBefore,
    notAfter,
    hash: spkiHash(spki),
    keyDescription: describeKey(keys.privateKey),
  };
}
