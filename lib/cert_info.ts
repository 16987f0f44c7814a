/**
 * Reading X.509 certificates with `@peculiar/x509`'s ASN.1 schema
 * (`@peculiar/asn1-x509`): every field `cert inspect` and `cert verify` show
 * (subject, issuer, serial, validity, SANs, key usage, EKUs, basic
 * constraints, key identifiers, key type), plus a JSON-ready summary and a
 * compact time-left formatter.
 *
 * @module
 */

import { AsnConvert } from "@peculiar/asn1-schema";
import { Certificate } from "@peculiar/asn1-x509";
import { certificateParts, readTlv, tlvBytes } from "./der.ts";
import { InputError } from "./errors.ts";
import { spkiHash } from "./pin.ts";
import {
  colonHex,
  describeAsnSpki,
  emptySans,
  EXT,
  type Extension,
  extensionList,
  formatKey,
  formatName,
  type KeyInfo,
  type Name,
  nameFromX509,
  parseAsn,
  parseAuthorityKeyId,
  parseBasicConstraints,
  parseExtKeyUsage,
  parseIp,
  parseKeyUsage,
  parseSans,
  parseSubjectKeyId,
  type Sans,
} from "./pkix.ts";
import { readSigAlg, type SigAlg, sigAlgName } from "./sigalg.ts";
import { ekuName, keyUsageNames } from "./usages.ts";
import { formatRfc3339 } from "./time.ts";

/** A parsed certificate. */
export interface Cert {
  der: Uint8Array;
  /** DER TBSCertificate (what the signature covers). */
  tbs: Uint8Array;
  sigOid: string;
  /** The signature algorithm (OID and WebCrypto parameters). */
  sigAlg: SigAlg;
  signature: Uint8Array;
  version: number;
  /** Serial number magnitude bytes (as encoded, sign byte included). */
  serial: Uint8Array;
  issuer: Name;
  issuerDer: Uint8Array;
  subject: Name;
  subjectDer: Uint8Array;
  notBefore: Date;
  notAfter: Date;
  key: KeyInfo;
  extensions: Extension[];
  /** Go key-usage mask; `undefined` without the extension. */
  keyUsage: number | undefined;
  /** EKU OIDs; `undefined` without the extension. */
  extKeyUsage: string[] | undefined;
  basicConstraints: { isCA: boolean; maxPathLen: number } | undefined;
  subjectKeyId: Uint8Array | undefined;
  authorityKeyId: Uint8Array | undefined;
  sans: Sans;
  /**
   * Go's x509.SignatureAlgorithm String(): "SHA256-RSA", "SHA256-RSAPSS",
   * "ECDSA-SHA256", "Ed25519", "SHA1-RSA", …; "" when Go calls it
   * UnknownSignatureAlgorithm (unknown OID, unsupported PSS params, Ed25519
   * with params).
   */
  signatureAlgorithm: string;
  /** Go's PublicKeyAlgorithm: "RSA" | "ECDSA" | "Ed25519" | "DSA" | "X25519" | "" (unknown: no key). */
  publicKeyAlgorithm: string;
  /** Whether the basicConstraints extension was present (Go's BasicConstraintsValid). */
  basicConstraintsValid: boolean;
  isCA: boolean;
  /** -1 = no pathLen (unlimited). */
  maxPathLen: number;
  hasSanExtension: boolean;
  /** Raw SAN extension value, for Go's alreadyInChain comparison. */
  sanExtension: Uint8Array | undefined;
  /** iPAddress SANs as raw 4/16 bytes, in order (`sans.ips` keeps the text form). */
  sanIpBytes: Uint8Array[];
  nameConstraints: NameConstraints | undefined;
  /** Dotted OIDs of critical extensions Go does not handle. */
  unhandledCriticalExtensions: string[];
}

/** A parsed NameConstraints extension (Go's Permitted… and Excluded… fields). */
export interface NameConstraints {
  critical: boolean;
  permittedDns: string[];
  excludedDns: string[];
  permittedEmail: string[];
  excludedEmail: string[];
  permittedUri: string[];
  excludedUri: string[];
  permittedIp: { ip: Uint8Array; mask: Uint8Array }[];
  excludedIp: { ip: Uint8Array; mask: Uint8Array }[];
}

/**
 * The name Go's UnknownAuthorityError hint gives a candidate certificate:
 * its CN, else its first Organization, else `serial:<decimal>`.
 */
export function goCertName(c: Cert): string {
  if (c.subject.commonName !== "") return c.subject.commonName;
  if (c.subject.organization.length > 0) return c.subject.organization[0]!;
  return "serial:" + serialDecimal(c.serial);
}

const KEY_ALGS_GO: Record<string, string> = {
  "1.2.840.113549.1.1.1": "RSA",
  "1.2.840.10045.2.1": "ECDSA",
  "1.3.101.112": "Ed25519",
  "1.3.101.110": "X25519",
  "1.2.840.10040.4.1": "DSA",
};

const bytes = (b: ArrayBuffer) => new Uint8Array(b);

/** DER of a parsed part, made on demand; a failure is an input error, not a crash. */
function reencode(part: object, what: string): Uint8Array {
  try {
    return bytes(AsnConvert.serialize(part));
  } catch {
    throw new InputError(`x509: malformed certificate ${what}`);
  }
}

/**
 * Parses a DER certificate. Errors are `InputError`s without the input name.
 */
export function parseCertificate(der: Uint8Array): Cert {
  try {
    if (readTlv(der, 0).end !== der.length) throw new InputError("trailing data");
    const c = parseAsn(der, Certificate, "certificate");
    const t = c.tbsCertificate;
    const time = (v: { utcTime?: Date; generalTime?: Date }) => {
      const d = v.utcTime ?? v.generalTime;
      if (!d || isNaN(d.getTime())) throw new InputError("malformed certificate validity");
      return d;
    };
    const extensions = extensionList(t.extensions);
    const get = (oid: string) => extensions.find((e) => e.oid === oid)?.value;
    const ku = get(EXT.keyUsage);
    const eku = get(EXT.extKeyUsage);
    const bc = get(EXT.basicConstraints);
    const ski = get(EXT.subjectKeyId);
    const aki = get(EXT.authorityKeyId);
    const san = get(EXT.subjectAltName);
    const sigAlg = readSigAlg(c.signatureAlgorithm);
    const parts = certificateParts(der);
    const bcv = bc ? parseBasicConstraints(bc) : undefined;
    const sans = san ? parseSans(san) : emptySans();
    const sigName = sigAlgName(sigAlg);
    const keyType = KEY_ALGS_GO[t.subjectPublicKeyInfo.algorithm.algorithm] ?? "";
    return {
      der,
      tbs: bytes(c.tbsCertificateRaw ?? AsnConvert.serialize(t)),
      sigOid: sigAlg.oid,
      sigAlg,
      signature: bytes(c.signatureValue),
      version: t.version + 1,
      serial: bytes(t.serialNumber),
      issuer: nameFromX509(t.issuer),
      issuerDer: tlvBytes(der, parts.issuer),
      subject: nameFromX509(t.subject),
      subjectDer: tlvBytes(der, parts.subject),
      notBefore: time(t.validity.notBefore),
      notAfter: time(t.validity.notAfter),
      key: describeAsnSpki(
        t.subjectPublicKeyInfo,
        () => reencode(t.subjectPublicKeyInfo, "public key"),
      ),
      extensions,
      keyUsage: ku ? parseKeyUsage(ku) : undefined,
      extKeyUsage: eku ? parseExtKeyUsage(eku) : undefined,
      basicConstraints: bcv,
      subjectKeyId: ski ? parseSubjectKeyId(ski) : undefined,
      authorityKeyId: aki ? parseAuthorityKeyId(aki) : undefined,
      sans,
      // Interim values from the schema-based reader (replaced by the Go port).
      signatureAlgorithm: sigName.includes(".") || sigName === "RSASSA-PSS" ? "" : sigName,
      publicKeyAlgorithm: keyType,
      basicConstraintsValid: bcv !== undefined,
      isCA: bcv?.isCA ?? false,
      maxPathLen: bcv?.maxPathLen ?? -1,
      hasSanExtension: san !== undefined,
      sanExtension: san,
      sanIpBytes: sans.ips.map((ip) => parseIp(ip)!),
      nameConstraints: undefined,
      unhandledCriticalExtensions: extensions.filter((e) =>
        e.critical && ![
          EXT.keyUsage,
          EXT.extKeyUsage,
          EXT.basicConstraints,
          EXT.subjectAltName,
          EXT.subjectKeyId,
          EXT.authorityKeyId,
        ].includes(e.oid as never)
      ).map((e) => e.oid),
    };
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError("malformed certificate");
  }
}

/** Parses a DER certificate, prefixing errors with `source`. */
export function parseCertificateFrom(der: Uint8Array, source: string): Cert {
  try {
    return parseCertificate(der);
  } catch (e) {
    if (e instanceof InputError) {
      throw new InputError(`${source}: invalid certificate: ${e.message}`);
    }
    throw e;
  }
}

/** Serial number as Go prints a `*big.Int` in decimal. */
export function serialDecimal(serial: Uint8Array): string {
  let n = 0n;
  for (const b of serial) n = (n << 8n) | BigInt(b);
  return n.toString(10);
}

/** Size in bits of the serial's value (e.g. up to 128 for the signer's serials). */
export function serialBits(serial: Uint8Array): number {
  let i = 0;
  while (i < serial.length && serial[i] === 0) i++;
  if (i === serial.length) return 0;
  return (serial.length - i - 1) * 8 + (32 - Math.clz32(serial[i]!));
}

/** Whether the certificate is a CA (basicConstraints CA=true). */
export function isCa(c: Cert): boolean {
  return c.basicConstraints?.isCA === true;
}

/**
 * Time left as `kubeadm certs check-expiration` prints it (apimachinery's
 * `ShortHumanDuration`): `45s`, `12m`, `23h`, `364d`, `9y`, `<invalid>` when past.
 */
export function formatTimeLeft(ms: number): string {
  const s = Math.trunc(ms / 1000);
  if (s < -1) return "<invalid>";
  if (s < 0) return "0s";
  if (s < 60) return `${s}s`;
  const m = Math.trunc(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.trunc(m / 60);
  if (h < 24) return `${h}h`;
  if (h < 24 * 365) return `${Math.trunc(h / 24)}d`;
  return `${Math.trunc(h / 24 / 365)}y`;
}

/** A JSON-friendly summary of a certificate at time `now`. */
export function summarize(c: Cert, now: Date): Record<string, unknown> {
  return {
    subject: formatName(c.subject),
    issuer: formatName(c.issuer),
    serial: serialDecimal(c.serial),
    serialHex: colonHex(c.serial),
    notBefore: formatRfc3339(c.notBefore),
    notAfter: formatRfc3339(c.notAfter),
    timeLeft: formatTimeLeft(c.notAfter.getTime() - now.getTime()),
    expired: c.notAfter.getTime() < now.getTime(),
    dnsNames: c.sans.dns,
    ipAddresses: c.sans.ips,
    emailAddresses: c.sans.emails,
    uris: c.sans.uris,
    keyUsage: c.keyUsage === undefined ? [] : keyUsageNames(c.keyUsage),
    extKeyUsage: (c.extKeyUsage ?? []).map(ekuName),
    key: formatKey(c.key),
    keyType: c.key.type,
    keyBits: c.key.bits,
    isCA: isCa(c),
    signatureAlgorithm: sigAlgName(c.sigAlg),
    subjectKeyId: c.subjectKeyId ? colonHex(c.subjectKeyId) : "",
    authorityKeyId: c.authorityKeyId ? colonHex(c.authorityKeyId) : "",
    spkiPin: spkiHash(c.key.spki),
  };
}
