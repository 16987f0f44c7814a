/**
 * Reading X.509 certificates exactly as Go 1.25's `crypto/x509` parser does
 * (a port of parser.go on the strict DER reader of lib/der.ts): every field `cert inspect` and `cert verify` show
 * (subject, issuer, serial, validity, SANs, key usage, EKUs, basic
 * constraints, key identifiers, key type), plus a JSON-ready summary and a
 * compact time-left formatter.
 *
 * @module
 */

import {
  at,
  bitString,
  ByteTable,
  DerCursor,
  generalizedTimeAt,
  integerValue,
  latin1,
  oidAt,
  readTagAt,
  Tag,
  type Tlv,
  utcTimeAt,
} from "./der.ts";
import { InputError } from "../base/errors.ts";
import { spkiHash } from "./pin.ts";
import {
  colonHex,
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
import {
  checkCertNameAt,
  formatCertNameAt,
  formatName,
  type Name,
  parseCertNameAt,
} from "./pkix_name.ts";
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
 *
 * Elements are read by offsets ({@link readAt}): the parse allocates only
 * what the result keeps.
 */
export function parseCertificate(der: Uint8Array): Cert {
  const n = der.length;
  if (!readTagAt(der, 0, n, 0x30)) return fail("x509: malformed certificate");
  const certEnd = at.end;
  // `input`: the certificate's content.
  let ip = at.cs;
  const iEnd = at.end;
  if (!readTagAt(der, ip, iEnd, 0x30)) return fail("x509: malformed tbs certificate");
  const tbsStart = ip, tbsEnd = at.end;
  ip = at.end;
  // `tbs`: the TBSCertificate's content.
  let tp = at.cs;
  const tEnd = at.end;
  let version = 0;
  if (tp < tEnd && der[tp] === 0xa0) {
    if (!readTagAt(der, tp, tEnd, 0xa0)) return fail("x509: malformed version");
    tp = at.end;
    const vEnd = at.end;
    if (!readTagAt(der, at.cs, vEnd, Tag.INTEGER)) return fail("x509: malformed version");
    const vs = at.cs, ve = at.end;
    if (ve !== vEnd || ve - vs > 8 || !integerMinimalAt(der, vs, ve)) {
      return fail("x509: malformed version");
    }
    // Only the sign and whether it is above 2 matter: a Number keeps both.
    version = ve - vs <= 6 ? smallInteger(der, vs, ve) : Number(integerValue(der.subarray(vs, ve)));
  }
  if (version < 0) fail("x509: malformed version");
  version++;
  if (version > 3) fail("x509: invalid version");
  if (!readTagAt(der, tp, tEnd, Tag.INTEGER) || !integerMinimalAt(der, at.cs, at.end)) {
    return fail("x509: malformed serial number");
  }
  const serialStart = at.cs, serialEnd = at.end;
  tp = at.end;
  if ((der[serialStart]! & 0x80) !== 0) fail("x509: negative serial number");
  if (!readTagAt(der, tp, tEnd, 0x30)) {
    return fail("x509: malformed signature algorithm identifier");
  }
  const aiStart = at.cs, aiEnd = at.end;
  tp = at.end;
  if (!readTagAt(der, ip, iEnd, 0x30)) return fail("x509: malformed algorithm identifier");
  ip = at.end;
  if (!rangesEqual(der, aiStart, aiEnd, at.cs, at.end)) {
    fail("x509: inner and outer signature algorithm identifiers don't match");
  }
  const sigAlg = signatureAlgorithm(der, aiStart, aiEnd);
  if (!readTagAt(der, tp, tEnd, 0x30)) return fail("x509: malformed issuer");
  const issuerStart = tp, issuerEnd = at.end;
  tp = at.end;
  const issuer = issuerName(der, issuerStart, issuerEnd);
  if (!readTagAt(der, tp, tEnd, 0x30)) return fail("x509: malformed validity");
  tp = at.end;
  readValidity(der, at.cs, at.end);
  if (!readTagAt(der, tp, tEnd, 0x30)) return fail("x509: malformed issuer");
  const subjectStart = tp, subjectEnd = at.end;
  tp = at.end;
  // Checked now, made when read: a fleet's certificates are held until printed.
  checkCertNameAt(der, subjectStart, subjectEnd);
  if (!readTagAt(der, tp, tEnd, 0x30)) return fail("x509: malformed spki");
  const spkiTlv: Tlv = { tag: 0x30, start: tp, contentStart: at.cs, end: at.end };
  tp = at.end;
  const { key, algorithm: publicKeyAlgorithm } = goParseSpki(der, spkiTlv);

  let extCount = 0;
  let extStart = 0, extEnd = 0;
  if (version > 1) {
    if (tp < tEnd && der[tp] === 0x81) {
      if (!readTagAt(der, tp, tEnd, 0x81)) fail("x509: malformed issuerUniqueID");
      tp = at.end;
    }
    if (tp < tEnd && der[tp] === 0x82) {
      if (!readTagAt(der, tp, tEnd, 0x82)) fail("x509: malformed subjectUniqueID");
      tp = at.end;
    }
    if (version === 3 && tp < tEnd && der[tp] === 0xa3) {
      if (!readTagAt(der, tp, tEnd, 0xa3)) return fail("x509: malformed extensions");
      tp = at.end;
      if (!readTagAt(der, at.cs, at.end, 0x30)) return fail("x509: malformed extensions");
      extStart = at.cs;
      extEnd = at.end;
      extCount = scanExtensions(der, extStart, extEnd);
    }
  }

  // processExtensions
  let keyUsage: number | undefined;
  let extKeyUsage: string[] | undefined;
  let basicConstraints: { isCA: boolean; maxPathLen: number } | undefined;
  let subjectKeyId: Uint8Array | undefined;
  let authorityKeyId: Uint8Array | undefined;
  let sans = NO_SANS;
  let sanIpBytes: Uint8Array[] = NO_IPS;
  let sanExtension: Uint8Array | undefined;
  let nameConstraints: NameConstraints | undefined;
  let unhandledCriticalExtensions: string[] = NO_OIDS;
  // The extensions scanExtensions found, by offsets: a value's view is made only when kept
  // or parsed (the cached tables are looked up by the bytes).
  for (let i = 0; i < extCount; i++) {
    const oid = EXT_OIDS[i]!;
    const critical = EXT_CRITICAL[i]!;
    const vs = EXT_VALUES[2 * i]!, ve = EXT_VALUES[2 * i + 1]!;
    let unhandled = false;
    const n = idCeCached(oid);
    if (n !== undefined) {
      switch (n) {
        case 15:
          keyUsage = cachedAt(KEY_USAGES, der, vs, ve, parseKeyUsage);
          break;
        case 19:
          basicConstraints = cachedAt(BASIC_CONSTRAINTS, der, vs, ve, parseBasicConstraints);
          break;
        case 17: {
          const value = der.subarray(vs, ve);
          const r = goParseSan(value);
          sans = r.sans;
          sanIpBytes = r.ipBytes;
          sanExtension = value;
          if (!r.any) unhandled = true;
          break;
        }
        case 30: {
          const r = goParseNameConstraints(der.subarray(vs, ve), critical);
          nameConstraints = r.nc;
          unhandled = r.unhandled;
          break;
        }
        case 31:
          checkCrlDp(der.subarray(vs, ve));
          break;
        case 35:
          if (critical) fail("x509: authority key identifier incorrectly marked critical");
          authorityKeyId = cachedAt(AUTHORITY_KEY_IDS, der, vs, ve, parseAuthorityKeyId);
          break;
        case 36:
        case 33:
        case 54:
          checkPolicyExtension(n, der.subarray(vs, ve));
          break;
        case 37:
          extKeyUsage = cachedAt(EXT_KEY_USAGES, der, vs, ve, parseExtKeyUsage);
          break;
        case 14:
          if (critical) fail("x509: subject key identifier incorrectly marked critical");
          subjectKeyId = parseSubjectKeyId(der.subarray(vs, ve));
          break;
        case 32:
          checkPolicies(der.subarray(vs, ve));
          break;
        default:
          unhandled = true;
      }
    } else if (oid === "1.3.6.1.5.5.7.1.1") {
      if (critical) fail("x509: authority info access incorrectly marked critical");
      checkAia(der.subarray(vs, ve));
    } else unhandled = true;
    if (critical && unhandled) {
      if (unhandledCriticalExtensions === NO_OIDS) unhandledCriticalExtensions = [];
      unhandledCriticalExtensions.push(oid);
    }
  }

  if (!readTagAt(der, ip, iEnd, Tag.BIT_STRING)) return fail("x509: malformed signature");
  const sigStart = at.cs, sigEnd = at.end;
  if (!bitStringValid(der, sigStart, sigEnd)) return fail("x509: malformed signature");
  if (certEnd !== n) fail("x509: trailing data");

  return new ParsedCert(
    der,
    tbsStart,
    tbsEnd,
    serialStart,
    serialEnd,
    issuerStart,
    issuerEnd,
    subjectStart,
    subjectEnd,
    sigStart,
    sigEnd,
    sigAlg,
    version,
    issuer,
    validity.notBeforeMs,
    validity.notAfterMs,
    key,
    publicKeyAlgorithm,
    extStart,
    extEnd,
    keyUsage,
    extKeyUsage,
    basicConstraints,
    subjectKeyId,
    authorityKeyId,
    sans,
    sanExtension,
    sanIpBytes,
    nameConstraints,
    unhandledCriticalExtensions,
  );
}

/**
 * A parsed certificate that keeps offsets into its DER instead of views:
 * `tbs`, `serial`, `issuerDer`, `subjectDer` and `signature` are made when
 * read (a fleet held in memory keeps no typed array per field), as are the
 * validity Dates (from their milliseconds), the extension list and the
 * subject Name (checked at parse time, made on first read).
 */
class ParsedCert implements Cert {
  // Declared, and all set by the constructor: a class field initialiser would define each once
  // more for every certificate, and fields set after construction would not be held in the
  // object itself (V8 sizes a class's objects by the constructor's assignments).
  declare readonly der: Uint8Array;
  declare readonly tbsStart: number;
  declare readonly tbsEnd: number;
  declare readonly serialStart: number;
  declare readonly serialEnd: number;
  declare readonly issuerStart: number;
  declare readonly issuerEnd: number;
  declare readonly subjectStart: number;
  declare readonly subjectEnd: number;
  declare readonly sigStart: number;
  declare readonly sigEnd: number;
  declare sigAlg: SigAlg;
  declare version: number;
  declare issuer: Name;
  declare subjectName: Name | undefined;
  declare notBeforeMs: number;
  declare notAfterMs: number;
  declare key: KeyInfo;
  declare extStart: number;
  declare extEnd: number;
  declare keyUsage: number | undefined;
  declare extKeyUsage: string[] | undefined;
  declare basicConstraints: { isCA: boolean; maxPathLen: number } | undefined;
  declare subjectKeyId: Uint8Array | undefined;
  declare authorityKeyId: Uint8Array | undefined;
  declare sans: Sans;
  declare publicKeyAlgorithm: string;
  declare sanExtension: Uint8Array | undefined;
  declare sanIpBytes: Uint8Array[];
  declare nameConstraints: NameConstraints | undefined;
  declare unhandledCriticalExtensions: string[];

  constructor(
    der: Uint8Array,
    tbsStart: number,
    tbsEnd: number,
    serialStart: number,
    serialEnd: number,
    issuerStart: number,
    issuerEnd: number,
    subjectStart: number,
    subjectEnd: number,
    sigStart: number,
    sigEnd: number,
    sigAlg: SigAlg,
    version: number,
    issuer: Name,
    notBeforeMs: number,
    notAfterMs: number,
    key: KeyInfo,
    publicKeyAlgorithm: string,
    extStart: number,
    extEnd: number,
    keyUsage: number | undefined,
    extKeyUsage: string[] | undefined,
    basicConstraints: { isCA: boolean; maxPathLen: number } | undefined,
    subjectKeyId: Uint8Array | undefined,
    authorityKeyId: Uint8Array | undefined,
    sans: Sans,
    sanExtension: Uint8Array | undefined,
    sanIpBytes: Uint8Array[],
    nameConstraints: NameConstraints | undefined,
    unhandledCriticalExtensions: string[],
  ) {
    this.der = der;
    this.tbsStart = tbsStart;
    this.tbsEnd = tbsEnd;
    this.serialStart = serialStart;
    this.serialEnd = serialEnd;
    this.issuerStart = issuerStart;
    this.issuerEnd = issuerEnd;
    this.subjectStart = subjectStart;
    this.subjectEnd = subjectEnd;
    this.sigStart = sigStart;
    this.sigEnd = sigEnd;
    this.sigAlg = sigAlg;
    this.version = version;
    this.issuer = issuer;
    this.subjectName = undefined;
    this.notBeforeMs = notBeforeMs;
    this.notAfterMs = notAfterMs;
    this.key = key;
    this.extStart = extStart;
    this.extEnd = extEnd;
    this.keyUsage = keyUsage;
    this.extKeyUsage = extKeyUsage;
    this.basicConstraints = basicConstraints;
    this.subjectKeyId = subjectKeyId;
    this.authorityKeyId = authorityKeyId;
    this.sans = sans;
    this.publicKeyAlgorithm = publicKeyAlgorithm;
    this.sanExtension = sanExtension;
    this.sanIpBytes = sanIpBytes;
    this.nameConstraints = nameConstraints;
    this.unhandledCriticalExtensions = unhandledCriticalExtensions;
  }

  // What follows from the fields above is read from them (nothing more held per certificate).
  get sigOid(): string {
    return this.sigAlg.oid;
  }

  get signatureAlgorithm(): string {
    return this.sigAlg.goName ?? "";
  }

  get basicConstraintsValid(): boolean {
    return this.basicConstraints !== undefined;
  }

  get isCA(): boolean {
    return this.basicConstraints?.isCA ?? false;
  }

  get maxPathLen(): number {
    return this.basicConstraints?.maxPathLen ?? -1;
  }

  get hasSanExtension(): boolean {
    return this.sanExtension !== undefined;
  }

  /** Read again from the DER on each access (it parsed once, so it parses again). */
  get extensions(): Extension[] {
    return this.extEnd > this.extStart
      ? readExtensions(this.der, this.extStart, this.extEnd)
      : NO_EXTENSIONS;
  }

  get subject(): Name {
    return this.subjectName ??= parseCertNameAt(this.der, this.subjectStart, this.subjectEnd);
  }

  get notBefore(): Date {
    return new Date(this.notBeforeMs);
  }

  get notAfter(): Date {
    return new Date(this.notAfterMs);
  }

  get tbs(): Uint8Array {
    return this.der.subarray(this.tbsStart, this.tbsEnd);
  }

  get serial(): Uint8Array {
    return this.der.subarray(this.serialStart, this.serialEnd);
  }

  get issuerDer(): Uint8Array {
    return this.der.subarray(this.issuerStart, this.issuerEnd);
  }

  get subjectDer(): Uint8Array {
    return this.der.subarray(this.subjectStart, this.subjectEnd);
  }

  get signature(): Uint8Array {
    const sig = bitString(this.der.subarray(this.sigStart, this.sigEnd))!;
    return rightAlign(sig.bytes, sig.bitLength);
  }
}

/** An extension of a {@link ParsedCert}: its value is a view into the DER, made when read. */
class CertExtension implements Extension {
  declare readonly oid: string;
  declare readonly critical: boolean;
  declare readonly der: Uint8Array;
  declare readonly start: number;
  declare readonly end: number;

  constructor(oid: string, critical: boolean, der: Uint8Array, start: number, end: number) {
    this.oid = oid;
    this.critical = critical;
    this.der = der;
    this.start = start;
    this.end = end;
  }

  get value(): Uint8Array {
    return this.der.subarray(this.start, this.end);
  }
}

// Shared, frozen values for what most certificates lack.
const NO_EXTENSIONS: Extension[] = Object.freeze([]) as unknown as Extension[];
const NO_IPS: Uint8Array[] = Object.freeze([]) as unknown as Uint8Array[];
const NO_OIDS: string[] = Object.freeze([]) as unknown as string[];
const NO_STRINGS: string[] = Object.freeze([]) as unknown as string[];
const NO_SANS: Sans = Object.freeze({
  dns: NO_STRINGS,
  emails: NO_STRINGS,
  ips: NO_STRINGS,
  uris: NO_STRINGS,
});

// What scanExtensions found in the certificate being parsed (reused: nothing is held).
const EXT_OIDS: string[] = [];
const EXT_CRITICAL: boolean[] = [];
/** Each extension's value as a pair of offsets (start, end) into the DER. */
const EXT_VALUES: number[] = [];

/**
 * The extensions in the SEQUENCE content `der[start:end]`, read as Go reads
 * them (every one's structure, and no OID twice, before any is processed),
 * into {@link EXT_OIDS}, {@link EXT_CRITICAL} and {@link EXT_VALUES}; returns
 * how many.
 */
function scanExtensions(der: Uint8Array, start: number, end: number): number {
  let count = 0;
  let seen: Set<string> | undefined;
  let p = start;
  while (p < end) {
    if (!readTagAt(der, p, end, 0x30)) return fail("x509: malformed extension");
    p = at.end;
    const eEnd = at.end;
    const oid = readTagAt(der, at.cs, eEnd, Tag.OID) ? oidAt(der, at.cs, at.end) : undefined;
    if (oid === undefined) return fail("x509: malformed extension OID field");
    let q = at.end;
    let critical = false;
    if (q < eEnd && der[q] === 0x01) {
      if (!readTagAt(der, q, eEnd, 0x01) || at.end - at.cs !== 1) {
        return fail("x509: malformed extension critical field");
      }
      const b = der[at.cs];
      if (b !== 0 && b !== 0xff) return fail("x509: malformed extension critical field");
      critical = b === 0xff;
      q = at.end;
    }
    if (!readTagAt(der, q, eEnd, Tag.OCTET_STRING)) {
      return fail("x509: malformed extension value field");
    }
    // A linear search over the first few (a fleet's certificates have four or five).
    let dup = false;
    if (seen !== undefined) dup = seen.has(oid);
    else {
      for (let i = 0; i < count; i++) if (EXT_OIDS[i] === oid) dup = true;
      if (count >= 8) seen = new Set(EXT_OIDS.slice(0, count));
    }
    if (dup) fail(`x509: certificate contains duplicate extension with OID "${oid}"`);
    seen?.add(oid);
    EXT_OIDS[count] = oid;
    EXT_CRITICAL[count] = critical;
    EXT_VALUES[2 * count] = at.cs;
    EXT_VALUES[2 * count + 1] = at.end;
    count++;
  }
  return count;
}

/** The extensions in the SEQUENCE content `der[start:end]`, read as Go reads them. */
function readExtensions(der: Uint8Array, start: number, end: number): Extension[] {
  const count = scanExtensions(der, start, end);
  const extensions: Extension[] = new Array(count);
  for (let i = 0; i < count; i++) {
    extensions[i] = new CertExtension(
      EXT_OIDS[i]!,
      EXT_CRITICAL[i]!,
      der,
      EXT_VALUES[2 * i]!,
      EXT_VALUES[2 * i + 1]!,
    );
  }
  return extensions;
}

/** The two's complement value of `b[start:end]` (at most 6 bytes). */
function smallInteger(b: Uint8Array, start: number, end: number): number {
  let v = 0;
  for (let i = start; i < end; i++) v = v * 256 + b[i]!;
  if (end > start && (b[start]! & 0x80) !== 0) v -= 2 ** (8 * (end - start));
  return v;
}

/** {@link bitString}'s verdict on the content `b[start:end]`, without a view or a result. */
function bitStringValid(b: Uint8Array, start: number, end: number): boolean {
  if (end <= start) return false;
  const pad = b[start]!;
  if (pad > 7 || (end - start === 1 && pad !== 0)) return false;
  return end - start === 1 || (b[end - 1]! & ((1 << pad) - 1)) === 0;
}

const idCes = new Map<string, number | undefined>();

/** {@link idCe}, remembered per OID text (a fleet repeats a handful). */
function idCeCached(oid: string): number | undefined {
  let n = idCes.get(oid);
  if (n === undefined && !idCes.has(oid)) {
    n = idCe(oid);
    if (idCes.size >= 256) idCes.clear();
    idCes.set(oid, n);
  }
  return n;
}

/** cryptobyte's `checkASN1Integer` on `b[start:end]`. */
function integerMinimalAt(b: Uint8Array, start: number, end: number): boolean {
  if (end <= start) return false;
  if (end - start === 1) return true;
  const x = b[start]!, y = b[start + 1]!;
  return !((x === 0 && (y & 0x80) === 0) || (x === 0xff && (y & 0x80) === 0x80));
}

function rangesEqual(b: Uint8Array, s1: number, e1: number, s2: number, e2: number): boolean {
  if (e1 - s1 !== e2 - s2) return false;
  for (let i = 0; i < e1 - s1; i++) if (b[s1 + i] !== b[s2 + i]) return false;
  return true;
}

// A fleet shares its signature algorithm, issuer and most extension values:
// each is read once per distinct encoding (small tables keyed by the bytes).
// What they hold is shared between certificates, so it is frozen.
const SIG_ALGS = new ByteTable<SigAlg>(64, 256);
const ISSUERS = new ByteTable<Name>(64, 1024);
const KEY_USAGES = new ByteTable<number>(64, 16);
const EXT_KEY_USAGES = new ByteTable<string[]>(64, 256);
const BASIC_CONSTRAINTS = new ByteTable<{ isCA: boolean; maxPathLen: number }>(64, 32);
const AUTHORITY_KEY_IDS = new ByteTable<Uint8Array>(64, 128);

/**
 * `parse(der[start:end])` through `table`: parsed once per distinct value (a
 * failure is not kept); the view is made only to parse.
 */
function cachedAt<T>(
  table: ByteTable<T>,
  der: Uint8Array,
  start: number,
  end: number,
  parse: (v: Uint8Array) => T,
): T {
  let r = table.get(der, start, end);
  if (r === undefined) {
    r = parse(der.subarray(start, end));
    if (typeof r === "object" && !ArrayBuffer.isView(r)) Object.freeze(r);
    table.set(der, start, end, r);
  }
  return r;
}

/** `parseAI` + the signature algorithm of the AlgorithmIdentifier content `der[start:end]`. */
function signatureAlgorithm(der: Uint8Array, start: number, end: number): SigAlg {
  let alg = SIG_ALGS.get(der, start, end);
  if (alg === undefined) {
    const ai = goParseAi(new DerCursor(der, start, end));
    alg = sigAlgFromAi(ai.oid, ai.params);
    SIG_ALGS.set(der, start, end, alg);
  }
  return alg;
}

/** `parseName` of the issuer at `der[start:end]`; a repeated issuer shares the first one's Name. */
function issuerName(der: Uint8Array, start: number, end: number): Name {
  let name = ISSUERS.get(der, start, end);
  if (name === undefined) {
    name = parseCertNameAt(der, start, end);
    ISSUERS.set(der, start, end, name);
  }
  return name;
}

/** Where the last {@link readTime} ended. */
let timeEnd = 0;

/**
 * crypto/x509's `parseTime` at `der[pos:end]`: UTCTime or GeneralizedTime,
 * read as cryptobyte reads them; sets {@link timeEnd}.
 */
function readTime(der: Uint8Array, pos: number, end: number): Date {
  if (pos < end && der[pos] === 0x17) {
    const d = readTagAt(der, pos, end, 0x17) ? utcTimeAt(der, at.cs, at.end) : undefined;
    if (d === undefined) return fail("x509: malformed UTCTime");
    timeEnd = at.end;
    return d;
  }
  if (pos < end && der[pos] === 0x18) {
    const d = readTagAt(der, pos, end, 0x18) ? generalizedTimeAt(der, at.cs, at.end) : undefined;
    if (d === undefined) return fail("x509: malformed GeneralizedTime");
    timeEnd = at.end;
    return d;
  }
  return fail("x509: unsupported time format");
}

/**
 * The validity last read by {@link readValidity}, and its content bytes: a
 * fleet signed in one batch repeats its validity, read once (the two times
 * depend on these bytes alone).
 */
const validity = { notBeforeMs: 0, notAfterMs: 0, len: -1, bytes: new Uint8Array(64) };

/** Go's `parseValidity` of the SEQUENCE content `der[start:end]` into {@link validity}. */
function readValidity(der: Uint8Array, start: number, end: number): void {
  const len = end - start;
  if (len === validity.len && rangesEqualTo(validity.bytes, der, start, len)) return;
  validity.len = -1;
  const notBefore = readTime(der, start, end).getTime();
  const notAfter = readTime(der, timeEnd, end).getTime();
  validity.notBeforeMs = notBefore;
  validity.notAfterMs = notAfter;
  if (len <= validity.bytes.length) {
    validity.bytes.set(der.subarray(start, end));
    validity.len = len;
  }
}

/** Whether `der[start:start+len]` equals the first `len` bytes of `kept`. */
function rangesEqualTo(kept: Uint8Array, der: Uint8Array, start: number, len: number): boolean {
  for (let i = 0; i < len; i++) if (kept[i] !== der[start + i]) return false;
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
  // Base 10⁹ limbs (least significant first), two bytes at a time: a limb times 2¹⁶ plus a
  // carry stays below 2⁵³, exact in a Number (a BigInt and its decimal text cost ~5x more).
  const limbs = [0];
  let i = serial.length & 1;
  if (i === 1) limbs[0] = serial[0]!;
  for (; i < serial.length; i += 2) {
    let carry = serial[i]! * 256 + serial[i + 1]!;
    for (let k = 0; k < limbs.length; k++) {
      const v = limbs[k]! * 65536 + carry;
      carry = Math.floor(v / 1e9);
      limbs[k] = v - carry * 1e9;
    }
    while (carry > 0) {
      limbs.push(carry % 1e9);
      carry = Math.floor(carry / 1e9);
    }
  }
  let text = String(limbs[limbs.length - 1]);
  for (let k = limbs.length - 2; k >= 0; k--) text += String(limbs[k]).padStart(9, "0");
  return text;
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

// A fleet shares a few issuers and signing seconds: their text is computed once
// (small caches, emptied when they grow past CACHE_MAX entries).
const CACHE_MAX = 4096;
const issuerTexts = new Map<string, string>();
const timeTexts = new Map<number, string>();

let lastIssuer: Name | undefined;
let lastIssuerText = "";

/** `formatName(c.issuer)`, cached by the issuer's DER (formatName reads only the parsed name). */
export function issuerText(c: Cert): string {
  // Certificates with the same issuer bytes share one parsed Name.
  if (c.issuer === lastIssuer) return lastIssuerText;
  const key = latin1(c.issuerDer);
  let s = issuerTexts.get(key);
  if (s === undefined) {
    if (issuerTexts.size >= CACHE_MAX) issuerTexts.clear();
    s = formatName(c.issuer);
    issuerTexts.set(key, s);
  }
  lastIssuer = c.issuer;
  lastIssuerText = s;
  return s;
}

/** `formatRfc3339` of an instant (milliseconds), cached by the instant. */
export function rfc3339(ms: number): string {
  let s = timeTexts.get(ms);
  if (s === undefined) {
    if (timeTexts.size >= CACHE_MAX) timeTexts.clear();
    s = formatRfc3339(new Date(ms));
    timeTexts.set(ms, s);
  }
  return s;
}

/** `formatName(c.subject)`; for a parsed certificate whose Name was not made yet, from the DER. */
export function subjectText(c: Cert): string {
  return c instanceof ParsedCert && c.subjectName === undefined
    ? formatCertNameAt(c.der, c.subjectStart, c.subjectEnd)
    : formatName(c.subject);
}

/** `c.notBefore` in milliseconds (a {@link ParsedCert} holds it so). */
export function notBeforeMs(c: Cert): number {
  return c instanceof ParsedCert ? c.notBeforeMs : c.notBefore.getTime();
}

/** `c.notAfter` in milliseconds (a {@link ParsedCert} holds it so). */
export function notAfterMs(c: Cert): number {
  return c instanceof ParsedCert ? c.notAfterMs : c.notAfter.getTime();
}

let lastKeyId: Uint8Array | undefined;
let lastKeyIdText = "";

/** `colonHex` of a key identifier; a fleet's certificates share their issuer's (see `cached`). */
function keyIdText(id: Uint8Array): string {
  if (id !== lastKeyId) {
    lastKeyIdText = colonHex(id);
    lastKeyId = id;
  }
  return lastKeyIdText;
}

/** What {@link summarize} says of a certificate (`cert inspect -o json`'s fields). */
export interface CertSummary {
  subject: string;
  issuer: string;
  serial: string;
  serialHex: string;
  notBefore: string;
  notAfter: string;
  timeLeft: string;
  expired: boolean;
  dnsNames: string[];
  ipAddresses: string[];
  emailAddresses: string[];
  uris: string[];
  keyUsage: string[];
  extKeyUsage: string[];
  key: string;
  keyType: string;
  keyBits: number;
  isCA: boolean;
  signatureAlgorithm: string;
  subjectKeyId: string;
  authorityKeyId: string;
  spkiPin: string;
}

/** A JSON-friendly summary of a certificate at time `now`. */
export function summarize(c: Cert, now: Date): CertSummary {
  const notBefore = notBeforeMs(c), notAfter = notAfterMs(c);
  return {
    subject: subjectText(c),
    issuer: issuerText(c),
    serial: serialDecimal(c.serial),
    serialHex: colonHex(c.serial),
    notBefore: rfc3339(notBefore),
    notAfter: rfc3339(notAfter),
    timeLeft: shortHumanDuration(notAfter - now.getTime()),
    expired: notAfter < now.getTime(),
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
    authorityKeyId: c.authorityKeyId ? keyIdText(c.authorityKeyId) : "",
    spkiPin: spkiHash(c.key.spki),
  };
}
