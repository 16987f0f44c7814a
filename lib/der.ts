/**
 * A minimal, strict DER reader: enough to walk a certificate to its
 * SubjectPublicKeyInfo without loading an ASN.1 library (so `ca hash` starts
 * as fast as a hello-world). Every length is checked against its parent's
 * bounds; indefinite lengths, high tag numbers and non-minimal lengths are
 * refused, as DER requires.
 *
 * @module
 */

import { InputError } from "./errors.ts";

/** One tag-length-value element, by offsets into the buffer it was read from. */
export interface Tlv {
  /** The identifier octet (class, constructed bit and tag number). */
  tag: number;
  /** Offset of the identifier octet. */
  start: number;
  /** Offset of the first content octet. */
  contentStart: number;
  /** Offset just past the last content octet. */
  end: number;
}

/** DER tags used by joinkit. */
export const Tag = {
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  SEQUENCE: 0x30,
  SET: 0x31,
  /** `[0]` constructed, context-specific (e.g. a certificate's version). */
  CONTEXT_0: 0xa0,
} as const;

/** Thrown for malformed DER; callers add the input's name. */
export class DerError extends InputError {
  constructor(message: string) {
    super(message);
    this.name = "DerError";
  }
}

/**
 * Reads the element starting at `offset`, which must end at or before `limit`.
 *
 * @example
 * ```ts
 * const tlv = readTlv(new Uint8Array([0x05, 0x00]), 0); // NULL, empty content
 * ```
 */
export function readTlv(buf: Uint8Array, offset: number, limit: number = buf.length): Tlv {
  if (limit > buf.length) throw new DerError("DER bounds exceed the buffer");
  if (offset + 2 > limit) throw new DerError("truncated DER element");
  const tag = buf[offset]!;
  if ((tag & 0x1f) === 0x1f) throw new DerError("unsupported high-number DER tag");
  let pos = offset + 1;
  const first = buf[pos++]!;
  let length: number;
  if (first < 0x80) {
    length = first;
  } else {
    const n = first & 0x7f;
    if (n === 0) throw new DerError("indefinite DER length");
    if (n > 4) throw new DerError("DER length too large");
    if (pos + n > limit) throw new DerError("truncated DER length");
    if (buf[pos] === 0) throw new DerError("non-minimal DER length");
    length = 0;
    for (let i = 0; i < n; i++) length = length * 256 + buf[pos++]!;
    if (length < 0x80) throw new DerError("non-minimal DER length");
  }
  const end = pos + length;
  if (end > limit) throw new DerError("truncated DER element");
  return { tag, start: offset, contentStart: pos, end };
}

/**
 * Reads an element and checks its tag; `what` names it in the error.
 */
export function expectTlv(
  buf: Uint8Array,
  offset: number,
  limit: number,
  tag: number,
  what: string,
): Tlv {
  const tlv = readTlv(buf, offset, limit);
  if (tlv.tag !== tag) {
    throw new DerError(
      `expected ${what} (tag 0x${hex2(tag)}), found tag 0x${hex2(tlv.tag)}`,
    );
  }
  return tlv;
}

/** The elements directly inside a constructed element, in order. */
export function children(buf: Uint8Array, parent: Tlv): Tlv[] {
  if ((parent.tag & 0x20) === 0) throw new DerError("DER element is not constructed");
  const out: Tlv[] = [];
  let pos = parent.contentStart;
  while (pos < parent.end) {
    const tlv = readTlv(buf, pos, parent.end);
    out.push(tlv);
    pos = tlv.end;
  }
  return out;
}

/** The bytes of a whole element, header included (a view, not a copy). */
export function tlvBytes(buf: Uint8Array, tlv: Tlv): Uint8Array {
  return buf.subarray(tlv.start, tlv.end);
}

/** The content bytes of an element (a view, not a copy). */
export function tlvContent(buf: Uint8Array, tlv: Tlv): Uint8Array {
  return buf.subarray(tlv.contentStart, tlv.end);
}

function hex2(n: number): string {
  return n.toString(16).padStart(2, "0");
}

/** The parts of an X.509 certificate that joinkit reads without a full parser. */
export interface CertificateParts {
  /** The DER TBSCertificate. */
  tbs: Tlv;
  /** The DER SubjectPublicKeyInfo (header included). */
  spki: Tlv;
  /** The subject Name. */
  subject: Tlv;
  /** The issuer Name. */
  issuer: Tlv;
  /** The serial number INTEGER. */
  serial: Tlv;
}

/**
 * Walks an X.509 certificate (RFC 5280) down to its TBSCertificate fields,
 * checking the outer structure strictly: one SEQUENCE spanning the whole
 * input (no trailing bytes, as Go's `x509.ParseCertificate`), holding
 * TBSCertificate, AlgorithmIdentifier and BIT STRING.
 *
 * @example
 * ```ts
 * const { spki } = certificateParts(der);
 * ```
 */
export function certificateParts(der: Uint8Array): CertificateParts {
  const cert = expectTlv(der, 0, der.length, Tag.SEQUENCE, "certificate SEQUENCE");
  if (cert.end !== der.length) throw new DerError("trailing data after certificate");
  const top = children(der, cert);
  if (top.length !== 3) throw new DerError("certificate does not have 3 elements");
  const [tbs, sigAlg, sig] = top as [Tlv, Tlv, Tlv];
  if (tbs.tag !== Tag.SEQUENCE) throw new DerError("malformed TBSCertificate");
  if (sigAlg.tag !== Tag.SEQUENCE) throw new DerError("malformed signature algorithm");
  if (sig.tag !== Tag.BIT_STRING) throw new DerError("malformed signature");
  const fields = children(der, tbs);
  let i = 0;
  if (fields[0]?.tag === Tag.CONTEXT_0) i++;
  const want: [string, number][] = [
    ["serial number", Tag.INTEGER],
    ["signature algorithm", Tag.SEQUENCE],
    ["issuer", Tag.SEQUENCE],
    ["validity", Tag.SEQUENCE],
    ["subject", Tag.SEQUENCE],
    ["subject public key info", Tag.SEQUENCE],
  ];
  const got: Tlv[] = [];
  for (const [what, tag] of want) {
    const f = fields[i++];
    if (f === undefined || f.tag !== tag) throw new DerError(`malformed certificate ${what}`);
    got.push(f);
  }
  const [serial, , issuer, , subject, spki] = got as [Tlv, Tlv, Tlv, Tlv, Tlv, Tlv];
  const spkiParts = children(der, spki);
  if (
    spkiParts.length !== 2 || spkiParts[0]!.tag !== Tag.SEQUENCE ||
    spkiParts[1]!.tag !== Tag.BIT_STRING
  ) {
    throw new DerError("malformed certificate subject public key info");
  }
  return { tbs, spki, subject, issuer, serial };
}

// ---------------------------------------------------------------------------
// A port of the reading half of Go's `golang.org/x/crypto/cryptobyte` (the
// DER reader `crypto/x509` parses certificates with). Each read reports
// failure by returning `undefined`, as cryptobyte returns false, so callers
// can raise Go's own message for the field at hand.

/**
 * Reads one element at `offset` (before `limit`) exactly as cryptobyte's
 * `readASN1` does: low tag numbers only, definite minimal lengths of at most
 * four length octets. `undefined` when cryptobyte would fail.
 */
export function peekTlv(buf: Uint8Array, offset: number, limit: number): Tlv | undefined {
  if (offset + 2 > limit) return undefined;
  const tag = buf[offset]!;
  if ((tag & 0x1f) === 0x1f) return undefined;
  const first = buf[offset + 1]!;
  let pos = offset + 2;
  let length: number;
  if (first < 0x80) {
    length = first;
  } else {
    const n = first & 0x7f;
    if (n === 0 || n > 4 || pos + n > limit) return undefined;
    length = 0;
    for (let i = 0; i < n; i++) length = length * 256 + buf[pos++]!;
    if (length < 0x80) return undefined;
    if (buf[offset + 2] === 0) return undefined;
  }
  const end = pos + length;
  if (end > limit) return undefined;
  return { tag, start: offset, contentStart: pos, end };
}

/** A cryptobyte `String`: the unread bytes `buf[pos:end]`. */
export class DerCursor {
  constructor(readonly buf: Uint8Array, public pos: number, public end: number) {}

  /** A cursor over the content of `tlv`. */
  static of(buf: Uint8Array, tlv: Tlv): DerCursor {
    return new DerCursor(buf, tlv.contentStart, tlv.end);
  }

  /** A cursor over all of `buf`. */
  static all(buf: Uint8Array): DerCursor {
    return new DerCursor(buf, 0, buf.length);
  }

  empty(): boolean {
    return this.pos >= this.end;
  }

  /** `PeekASN1Tag`. */
  peek(tag: number): boolean {
    return this.pos < this.end && this.buf[this.pos] === tag;
  }

  /** `ReadAnyASN1Element`: the next element, whatever its tag. */
  readAny(): Tlv | undefined {
    const t = peekTlv(this.buf, this.pos, this.end);
    if (t) this.pos = t.end;
    return t;
  }

  /** `ReadASN1Element` / `ReadASN1`: the next element, which must have `tag`. */
  read(tag: number): Tlv | undefined {
    const t = this.readAny();
    return t && t.tag === tag ? t : undefined;
  }

  /** `ReadASN1` into a new cursor over the content. */
  enter(tag: number): DerCursor | undefined {
    const t = this.read(tag);
    return t && DerCursor.of(this.buf, t);
  }

  /**
   * `ReadOptionalASN1`: `null` when absent, `undefined` on a read failure,
   * else the element.
   */
  readOptional(tag: number): Tlv | null | undefined {
    if (!this.peek(tag)) return null;
    return this.read(tag);
  }

  /** `SkipOptionalASN1`. */
  skipOptional(tag: number): boolean {
    return this.readOptional(tag) !== undefined;
  }

  /** The content of an element. */
  content(t: Tlv): Uint8Array {
    return this.buf.subarray(t.contentStart, t.end);
  }

  /** The whole element, header included. */
  bytes(t: Tlv): Uint8Array {
    return this.buf.subarray(t.start, t.end);
  }

  /** `ReadASN1Integer` into a `*big.Int`: the content bytes (two's complement). */
  readInteger(tag: number = Tag.INTEGER): Uint8Array | undefined {
    const t = this.read(tag);
    if (!t) return undefined;
    const c = this.content(t);
    return integerMinimal(c) ? c : undefined;
  }

  /** `ReadASN1Integer` into an int64 (`undefined` when it does not fit). */
  readInt64(tag: number = Tag.INTEGER): bigint | undefined {
    const c = this.readInteger(tag);
    return c && c.length <= 8 ? integerValue(c) : undefined;
  }

  /** `ReadASN1Boolean`. */
  readBoolean(): boolean | undefined {
    const t = this.read(0x01);
    if (!t || t.end - t.contentStart !== 1) return undefined;
    const b = this.buf[t.contentStart];
    return b === 0 ? false : b === 0xff ? true : undefined;
  }

  /** `ReadASN1BitString`: the bytes and the bit length. */
  readBitString(): { bytes: Uint8Array; bitLength: number } | undefined {
    const t = this.read(Tag.BIT_STRING);
    return t && bitString(this.content(t));
  }

  /** `ReadASN1ObjectIdentifier`: the dotted OID. */
  readOid(): string | undefined {
    const t = this.read(Tag.OID);
    return t && oidString(this.content(t));
  }
}

/** cryptobyte's `checkASN1Integer` (= encoding/asn1's `checkInteger`): non-empty and minimal. */
export function integerMinimal(c: Uint8Array): boolean {
  if (c.length === 0) return false;
  if (c.length === 1) return true;
  return !((c[0] === 0 && (c[1]! & 0x80) === 0) || (c[0] === 0xff && (c[1]! & 0x80) === 0x80));
}

/** The value of a two's complement big-endian integer. */
export function integerValue(c: Uint8Array): bigint {
  let n = 0n;
  for (const b of c) n = (n << 8n) | BigInt(b);
  if (c.length > 0 && (c[0]! & 0x80) !== 0) n -= 1n << BigInt(8 * c.length);
  return n;
}

/** A BIT STRING's content checked as cryptobyte and encoding/asn1 check it. */
export function bitString(c: Uint8Array): { bytes: Uint8Array; bitLength: number } | undefined {
  if (c.length === 0) return undefined;
  const pad = c[0]!;
  if (pad > 7 || (c.length === 1 && pad !== 0)) return undefined;
  if (c.length > 1 && (c[c.length - 1]! & ((1 << pad) - 1)) !== 0) return undefined;
  return { bytes: c.subarray(1), bitLength: (c.length - 1) * 8 - pad };
}

/**
 * An OID's content as dotted text, with cryptobyte's (and encoding/asn1's)
 * limits: non-empty, minimal base-128 components below 2^31.
 */
export function oidString(c: Uint8Array): string | undefined {
  if (c.length === 0) return undefined;
  const parts: number[] = [];
  let i = 0;
  while (i < c.length) {
    let v = 0;
    let k = 0;
    for (;; k++) {
      if (i >= c.length || k === 5 || v >= 1 << 24) return undefined;
      const b = c[i++]!;
      if (k === 0 && b === 0x80) return undefined;
      v = v * 128 + (b & 0x7f);
      if ((b & 0x80) === 0) break;
    }
    if (parts.length === 0) {
      if (v < 80) parts.push(Math.floor(v / 40), v % 40);
      else parts.push(2, v - 80);
    } else parts.push(v);
  }
  return parts.join(".");
}

const DAYS_IN = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(month: number, year: number): number {
  if (month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) return 29;
  return DAYS_IN[month - 1]!;
}

/** Milliseconds since the epoch of a proleptic Gregorian UTC date (any year). */
function utcMillis(y: number, mo: number, d: number, h: number, mi: number, s: number): number {
  const t = new Date(0);
  t.setUTCFullYear(y, mo - 1, d);
  t.setUTCHours(h, mi, s, 0);
  return t.getTime();
}

/**
 * Go's `time.Parse` of an ASN.1 time with the layout `YYMMDDhhmm[ss]Z0700`
 * (UTCTime, `twoDigitYear`) or `YYYYMMDDhhmmssZ0700` (GeneralizedTime),
 * followed by cryptobyte's rule that re-formatting must give back the input.
 * That leaves exactly: fixed-width digits, each field in range, `Z` or a
 * `±hhmm` offset that is not zero with minutes below 60 and hours up to 24.
 */
function parseGoTime(s: string, twoDigitYear: boolean, optionalSeconds: boolean): Date | undefined {
  const re = twoDigitYear
    ? (optionalSeconds
      ? /^(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)?(?:Z|([+-])(\d\d)(\d\d))$/
      : /^(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(?:Z|([+-])(\d\d)(\d\d))$/)
    : /^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(?:Z|([+-])(\d\d)(\d\d))$/;
  const m = re.exec(s);
  if (!m) return undefined;
  let year = Number(m[1]);
  if (twoDigitYear) year += year >= 50 ? 1900 : 2000;
  const month = Number(m[2]), day = Number(m[3]), hour = Number(m[4]), min = Number(m[5]);
  const sec = m[6] === undefined ? 0 : Number(m[6]);
  if (month < 1 || month > 12 || hour > 23 || min > 59 || sec > 59) return undefined;
  if (day < 1 || day > daysIn(month, year)) return undefined;
  let offset = 0;
  if (m[7] !== undefined) {
    const oh = Number(m[8]), om = Number(m[9]);
    // Go reads hours up to 24 and minutes up to 60, but 60 minutes and a zero
    // offset (printed back as `Z`) fail the round trip.
    if (oh > 24 || om > 59 || (oh === 0 && om === 0)) return undefined;
    offset = (oh * 60 + om) * 60_000 * (m[7] === "-" ? -1 : 1);
  }
  return new Date(utcMillis(year, month, day, hour, min, sec) - offset);
}

/** cryptobyte's `ReadASN1UTCTime` on an element's content (also encoding/asn1's `parseUTCTime`). */
export function parseUtcTime(c: Uint8Array): Date | undefined {
  return parseGoTime(latin1(c), true, true);
}

/** cryptobyte's `ReadASN1GeneralizedTime` on an element's content. */
export function parseGeneralizedTime(c: Uint8Array): Date | undefined {
  return parseGoTime(latin1(c), false, false);
}

/** Bytes as a string of the same code units (no decoding). */
export function latin1(c: Uint8Array): string {
  let s = "";
  for (let i = 0; i < c.length; i += 4096) {
    s += String.fromCharCode(...c.subarray(i, i + 4096));
  }
  return s;
}

// ---------------------------------------------------------------------------
// The parts of Go's `encoding/asn1` decoder (`asn1.Unmarshal`) that
// `ParseCertificateRequest` and RSA-PSS parameters go through. Unlike
// cryptobyte it accepts high tag numbers; errors carry its text.

/** An `asn1.StructuralError` / `asn1.SyntaxError` (and the few plain errors encoding/asn1 returns). */
export class Asn1Error extends InputError {
  constructor(message: string) {
    super(message);
    this.name = "Asn1Error";
  }
}

/** `asn1.SyntaxError{msg}`. */
export const asn1Syntax = (msg: string) => new Asn1Error(`asn1: syntax error: ${msg}`);
/** `asn1.StructuralError{msg}`. */
export const asn1Structure = (msg: string) => new Asn1Error(`asn1: structure error: ${msg}`);

/** One element as encoding/asn1's `parseTagAndLength` reads it. */
export interface GoElement {
  cls: number;
  compound: boolean;
  tag: number;
  /** Offset of the first identifier octet. */
  start: number;
  contentStart: number;
  /** contentStart + length (may lie beyond the buffer: callers check). */
  end: number;
}

/** encoding/asn1's `parseTagAndLength` at `offset` in `b` (whose end is `limit`). */
export function goTagAndLength(b: Uint8Array, offset: number, limit: number): GoElement {
  const start = offset;
  if (offset >= limit) throw new Asn1Error("asn1: internal error in parseTagAndLength");
  let x = b[offset++]!;
  const cls = x >> 6, compound = (x & 0x20) !== 0;
  let tag = x & 0x1f;
  if (tag === 0x1f) {
    tag = 0;
    for (let shifted = 0;; shifted++) {
      if (offset >= limit) throw asn1Syntax("truncated base 128 integer");
      if (shifted === 5) throw asn1Structure("base 128 integer too large");
      const c = b[offset++]!;
      if (shifted === 0 && c === 0x80) throw asn1Syntax("integer is not minimally encoded");
      tag = tag * 128 + (c & 0x7f);
      if ((c & 0x80) === 0) break;
    }
    if (tag > 0x7fffffff) throw asn1Structure("base 128 integer too large");
    if (tag < 0x1f) throw asn1Syntax("non-minimal tag");
  }
  if (offset >= limit) throw asn1Syntax("truncated tag or length");
  x = b[offset++]!;
  let length: number;
  if ((x & 0x80) === 0) length = x & 0x7f;
  else {
    const n = x & 0x7f;
    if (n === 0) throw asn1Syntax("indefinite length found (not DER)");
    length = 0;
    for (let i = 0; i < n; i++) {
      if (offset >= limit) throw asn1Syntax("truncated tag or length");
      const c = b[offset++]!;
      if (length >= 1 << 23) throw asn1Structure("length too large");
      length = length * 256 + c;
      if (length === 0) throw asn1Structure("superfluous leading zeros in length");
    }
    if (length < 0x80) throw asn1Structure("non-minimal length");
  }
  return { cls, compound, tag, start, contentStart: offset, end: offset + length };
}

/**
 * encoding/asn1's `parseField` header step for a field of a given universal
 * type (or an implicit context tag): reads the element at `offset`, returns
 * it when class, tag and constructed bit match, `null` when they do not and
 * the field is optional, and throws otherwise. `null` is also returned at
 * the end of the data for an optional field.
 */
export function goField(
  b: Uint8Array,
  offset: number,
  limit: number,
  want: { cls?: number; tag: number; compound: boolean; optional?: boolean; what: string },
): GoElement | null {
  if (offset === limit) {
    if (want.optional) return null;
    throw asn1Syntax("sequence truncated");
  }
  const t = goTagAndLength(b, offset, limit);
  if (t.cls !== (want.cls ?? 0) || t.tag !== want.tag || t.compound !== want.compound) {
    if (want.optional) return null;
    throw asn1Structure(
      `tags don't match (${want.tag} vs ${t.tag}) ${want.what} @${t.contentStart}`,
    );
  }
  if (t.end > limit) throw asn1Syntax("data truncated");
  return t;
}

/** encoding/asn1's RawValue field: any element. */
export function goRawValue(b: Uint8Array, offset: number, limit: number): GoElement {
  if (offset === limit) throw asn1Syntax("sequence truncated");
  const t = goTagAndLength(b, offset, limit);
  if (t.end > limit) throw asn1Syntax("data truncated");
  return t;
}

/** encoding/asn1's `parseInt64` on content bytes. */
export function goParseInt64(c: Uint8Array): bigint {
  if (c.length === 0) throw asn1Structure("empty integer");
  if (!integerMinimal(c)) throw asn1Structure("integer not minimally-encoded");
  if (c.length > 8) throw asn1Structure("integer too large");
  return integerValue(c);
}

/** encoding/asn1's `parseObjectIdentifier` on content bytes. */
export function goParseOid(c: Uint8Array): string {
  if (c.length === 0) throw asn1Syntax("zero length OBJECT IDENTIFIER");
  const s = oidString(c);
  if (s === undefined) throw asn1Structure("base 128 integer too large");
  return s;
}

/** encoding/asn1's `parseBitString` on content bytes. */
export function goParseBitString(c: Uint8Array): { bytes: Uint8Array; bitLength: number } {
  if (c.length === 0) throw asn1Syntax("zero length BIT STRING");
  const bs = bitString(c);
  if (!bs) throw asn1Syntax("invalid padding bits in BIT STRING");
  return bs;
}

/** encoding/asn1's AlgorithmIdentifier {Algorithm OID; Parameters RawValue optional} at `offset`. */
export function goAlgorithmIdentifier(
  b: Uint8Array,
  offset: number,
  limit: number,
  what: string,
): { oid: string; params: Uint8Array | undefined; end: number } {
  const seq = goField(b, offset, limit, { tag: 16, compound: true, what })!;
  const o = goField(b, seq.contentStart, seq.end, {
    tag: 6,
    compound: false,
    what: "ObjectIdentifier",
  })!;
  const oid = goParseOid(b.subarray(o.contentStart, o.end));
  let params: Uint8Array | undefined;
  if (o.end < seq.end) {
    const p = goRawValue(b, o.end, seq.end);
    params = b.subarray(p.start, p.end);
  }
  return { oid, params, end: seq.end };
}
