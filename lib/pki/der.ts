/**
 * A minimal, strict DER reader: enough to walk a certificate to its
 * SubjectPublicKeyInfo without loading an ASN.1 library (so `ca hash` starts
 * as fast as a hello-world). Every length is checked against its parent's
 * bounds; indefinite lengths, high tag numbers and non-minimal lengths are
 * refused, as DER requires.
 *
 * @module
 */

import { InputError } from "../base/errors.ts";
import { goQuoteBytes } from "../go/quote.ts";

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
 * ```ts ignore
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
  return readAt(buf, offset, limit)
    ? { tag: at.tag, start: offset, contentStart: at.cs, end: at.end }
    : undefined;
}

/**
 * Where the last successful {@link readAt} found its element: the tag, the
 * first content octet and the end. One shared record, so reading costs no
 * allocation: copy what you need before the next call.
 */
export const at = { tag: 0, cs: 0, end: 0 };

/**
 * {@link peekTlv} without allocating: `true` with {@link at} set to the
 * element at `offset` (before `limit`), `false` (and {@link at} untouched)
 * when cryptobyte's `readASN1` would fail.
 */
export function readAt(buf: Uint8Array, offset: number, limit: number): boolean {
  if (offset + 2 > limit) return false;
  const tag = buf[offset]!;
  if ((tag & 0x1f) === 0x1f) return false;
  const first = buf[offset + 1]!;
  let pos = offset + 2;
  let length: number;
  if (first < 0x80) {
    length = first;
  } else {
    const n = first & 0x7f;
    if (n === 0 || n > 4 || pos + n > limit) return false;
    length = 0;
    for (let i = 0; i < n; i++) length = length * 256 + buf[pos++]!;
    if (length < 0x80) return false;
    if (buf[offset + 2] === 0) return false;
  }
  const end = pos + length;
  if (end > limit) return false;
  at.tag = tag;
  at.cs = pos;
  at.end = end;
  return true;
}

/**
 * {@link readAt} that also requires `tag` (cryptobyte's `ReadASN1`): on a
 * different tag it returns `false` with {@link at} describing the element.
 */
export function readTagAt(buf: Uint8Array, offset: number, limit: number, tag: number): boolean {
  return readAt(buf, offset, limit) && at.tag === tag;
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
    return t && oidAt(this.buf, t.contentStart, t.end);
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
  return oidText(c, 0, c.length);
}

/** {@link oidString} of `buf[start:end]`. */
function oidText(buf: Uint8Array, start: number, end: number): string | undefined {
  if (start >= end) return undefined;
  let out = "";
  let i = start;
  while (i < end) {
    let v = 0;
    let k = 0;
    for (;; k++) {
      if (i >= end || k === 5 || v >= 1 << 24) return undefined;
      const b = buf[i++]!;
      if (k === 0 && b === 0x80) return undefined;
      v = v * 128 + (b & 0x7f);
      if ((b & 0x80) === 0) break;
    }
    if (out === "") {
      out = v < 80 ? Math.floor(v / 40) + "." + (v % 40) : "2." + (v - 80);
    } else out += "." + v;
  }
  return out;
}

/**
 * A small table of values keyed by byte strings `buf[start:end]`, for what a
 * fleet repeats (OIDs, an issuer, an algorithm, extension values): hash
 * slots, a colliding entry replaces the older one, and a lookup allocates
 * nothing. Keys longer than `maxKey` bytes are never kept.
 */
export class ByteTable<T> {
  readonly #keys: (Uint8Array | undefined)[];
  readonly #vals: (T | undefined)[];
  readonly #mask: number;
  readonly #maxKey: number;
  #slot = 0;

  /** `slots` must be a power of two. */
  constructor(slots: number, maxKey: number) {
    this.#keys = new Array(slots).fill(undefined);
    this.#vals = new Array(slots).fill(undefined);
    this.#mask = slots - 1;
    this.#maxKey = maxKey;
  }

  /** The value kept for these bytes, or `undefined`. */
  get(buf: Uint8Array, start: number, end: number): T | undefined {
    const len = end - start;
    if (len > this.#maxKey) return undefined;
    let h = len;
    for (let i = start; i < end; i++) h = Math.imul(h ^ buf[i]!, 0x01000193);
    // A final mix: short keys (OIDs differing in one byte) must spread over the slots.
    h ^= h >>> 15;
    h = Math.imul(h, 0x2c1b3c6d);
    h ^= h >>> 12;
    const slot = this.#slot = h & this.#mask;
    const key = this.#keys[slot];
    if (key === undefined || key.length !== len) return undefined;
    for (let i = 0; i < len; i++) if (key[i] !== buf[start + i]) return undefined;
    return this.#vals[slot];
  }

  /** Keeps `value` for these bytes; call right after a {@link get} of the same bytes. */
  set(buf: Uint8Array, start: number, end: number, value: T): void {
    if (end - start > this.#maxKey) return;
    this.#keys[this.#slot] = buf.slice(start, end);
    this.#vals[this.#slot] = value;
  }
}

// Fleets repeat a handful of OIDs (extensions, name attributes, algorithms).
const oids = new ByteTable<string>(512, 40);

/** {@link oidString} of the content `buf[start:end]`, from a table of recent OIDs. */
export function oidAt(buf: Uint8Array, start: number, end: number): string | undefined {
  let s = oids.get(buf, start, end);
  if (s === undefined) {
    s = oidText(buf, start, end);
    if (s !== undefined) oids.set(buf, start, end, s);
  }
  return s;
}

const DAYS_IN = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(month: number, year: number): number {
  if (month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) return 29;
  return DAYS_IN[month - 1]!;
}

/** Milliseconds since the epoch of a proleptic Gregorian UTC date (any year). */
function utcMillis(y: number, mo: number, d: number, h: number, mi: number, s: number): number {
  // Date.UTC reads years 0-99 as 1900-1999; only those need the long way.
  if (y >= 100) return Date.UTC(y, mo - 1, d, h, mi, s);
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
  return utcTimeAt(c, 0, c.length);
}

/** {@link parseUtcTime} of the content `buf[start:end]`. */
export function utcTimeAt(buf: Uint8Array, start: number, end: number): Date | undefined {
  if (end - start === 13 && buf[start + 12] === 0x5a) {
    const d = zuluTime(buf, start, 2);
    if (d !== null) return d;
  }
  return parseGoTime(latin1(buf.subarray(start, end)), true, true);
}

/** cryptobyte's `ReadASN1GeneralizedTime` on an element's content. */
export function parseGeneralizedTime(c: Uint8Array): Date | undefined {
  return generalizedTimeAt(c, 0, c.length);
}

/** {@link parseGeneralizedTime} of the content `buf[start:end]`. */
export function generalizedTimeAt(buf: Uint8Array, start: number, end: number): Date | undefined {
  if (end - start === 15 && buf[start + 14] === 0x5a) {
    const d = zuluTime(buf, start, 4);
    if (d !== null) return d;
  }
  return parseGoTime(latin1(buf.subarray(start, end)), false, false);
}

/**
 * The common shape without the regex: `YY` or `YYYY`, then `MMDDhhmmss` and
 * `Z` (the caller checked the length and the `Z`), the same checks as
 * {@link parseGoTime}. `null` when a character is not a digit (the caller
 * then takes the general path, which refuses it).
 */
function zuluTime(c: Uint8Array, at: number, yearDigits: number): Date | undefined | null {
  const end = at + yearDigits + 10;
  for (let i = at; i < end; i++) {
    const b = c[i]!;
    if (b < 0x30 || b > 0x39) return null;
  }
  const two = (i: number) => (c[at + i]! - 0x30) * 10 + (c[at + i + 1]! - 0x30);
  let year = two(0);
  if (yearDigits === 4) year = year * 100 + two(2);
  else year += year >= 50 ? 1900 : 2000;
  const y = yearDigits;
  const month = two(y), day = two(y + 2), hour = two(y + 4), min = two(y + 6), sec = two(y + 8);
  if (month < 1 || month > 12 || hour > 23 || min > 59 || sec > 59) return undefined;
  if (day < 1 || day > daysIn(month, year)) return undefined;
  return new Date(utcMillis(year, month, day, hour, min, sec));
}

/** Bytes as a string of the same code units (no decoding). */
export function latin1(c: Uint8Array): string {
  if (c.length <= 4096) {
    return String.fromCharCode.apply(null, c as unknown as number[]);
  }
  let s = "";
  for (let i = 0; i < c.length; i += 4096) {
    s += String.fromCharCode.apply(null, c.subarray(i, i + 4096) as unknown as number[]);
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

/**
 * `%+v` of encoding/asn1's `fieldParameters` for a field without tags (every
 * field whose mismatch is an error, except `tag:N` ones: see
 * {@link GO_PARAMS_TAG}).
 */
export const GO_PARAMS_NONE =
  "{optional:false explicit:false application:false private:false defaultValue:<nil> tag:<nil> stringType:0 timeType:0 set:false omitEmpty:false}";

/**
 * `%+v` of `fieldParameters` for an implicit `tag:N` field. Go prints the
 * `*int` as a heap address, which differs from run to run; this stands in
 * for it (a difference the oracle cannot compare).
 */
export const GO_PARAMS_TAG =
  "{optional:false explicit:false application:false private:false defaultValue:<nil> tag:0xc000012345 stringType:0 timeType:0 set:false omitEmpty:false}";

/** One element as encoding/asn1's `parseTagAndLength` reads it. */
export interface GoElement {
  cls: number;
  compound: boolean;
  tag: number;
  /** The length as encoded. */
  length: number;
  /** Offset of the first identifier octet. */
  start: number;
  contentStart: number;
  /** contentStart + length (may lie beyond the buffer: callers check). */
  end: number;
}

/** encoding/asn1's `parseBase128Int` over `b[offset:limit]`: [value, next offset]. */
function goBase128Int(b: Uint8Array, offset: number, limit: number): [number, number] {
  let ret = 0;
  for (let shifted = 0; offset < limit; shifted++) {
    // 5 * 7 bits: non-minimal or too large for an int32.
    if (shifted === 5) throw asn1Structure("base 128 integer too large");
    const c = b[offset]!;
    if (shifted === 0 && c === 0x80) throw asn1Syntax("integer is not minimally encoded");
    ret = ret * 128 + (c & 0x7f);
    offset++;
    if ((c & 0x80) === 0) {
      if (ret > 0x7fffffff) throw asn1Structure("base 128 integer too large");
      return [ret, offset];
    }
  }
  throw asn1Syntax("truncated base 128 integer");
}

/** encoding/asn1's `parseTagAndLength` at `offset` in `b` (whose end is `limit`). */
export function goTagAndLength(b: Uint8Array, offset: number, limit: number): GoElement {
  const start = offset;
  if (offset >= limit) throw new Asn1Error("asn1: internal error in parseTagAndLength");
  let x = b[offset++]!;
  const cls = x >> 6, compound = (x & 0x20) !== 0;
  let tag = x & 0x1f;
  if (tag === 0x1f) {
    [tag, offset] = goBase128Int(b, offset, limit);
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
  return { cls, compound, tag, length, start, contentStart: offset, end: offset + length };
}

/** What {@link goField} expects: the Go field's type as encoding/asn1 sees it. */
export interface GoFieldWant {
  /** Expected class (0 universal, 2 context-specific for `tag:N`). */
  cls?: number;
  tag: number;
  compound: boolean;
  optional?: boolean;
  /** `reflect.Type.Name()` of the Go type ("" for unnamed types such as `[]byte`). */
  what: string;
  /** Offset in `b` of the slice encoding/asn1 parses (error offsets are relative to it). */
  base?: number;
  /** `%+v` of the field's `fieldParameters` (default {@link GO_PARAMS_NONE}). */
  params?: string;
}

/**
 * encoding/asn1's `parseField` header step for a field of a given universal
 * type (or an implicit context tag) over the slice `b[base:limit]`: reads
 * the element at `offset`, returns it when class, tag and constructed bit
 * match, `null` when they do not and the field is optional, and throws
 * otherwise. `null` is also returned at the end of the data for an optional
 * field.
 */
export function goField(
  b: Uint8Array,
  offset: number,
  limit: number,
  want: GoFieldWant,
): GoElement | null {
  if (offset === limit) {
    if (want.optional) return null;
    throw asn1Syntax("sequence truncated");
  }
  const t = goTagAndLength(b, offset, limit);
  if (t.cls !== (want.cls ?? 0) || t.tag !== want.tag || t.compound !== want.compound) {
    if (want.optional) return null;
    throw asn1Structure(
      `tags don't match (${want.tag} vs {class:${t.cls} tag:${t.tag} length:${t.length} isCompound:${t.compound}}) ${
        want.params ?? GO_PARAMS_NONE
      } ${want.what} @${t.contentStart - (want.base ?? 0)}`,
    );
  }
  if (t.end > limit) throw asn1Syntax("data truncated");
  return t;
}

/** encoding/asn1's RawValue (or `any`) field: any element. */
export function goRawValue(b: Uint8Array, offset: number, limit: number): GoElement {
  if (offset === limit) throw asn1Syntax("sequence truncated");
  const t = goTagAndLength(b, offset, limit);
  if (t.end > limit) throw asn1Syntax("data truncated");
  return t;
}

/**
 * encoding/asn1's `parseSequenceOf` header pass over `b[start:end]`: every
 * element's header is read first (each must be universal with the element
 * type's tag when `elem` is given; any element for RawValue). The caller
 * then parses the elements in order, as Go does.
 */
export function goSequenceOf(
  b: Uint8Array,
  start: number,
  end: number,
  elem: { tag: number; compound: boolean } | undefined,
): GoElement[] {
  const out: GoElement[] = [];
  for (let off = start; off < end;) {
    const t = goTagAndLength(b, off, end);
    let tag = t.tag;
    // Go files the string types under PrintableString and the times under UTCTime.
    if ([22, 27, 20, 12, 18, 30].includes(tag)) tag = 19;
    else if (tag === 24 || tag === 23) tag = 23;
    if (elem && (t.cls !== 0 || t.compound !== elem.compound || tag !== elem.tag)) {
      throw asn1Structure("sequence tag mismatch");
    }
    if (t.end > end) throw asn1Syntax("truncated sequence");
    out.push(t);
    off = t.end;
  }
  return out;
}

/** encoding/asn1's `parseInt64` on content bytes. */
export function goParseInt64(c: Uint8Array): bigint {
  if (c.length === 0) throw asn1Structure("empty integer");
  if (!integerMinimal(c)) throw asn1Structure("integer not minimally-encoded");
  if (c.length > 8) throw asn1Structure("integer too large");
  return integerValue(c);
}

/** encoding/asn1's `parseBool` on content bytes. */
export function goParseBool(c: Uint8Array): boolean {
  if (c.length !== 1 || (c[0] !== 0 && c[0] !== 0xff)) throw asn1Syntax("invalid boolean");
  return c[0] === 0xff;
}

/** encoding/asn1's `parseObjectIdentifier` on content bytes. */
export function goParseOid(c: Uint8Array): string {
  if (c.length === 0) throw asn1Syntax("zero length OBJECT IDENTIFIER");
  let [v, off] = goBase128Int(c, 0, c.length);
  const parts = v < 80 ? [Math.floor(v / 40), v % 40] : [2, v - 80];
  while (off < c.length) {
    [v, off] = goBase128Int(c, off, c.length);
    parts.push(v);
  }
  return parts.join(".");
}

/** encoding/asn1's `parseBitString` on content bytes. */
export function goParseBitString(c: Uint8Array): { bytes: Uint8Array; bitLength: number } {
  if (c.length === 0) throw asn1Syntax("zero length BIT STRING");
  const bs = bitString(c);
  if (!bs) throw asn1Syntax("invalid padding bits in BIT STRING");
  return bs;
}

/**
 * encoding/asn1's `pkix.AlgorithmIdentifier` {Algorithm OID; Parameters
 * RawValue optional} at `offset` of the slice `b[base:limit]`.
 */
export function goAlgorithmIdentifier(
  b: Uint8Array,
  offset: number,
  limit: number,
  what: string,
  base = 0,
): { oid: string; params: Uint8Array | undefined; end: number } {
  const seq = goField(b, offset, limit, { tag: 16, compound: true, what, base })!;
  const o = goField(b, seq.contentStart, seq.end, {
    tag: 6,
    compound: false,
    what: "ObjectIdentifier",
    base: seq.contentStart,
  })!;
  const oid = goParseOid(b.subarray(o.contentStart, o.end));
  let params: Uint8Array | undefined;
  if (o.end < seq.end) {
    const p = goRawValue(b, o.end, seq.end);
    params = b.subarray(p.start, p.end);
  }
  return { oid, params, end: seq.end };
}

// ---------------------------------------------------------------------------
// encoding/asn1's `parseUTCTime` / `parseGeneralizedTime`: Go's `time.Parse`
// with the layouts below, then the rule that `Format` must give the input
// back. Both halves are ported for these layouts only, error texts included.

type GoTimeLayout = "0601021504Z0700" | "060102150405Z0700" | "20060102150405.999999999Z0700";

const LAYOUT_CHUNKS: Record<GoTimeLayout, string[]> = {
  "0601021504Z0700": ["06", "01", "02", "15", "04", "Z0700"],
  "060102150405Z0700": ["06", "01", "02", "15", "04", "05", "Z0700"],
  "20060102150405.999999999Z0700": ["2006", "01", "02", "15", "04", "05", ".999999999", "Z0700"],
};

interface GoClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  min: number;
  sec: number;
  nsec: number;
  /** Zone offset in seconds (0 for `Z`). */
  offset: number;
}

/** time's own `quote` (ParseError): every non-ASCII or control byte as `\xNN`. */
function timeQuote(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80 || c < 0x20) out += "\\x" + c.toString(16).padStart(2, "0");
    else out += c === 0x22 || c === 0x5c ? "\\" + s[i] : s[i];
  }
  return out + '"';
}

const isDigitAt = (s: string, i: number) => i < s.length && s[i]! >= "0" && s[i]! <= "9";
const commaOrPeriod = (c: string | undefined) => c === "." || c === ",";

/** time's `atoi` (an optional sign, then digits only); `undefined` = error. */
function timeAtoi(s: string): number | undefined {
  let neg = false;
  if (s[0] === "-" || s[0] === "+") {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  if (!/^[0-9]*$/.test(s)) return undefined;
  const x = s === "" ? 0 : Number(s);
  return neg ? -x : x;
}

/** time's `getnum`: [value, rest], or undefined (errBad). */
function getnum(s: string, fixed: boolean): [number, string] | undefined {
  if (!isDigitAt(s, 0)) return undefined;
  if (!isDigitAt(s, 1)) return fixed ? undefined : [s.charCodeAt(0) - 48, s.slice(1)];
  return [(s.charCodeAt(0) - 48) * 10 + s.charCodeAt(1) - 48, s.slice(2)];
}

/** time's `parseNanoseconds(value, nbytes)` (value[0] is a comma or period). */
function parseNanos(value: string, nbytes: number): number {
  if (nbytes > 10) nbytes = 10;
  let ns = Number(value.slice(1, nbytes));
  for (let i = 0; i < 10 - nbytes; i++) ns *= 10;
  return ns;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const goDaysIn = (m: number, y: number) =>
  m === 2 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : DAYS_IN_MONTH[m - 1]!;

/** `time.Parse(layout, value)` for the encoding/asn1 layouts: the clock, or Go's error text. */
function goTimeParse(layout: GoTimeLayout, avalue: string): GoClock | string {
  const t: GoClock = { year: 0, month: -1, day: -1, hour: 0, min: 0, sec: 0, nsec: 0, offset: 0 };
  const chunks = LAYOUT_CHUNKS[layout];
  let value = avalue;
  for (let k = 0; k < chunks.length; k++) {
    const std = chunks[k]!;
    const hold = value;
    let bad = false;
    let range = "";
    switch (std) {
      case "06": {
        if (value.length < 2) {
          bad = true;
          break;
        }
        const y = timeAtoi(value.slice(0, 2));
        value = value.slice(2);
        if (y === undefined) bad = true;
        else t.year = y >= 69 ? y + 1900 : y + 2000;
        break;
      }
      case "2006": {
        if (value.length < 4 || !isDigitAt(value, 0)) {
          bad = true;
          break;
        }
        const y = timeAtoi(value.slice(0, 4));
        value = value.slice(4);
        if (y === undefined) bad = true;
        else t.year = y;
        break;
      }
      case "01":
      case "02":
      case "04":
      case "05":
      case "15": {
        const r = getnum(value, std !== "15");
        const n = r ? r[0] : 0;
        if (r) value = r[1];
        else bad = true;
        if (std === "01") {
          t.month = n;
          if (r && (n <= 0 || n > 12)) range = "month";
        } else if (std === "02") t.day = n;
        else if (std === "15") {
          t.hour = n;
          if (n >= 24) range = "hour";
        } else if (std === "04") {
          t.min = n;
          if (n >= 60) range = "minute";
        } else if (r) {
          t.sec = n;
          if (n >= 60) {
            range = "second";
            break;
          }
          // A fraction the layout does not ask for is still read.
          if (value.length >= 2 && commaOrPeriod(value[0]) && isDigitAt(value, 1)) {
            if (chunks[k + 1] === ".999999999") break;
            let e = 2;
            while (e < value.length && isDigitAt(value, e)) e++;
            t.nsec = parseNanos(value, e);
            value = value.slice(e);
          }
        }
        break;
      }
      case ".999999999": {
        if (value.length < 2 || !commaOrPeriod(value[0]) || !isDigitAt(value, 1)) break;
        let i = 0;
        while (i + 1 < value.length && isDigitAt(value, i + 1)) i++;
        t.nsec = parseNanos(value, 1 + i);
        value = value.slice(1 + i);
        break;
      }
      case "Z0700": {
        if (value.length >= 1 && value[0] === "Z") {
          value = value.slice(1);
          t.offset = 0;
          break;
        }
        if (value.length < 5) {
          bad = true;
          break;
        }
        const sign = value[0];
        const hr = getnum(value.slice(1, 3), true);
        const mm = hr && getnum(value.slice(3, 5), true);
        value = value.slice(5);
        if (!hr || !mm) bad = true;
        const h = hr ? hr[0] : 0, m = mm ? mm[0] : 0;
        if (h > 24) range = "time zone offset hour";
        if (m > 60) range = "time zone offset minute";
        t.offset = (h * 60 + m) * 60;
        if (sign === "-") t.offset = -t.offset;
        else if (sign !== "+") bad = true;
        break;
      }
    }
    if (range) return `parsing time ${timeQuote(avalue)}: ${range} out of range`;
    if (bad) {
      return `parsing time ${timeQuote(avalue)} as ${timeQuote(layout)}: cannot parse ${
        timeQuote(hold)
      } as ${timeQuote(std)}`;
    }
  }
  if (value.length !== 0) {
    return `parsing time ${timeQuote(avalue)}: extra text: ${timeQuote(value)}`;
  }
  if (t.day < 1 || t.day > goDaysIn(t.month, t.year)) {
    return `parsing time ${timeQuote(avalue)}: day out of range`;
  }
  return t;
}

const pad = (n: number, w: number) => String(n).padStart(w, "0");

/** `Time.Format(layout)` of a parsed clock (every field already in range). */
function goTimeFormat(layout: GoTimeLayout, t: GoClock): string {
  let s = "";
  for (const std of LAYOUT_CHUNKS[layout]) {
    switch (std) {
      case "06":
        s += pad(t.year % 100, 2);
        break;
      case "2006":
        s += pad(t.year, 4);
        break;
      case "01":
        s += pad(t.month, 2);
        break;
      case "02":
        s += pad(t.day, 2);
        break;
      case "15":
        s += pad(t.hour, 2);
        break;
      case "04":
        s += pad(t.min, 2);
        break;
      case "05":
        s += pad(t.sec, 2);
        break;
      case ".999999999":
        if (t.nsec !== 0) s += "." + pad(t.nsec, 9).replace(/0+$/, "");
        break;
      case "Z0700": {
        const zone = Math.trunc(t.offset / 60);
        if (zone === 0) s += "Z";
        else {
          const abs = Math.abs(zone);
          s += (zone < 0 ? "-" : "+") + pad(Math.floor(abs / 60), 2) + pad(abs % 60, 2);
        }
        break;
      }
    }
  }
  return s;
}

function goTimeRoundTrip(layout: GoTimeLayout, s: string, t: GoClock, raw: Uint8Array): Date {
  const serialized = goTimeFormat(layout, t);
  if (serialized !== s) {
    throw new Asn1Error(
      `asn1: time did not serialize back to the original value and may be invalid: given ${
        goQuoteBytes(raw)
      }, but serialized as ${goQuoteBytes(new TextEncoder().encode(serialized))}`,
    );
  }
  const d = new Date(0);
  d.setUTCFullYear(t.year, t.month - 1, t.day);
  d.setUTCHours(t.hour, t.min, t.sec, Math.floor(t.nsec / 1e6));
  return new Date(d.getTime() - t.offset * 1000);
}

/**
 * encoding/asn1's `parseUTCTime` on content bytes (years ≥ 2050 are not
 * moved back a century: callers only need the verdict). Throws Go's error.
 */
export function goParseUtcTime(c: Uint8Array): Date {
  const s = latin1(c);
  let layout: GoTimeLayout = "0601021504Z0700";
  let r = goTimeParse(layout, s);
  if (typeof r === "string") {
    layout = "060102150405Z0700";
    r = goTimeParse(layout, s);
  }
  if (typeof r === "string") throw new Asn1Error(r);
  return goTimeRoundTrip(layout, s, r, c);
}

/** encoding/asn1's `parseGeneralizedTime` on content bytes. Throws Go's error. */
export function goParseGeneralizedTime(c: Uint8Array): Date {
  const s = latin1(c);
  const layout: GoTimeLayout = "20060102150405.999999999Z0700";
  const r = goTimeParse(layout, s);
  if (typeof r === "string") throw new Asn1Error(r);
  return goTimeRoundTrip(layout, s, r, c);
}
