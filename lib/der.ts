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
