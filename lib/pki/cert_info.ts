/**
 * Reading X.509 certificates exactly as Go 1.25's `crypto/x509` parser does
 * (a port of parser.go on the strict DER reader of lib/der.ts): every field `cert inspect` and `cert verify` show
 * (subject, issuer, serial, validity, SANs, key usage, EKUs, basic
 * constraints, key identifiers, key type), plus a JSON-ready summary and a
 * compact time-left formatter.
 *
 * @module
 */

import { DerCursor, latin1, parseGeneralizedTime, parseUtcTime, Tag } from "./der.ts";
import { InputError } from "../base/errors.ts";
import { spkiHash } from "./pin.ts";
import {
  colonHex,
  emptySans,
  type Extension,
  goParseNameConstraints,
  goParseSan,
  type NameConstraints,
  parseAuthorityKeyId,
  parseBasicConstraints,
  parseExtKeyUsage,
  parseKeyUsage,
  parseSubjectKeyId,
  type Sans,
} from "./pkix.ts";
import { formatKey, goParseAi, goParseSpki, type KeyInfo, rightAlign } from "./pkix_key.ts";
import { formatName, type Name, parseCertName } from "./pkix_name.ts";
import { type SigAlg, sigAlgFromAi, sigAlgName } from "./sigalg.ts";
import { ekuName, keyUsageNames } from "./usages.ts";
import { formatRfc3339 } from "../go/time.ts";
import { shortHumanDuration } from "../go/human_duration.ts";

export type { NameConstraints };

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

/**
 * The name Go's UnknownAuthorityError hint gives a candidate certificate:
 * its CN, else its first Organization, else `serial:<decimal>`.
 */
export function goCertName(c: Cert): string {
  if (c.subject.commonName !== "") return c.subject.commonName;
  if (c.subject.organization.length > 0) return c.subject.organization[0]!;
  return "serial:" + serialDecimal(c.serial);
}

const fail = (m: string): never => {
  throw new InputError(m);
};

/** Go's `ObjectIdentifier.String()` of the id-ce arc: the last component when `oid` is 2.5.29.N. */
function idCe(oid: string): number | undefined {
  if (oid.length <= 7 || !oid.startsWith("2.5.29.")) return undefined;
  for (let i = 7; i < oid.length; i++) {
    const ch = oid.charCodeAt(i);
    if (ch < 0x30 || ch > 0x39) return undefined;
  }
  return Number(oid.slice(7));
}

/** crypto/x509's CertificatePolicies parse (Go 1.25: a repeated policy OID is an error). */
function checkPolicies(value: Uint8Array): void {
  const bad = () => fail("x509: invalid certificate policies");
  const der = DerCursor.all(value).enter(0x30);
  if (!der) return bad();
  const seen = new Set<string>();
  while (!der.empty()) {
    const cp = der.enter(0x30);
    const o = cp?.read(Tag.OID);
    if (!cp || !o) return bad();
    const raw = cp.content(o);
    const key = latin1(raw);
    if (seen.has(key)) bad();
    seen.add(key);
    // newOIDFromDER: non-empty, last octet ends a component, minimal components.
    if (raw.length === 0 || (raw[raw.length - 1]! & 0x80) !== 0) bad();
    let start = 0;
    raw.forEach((v, i) => {
      if (i === start && v === 0x80) bad();
      if ((v & 0x80) === 0) start = i + 1;
    });
  }
}

/** crypto/x509's CRLDistributionPoints parse (errors only). */
function checkCrlDp(value: Uint8Array): void {
  const val = DerCursor.all(value).enter(0x30);
  if (!val) return fail("x509: invalid CRL distribution points");
  while (!val.empty()) {
    const dp = val.enter(0x30);
    if (!dp) return fail("x509: invalid CRL distribution point");
    const name = dp.readOptional(0xa0);
    if (name === undefined) return fail("x509: invalid CRL distribution point");
    if (name === null) continue;
    const full = DerCursor.of(value, name).enter(0xa0);
    if (!full) return fail("x509: invalid CRL distribution point");
    while (!full.empty()) {
      if (!full.peek(0x86)) break;
      if (!full.read(0x86)) fail("x509: invalid CRL distribution point");
    }
  }
}

/** crypto/x509's AuthorityInfoAccess parse (errors only). */
function checkAia(value: Uint8Array): void {
  const bad = () => fail("x509: invalid authority info access");
  const val = DerCursor.all(value).enter(0x30);
  if (!val) return bad();
  while (!val.empty()) {
    const aia = val.enter(0x30);
    if (!aia || aia.readOid() === undefined) return bad();
    if (!aia.peek(0x86)) continue;
    if (!aia.read(0x86)) bad();
  }
}

/** PolicyConstraints (36), PolicyMappings (33), InhibitAnyPolicy (54), as Go 1.25 parses them. */
function checkPolicyExtension(n: number, value: Uint8Array): void {
  if (n === 36) {
    const bad = () => fail("x509: invalid policy constraints extension");
    const val = DerCursor.all(value).enter(0x30);
    if (!val) return bad();
    for (const tag of [0x80, 0x81]) {
      if (val.peek(tag) && val.readInt64(tag) === undefined) bad();
    }
  } else if (n === 33) {
    const bad = () => fail("x509: invalid policy mappings extension");
    const val = DerCursor.all(value).enter(0x30);
    if (!val) return bad();
    while (!val.empty()) {
      const m = val.enter(0x30);
      if (!m || !m.read(Tag.OID) || !m.read(Tag.OID)) bad();
    }
  } else if (n === 54) {
    if (DerCursor.all(value).readInt64() === undefined) {
      fail("x509: invalid inhibit any policy extension");
    }
  }
}

/**
 * Parses a DER certificate exactly as Go 1.25's `x509.ParseCertificate`
 * (crypto/x509 parser.go, on cryptobyte): the same structure, the same
 * refusals and Go's error text. Errors are `InputError`s without the input
 * name.
 */
export function parseCertificate(der: Uint8Array): Cert {
  const top = DerCursor.all(der);
  const certTlv = top.read(0x30);
  if (!certTlv) return fail("x509: malformed certificate");
  const input = DerCursor.of(der, certTlv);
  const tbsTlv = input.read(0x30);
  if (!tbsTlv) return fail("x509: malformed tbs certificate");
  const tbs = DerCursor.of(der, tbsTlv);
  let version = 0n;
  if (tbs.peek(0xa0)) {
    const v = tbs.enter(0xa0);
    const n = v?.readInt64();
    if (n === undefined || !v!.empty()) return fail("x509: malformed version");
    version = n;
  }
  if (version < 0n) fail("x509: malformed version");
  version++;
  if (version > 3n) fail("x509: invalid version");
  const serial = tbs.readInteger();
  if (!serial) return fail("x509: malformed serial number");
  if ((serial[0]! & 0x80) !== 0) fail("x509: negative serial number");
  const sigAiTlv = tbs.read(0x30);
  if (!sigAiTlv) return fail("x509: malformed signature algorithm identifier");
  const outerAiTlv = input.read(0x30);
  if (!outerAiTlv) return fail("x509: malformed algorithm identifier");
  if (!bytesEqual(tbs.content(sigAiTlv), input.content(outerAiTlv))) {
    fail("x509: inner and outer signature algorithm identifiers don't match");
  }
  const ai = goParseAi(DerCursor.of(der, sigAiTlv));
  const sigAlg = sigAlgFromAi(ai.oid, ai.params);
  const issuerTlv = tbs.read(0x30);
  if (!issuerTlv) return fail("x509: malformed issuer");
  const issuer = parseCertName(der, issuerTlv);
  const validity = tbs.enter(0x30);
  if (!validity) return fail("x509: malformed validity");
  const notBefore = readTime(validity);
  const notAfter = readTime(validity);
  const subjectTlv = tbs.read(0x30);
  if (!subjectTlv) return fail("x509: malformed issuer");
  const subject = parseCertName(der, subjectTlv);
  const spkiTlv = tbs.read(0x30);
  if (!spkiTlv) return fail("x509: malformed spki");
  const { key, algorithm: publicKeyAlgorithm } = goParseSpki(der, spkiTlv);

  const extensions: Extension[] = [];
  if (version > 1n) {
    if (!tbs.skipOptional(0x81)) fail("x509: malformed issuerUniqueID");
    if (!tbs.skipOptional(0x82)) fail("x509: malformed subjectUniqueID");
    if (version === 3n) {
      const present = tbs.readOptional(0xa3);
      if (present === undefined) return fail("x509: malformed extensions");
      if (present) {
        const list = DerCursor.of(der, present).enter(0x30);
        if (!list) return fail("x509: malformed extensions");
        const seen = new Set<string>();
        while (!list.empty()) {
          const ext = list.enter(0x30);
          if (!ext) return fail("x509: malformed extension");
          const oid = ext.readOid();
          if (oid === undefined) return fail("x509: malformed extension OID field");
          let critical = false;
          if (ext.peek(0x01)) {
            const b = ext.readBoolean();
            if (b === undefined) return fail("x509: malformed extension critical field");
            critical = b;
          }
          const val = ext.read(Tag.OCTET_STRING);
          if (!val) return fail("x509: malformed extension value field");
          if (seen.has(oid)) {
            fail(`x509: certificate contains duplicate extension with OID "${oid}"`);
          }
          seen.add(oid);
          extensions.push({ oid, critical, value: ext.content(val) });
        }
      }
    }
  }

  // processExtensions
  let keyUsage: number | undefined;
  let extKeyUsage: string[] | undefined;
  let basicConstraints: { isCA: boolean; maxPathLen: number } | undefined;
  let subjectKeyId: Uint8Array | undefined;
  let authorityKeyId: Uint8Array | undefined;
  let sans = emptySans();
  let sanIpBytes: Uint8Array[] = [];
  let sanExtension: Uint8Array | undefined;
  let nameConstraints: NameConstraints | undefined;
  const unhandledCriticalExtensions: string[] = [];
  for (const e of extensions) {
    let unhandled = false;
    const n = idCe(e.oid);
    if (n !== undefined) {
      switch (n) {
        case 15:
          keyUsage = parseKeyUsage(e.value);
          break;
        case 19:
          basicConstraints = parseBasicConstraints(e.value);
          break;
        case 17: {
          const r = goParseSan(e.value);
          sans = r.sans;
          sanIpBytes = r.ipBytes;
          sanExtension = e.value;
          if (!r.any) unhandled = true;
          break;
        }
        case 30: {
          const r = goParseNameConstraints(e.value, e.critical);
          nameConstraints = r.nc;
          unhandled = r.unhandled;
          break;
        }
        case 31:
          checkCrlDp(e.value);
          break;
        case 35:
          if (e.critical) fail("x509: authority key identifier incorrectly marked critical");
          authorityKeyId = parseAuthorityKeyId(e.value);
          break;
        case 36:
        case 33:
        case 54:
          checkPolicyExtension(n, e.value);
          break;
        case 37:
          extKeyUsage = parseExtKeyUsage(e.value);
          break;
        case 14:
          if (e.critical) fail("x509: subject key identifier incorrectly marked critical");
          subjectKeyId = parseSubjectKeyId(e.value);
          break;
        case 32:
          checkPolicies(e.value);
          break;
        default:
          unhandled = true;
      }
    } else if (e.oid === "1.3.6.1.5.5.7.1.1") {
      if (e.critical) fail("x509: authority info access incorrectly marked critical");
      checkAia(e.value);
    } else unhandled = true;
    if (e.critical && unhandled) unhandledCriticalExtensions.push(e.oid);
  }

  const sig = input.readBitString();
  if (!sig) return fail("x509: malformed signature");
  if (!top.empty()) fail("x509: trailing data");

  return {
    der,
    tbs: der.subarray(tbsTlv.start, tbsTlv.end),
    sigOid: sigAlg.oid,
    sigAlg,
    signature: rightAlign(sig.bytes, sig.bitLength),
    version: Number(version),
    serial: serial.slice(),
    issuer,
    issuerDer: der.subarray(issuerTlv.start, issuerTlv.end),
    subject,
    subjectDer: der.subarray(subjectTlv.start, subjectTlv.end),
    notBefore,
    notAfter,
    key,
    extensions,
    keyUsage,
    extKeyUsage,
    basicConstraints,
    subjectKeyId,
    authorityKeyId,
    sans,
    signatureAlgorithm: sigAlg.goName ?? "",
    publicKeyAlgorithm,
    basicConstraintsValid: basicConstraints !== undefined,
    isCA: basicConstraints?.isCA ?? false,
    maxPathLen: basicConstraints?.maxPathLen ?? -1,
    hasSanExtension: sanExtension !== undefined,
    sanExtension,
    sanIpBytes,
    nameConstraints,
    unhandledCriticalExtensions,
  };
}

/** crypto/x509's `parseTime`: UTCTime or GeneralizedTime, read as cryptobyte reads them. */
function readTime(c: DerCursor): Date {
  if (c.peek(0x17)) {
    const t = c.read(0x17);
    const d = t && parseUtcTime(c.content(t));
    return d ?? fail("x509: malformed UTCTime");
  }
  if (c.peek(0x18)) {
    const t = c.read(0x18);
    const d = t && parseGeneralizedTime(c.content(t));
    return d ?? fail("x509: malformed GeneralizedTime");
  }
  return fail("x509: unsupported time format");
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
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
  if (serial.length === 0) return "0";
  if (serial.length <= 6) {
    let v = 0;
    for (let i = 0; i < serial.length; i++) v = v * 256 + serial[i]!;
    return String(v);
  }
  let h = "0x";
  for (let i = 0; i < serial.length; i++) h += HEX_LOWER[serial[i]!];
  return BigInt(h).toString(10);
}

const HEX_LOWER = Array.from({ length: 256 }, (_, x) => x.toString(16).padStart(2, "0"));

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

// A fleet shares a few issuers and signing seconds: their text is computed once
// (small caches, emptied when they grow past CACHE_MAX entries).
const CACHE_MAX = 4096;
const issuerTexts = new Map<string, string>();
const timeTexts = new Map<number, string>();

/** `formatName(c.issuer)`, cached by the issuer's DER (formatName reads only the parsed name). */
function issuerText(c: Cert): string {
  const key = latin1(c.issuerDer);
  let s = issuerTexts.get(key);
  if (s === undefined) {
    if (issuerTexts.size >= CACHE_MAX) issuerTexts.clear();
    s = formatName(c.issuer);
    issuerTexts.set(key, s);
  }
  return s;
}

/** `formatRfc3339(d)`, cached by the instant. */
function rfc3339(d: Date): string {
  const ms = d.getTime();
  let s = timeTexts.get(ms);
  if (s === undefined) {
    if (timeTexts.size >= CACHE_MAX) timeTexts.clear();
    s = formatRfc3339(d);
    timeTexts.set(ms, s);
  }
  return s;
}

/** A JSON-friendly summary of a certificate at time `now`. */
export function summarize(c: Cert, now: Date): Record<string, unknown> {
  return {
    subject: formatName(c.subject),
    issuer: issuerText(c),
    serial: serialDecimal(c.serial),
    serialHex: colonHex(c.serial),
    notBefore: rfc3339(c.notBefore),
    notAfter: rfc3339(c.notAfter),
    timeLeft: shortHumanDuration(c.notAfter.getTime() - now.getTime()),
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
