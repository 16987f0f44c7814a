/**
 * Distinguished names as Go's `crypto/x509/pkix.Name` reads and writes them,
 * on the strict DER reader (reading) and `@peculiar/asn1-x509`'s ASN.1 `Name` (writing).
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { at, latin1, oidAt, readAt, readTagAt, type Tlv } from "./der.ts";
import { InputError } from "../base/errors.ts";
import { derOid, derTlv } from "./der_encode.ts";

/** Attribute-type OIDs Go's `pkix.Name` knows, with their short names. */
export const NAME_OIDS = {
  country: "2.5.4.6",
  organization: "2.5.4.10",
  organizationalUnit: "2.5.4.11",
  commonName: "2.5.4.3",
  serialNumber: "2.5.4.5",
  locality: "2.5.4.7",
  province: "2.5.4.8",
  streetAddress: "2.5.4.9",
  postalCode: "2.5.4.17",
} as const;

const SHORT: Record<string, string> = {
  "2.5.4.6": "C",
  "2.5.4.10": "O",
  "2.5.4.11": "OU",
  "2.5.4.3": "CN",
  "2.5.4.5": "SERIALNUMBER",
  "2.5.4.7": "L",
  "2.5.4.8": "ST",
  "2.5.4.9": "STREET",
  "2.5.4.17": "POSTALCODE",
  "1.2.840.113549.1.9.1": "emailAddress",
};

/** A distinguished name as Go's `pkix.Name` holds it. */
export interface Name {
  country: string[];
  organization: string[];
  organizationalUnit: string[];
  locality: string[];
  province: string[];
  streetAddress: string[];
  postalCode: string[];
  serialNumber: string;
  commonName: string;
  /** Every attribute, RDN by RDN, as read (for display). */
  rdns: { oid: string; value: string }[][];
}

/** An empty {@link Name}. */
export function emptyName(): Name {
  return {
    country: [],
    organization: [],
    organizationalUnit: [],
    locality: [],
    province: [],
    streetAddress: [],
    postalCode: [],
    serialNumber: "",
    commonName: "",
    rdns: [],
  };
}

/**
 * Whether Go's `asn1.Marshal` writes an untagged string as a PrintableString
 * (`makeField`: `isPrintable(b, rejectAsterisk, rejectAmpersand)` for every
 * character), not a UTF8String.
 */
function isPrintable(s: string): boolean {
  return /^[A-Za-z0-9 '()+,\-./:=?]*$/.test(s);
}

const oidDer = new Map<string, Uint8Array>();
const utf8 = new TextEncoder();

/**
 * A subject name's DER as Go's `Name.ToRDNSequence` + `asn1.Marshal` write
 * it: C, ST, L, STREET, POSTALCODE, O, OU, CN, SERIALNUMBER, several values
 * of one type in one multi-valued RDN (a DER SET, so sorted by encoding),
 * each a PrintableString when it can be, else a UTF8String; other attributes
 * dropped. `goName` in pkix_encode.ts reads these bytes back as an object.
 */
export function goNameDer(n: Pick<Name, Exclude<keyof Name, "rdns">>): Uint8Array {
  const rdns: Uint8Array[] = [];
  const add = (values: string[], type: string) => {
    if (values.length === 0) return;
    let oid = oidDer.get(type);
    if (!oid) oidDer.set(type, oid = derOid(type));
    const atvs = values.map((v) =>
      derTlv(0x30, oid!, derTlv(isPrintable(v) ? 0x13 : 0x0c, utf8.encode(v)))
    );
    if (atvs.length > 1) atvs.sort((x, y) => Buffer.compare(x, y));
    rdns.push(derTlv(0x31, ...atvs));
  };
  add(n.country, NAME_OIDS.country);
  add(n.province, NAME_OIDS.province);
  add(n.locality, NAME_OIDS.locality);
  add(n.streetAddress, NAME_OIDS.streetAddress);
  add(n.postalCode, NAME_OIDS.postalCode);
  add(n.organization, NAME_OIDS.organization);
  add(n.organizationalUnit, NAME_OIDS.organizationalUnit);
  if (n.commonName) add([n.commonName], NAME_OIDS.commonName);
  if (n.serialNumber) add([n.serialNumber], NAME_OIDS.serialNumber);
  return derTlv(0x30, ...rdns);
}

/** Whether formatName's escaping changes `s` (a special character, a leading space or `#`, a trailing space). */
const NEEDS_ESCAPE = /[,+"\\<>;]|^[ #]| $/;

/** A name as text, most specific first, like Go's `Name.String`: `CN=x,O=y`. */
export function formatName(n: Name): string {
  let out = "";
  for (let i = n.rdns.length - 1; i >= 0; i--) {
    const rdn = n.rdns[i]!;
    if (i !== n.rdns.length - 1) out += ",";
    for (let j = 0; j < rdn.length; j++) {
      const a = rdn[j]!;
      if (j !== 0) out += "+";
      const v = a.value;
      out += (SHORT[a.oid] ?? a.oid) + "=" +
        (v.startsWith("#") || !NEEDS_ESCAPE.test(v) ? v : escapeValue(v));
    }
  }
  return out;
}

function escapeValue(s: string): string {
  return s.replace(/([,+"\\<>;])/g, "\\$1").replace(/^([ #])/, "\\$1").replace(/ $/, "\\ ");
}

/** One attribute as read: its type, its string value (`undefined` when not a string), its DER. */
export interface NameAttribute {
  oid: string;
  value: string | undefined;
  der: Uint8Array;
}

/**
 * Go's `pkix.Name.FillFromRDNSequence`: RDNs flattened in order, only string
 * values count, CommonName and SerialNumber take the last occurrence, the
 * list fields collect every one. Empty RDNs are skipped.
 */
export function fillName(rdns: NameAttribute[][]): Name {
  const out = emptyName();
  for (const rdn of rdns) {
    if (rdn.length === 0) continue;
    const shown: { oid: string; value: string }[] = [];
    for (const atv of rdn) {
      const value = atv.value;
      if (value === undefined) {
        shown.push({ oid: atv.oid, value: "#" + Buffer.from(atv.der).toString("hex") });
        continue;
      }
      shown.push({ oid: atv.oid, value });
      fillAttribute(out, atv.oid, value);
    }
    out.rdns.push(shown);
  }
  return out;
}

/** One string attribute into `out`, as FillFromRDNSequence files it. */
function fillAttribute(out: Name, oid: string, value: string): void {
  switch (oid) {
    case NAME_OIDS.commonName:
      out.commonName = value;
      break;
    case NAME_OIDS.serialNumber:
      out.serialNumber = value;
      break;
    case NAME_OIDS.country:
      out.country = add(out.country, value);
      break;
    case NAME_OIDS.locality:
      out.locality = add(out.locality, value);
      break;
    case NAME_OIDS.province:
      out.province = add(out.province, value);
      break;
    case NAME_OIDS.streetAddress:
      out.streetAddress = add(out.streetAddress, value);
      break;
    case NAME_OIDS.postalCode:
      out.postalCode = add(out.postalCode, value);
      break;
    case NAME_OIDS.organization:
      out.organization = add(out.organization, value);
      break;
    case NAME_OIDS.organizationalUnit:
      out.organizationalUnit = add(out.organizationalUnit, value);
      break;
  }
}

// A parsed name's absent fields share one frozen empty list (a fleet's names
// have mostly empty fields); the first value replaces it with a list of its own.
const NONE: string[] = Object.freeze([]) as unknown as string[];

function add(list: string[], value: string): string[] {
  if (list === NONE) return [value];
  list.push(value);
  return list;
}

/** A {@link Name} whose list fields are the shared empty list until filled. */
function parsedName(): Name {
  return {
    country: NONE,
    organization: NONE,
    organizationalUnit: NONE,
    locality: NONE,
    province: NONE,
    streetAddress: NONE,
    postalCode: NONE,
    serialNumber: "",
    commonName: "",
    rdns: NO_RDNS,
  };
}

const NO_RDNS = Object.freeze([]) as unknown as { oid: string; value: string }[][];

/** crypto/x509's `isPrintable`: PrintableString plus `*` and `&`. */
export function isPrintableByte(b: number): boolean {
  return (b >= 0x61 && b <= 0x7a) || (b >= 0x41 && b <= 0x5a) || (b >= 0x30 && b <= 0x39) ||
    (b >= 0x27 && b <= 0x29) || (b >= 0x2b && b <= 0x2f) || b === 0x20 || b === 0x3a ||
    b === 0x3d || b === 0x3f || b === 0x2a || b === 0x26;
}

const utf8Strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Go's `utf8.Valid` decode; `undefined` when the bytes are not valid UTF-8. */
export function decodeUtf8(c: Uint8Array): string | undefined {
  try {
    return utf8Strict.decode(c);
  } catch {
    return undefined;
  }
}

/** T61String as Go 1.25 reads it: each byte a Latin-1 character. */
export function decodeT61(c: Uint8Array): string {
  return latin1(c);
}

/**
 * BMPString as Go 1.25 reads it (crypto/x509 and encoding/asn1 alike): even
 * length, one trailing U+0000 dropped, and no surrogates or noncharacters
 * U+FFFE, U+FFFF, U+FDD0..U+FDEF. `undefined` when invalid.
 */
export function decodeBmp(c: Uint8Array): string | undefined {
  if (c.length % 2 !== 0) return undefined;
  let n = c.length;
  if (n >= 2 && c[n - 1] === 0 && c[n - 2] === 0) n -= 2;
  let s = "";
  for (let i = 0; i < n; i += 2) {
    const p = (c[i]! << 8) | c[i + 1]!;
    if (
      p === 0xfffe || p === 0xffff || (p >= 0xfdd0 && p <= 0xfdef) || (p >= 0xd800 && p <= 0xdfff)
    ) {
      return undefined;
    }
    s += String.fromCharCode(p);
  }
  return s;
}

/** Whether every character is ASCII (Go's `isIA5String` on a string of runes). */
export function isIa5(c: Uint8Array): boolean {
  for (const b of c) if (b > 0x7f) return false;
  return true;
}

/** crypto/x509's `parseASN1String` (Go 1.25): the text, or throws Go's reason. */
function certString(tag: number, c: Uint8Array): string {
  switch (tag) {
    case 20: // T61String
      return decodeT61(c);
    case 19: // PrintableString
      for (let i = 0; i < c.length; i++) {
        if (!isPrintableByte(c[i]!)) throw new Error("invalid PrintableString");
      }
      return latin1(c);
    case 12: { // UTF8String
      const s = decodeUtf8(c);
      if (s === undefined) throw new Error("invalid UTF-8 string");
      return s;
    }
    case 30: { // BMPString
      const s = decodeBmp(c);
      if (s === undefined) throw new Error("invalid BMPString");
      return s;
    }
    case 22: // IA5String
      if (!isIa5(c)) throw new Error("invalid IA5String");
      return latin1(c);
    case 18: // NumericString
      for (const b of c) {
        if (!((b >= 0x30 && b <= 0x39) || b === 0x20)) throw new Error("invalid NumericString");
      }
      return latin1(c);
  }
  throw new Error(`unsupported string type: ${tag}`);
}

/**
 * Reads a certificate's Name element as crypto/x509's `parseName` does
 * (cryptobyte DER, string values only, Go 1.25 string rules). Throws
 * `InputError`s with Go's text.
 */
export function parseCertName(buf: Uint8Array, name: Tlv): Name {
  return parseCertNameAt(buf, name.start, name.end);
}

/**
 * {@link parseCertName} of the Name element at `buf[start:end]`, filled as
 * {@link fillName} fills it (every value is a string here, or the parse fails).
 */
export function parseCertNameAt(buf: Uint8Array, start: number, end: number): Name {
  return readCertName(buf, start, end, BUILD) as Name;
}

/**
 * {@link parseCertNameAt}'s checks alone: throws exactly what it throws and
 * builds nothing (the certificate parser checks a subject at parse time and
 * makes its Name when it is read).
 */
export function checkCertNameAt(buf: Uint8Array, start: number, end: number): void {
  readCertName(buf, start, end, CHECK);
}

/**
 * `formatName(parseCertNameAt(buf, start, end))` without building the Name:
 * the text straight from the DER (same checks and errors).
 */
export function formatCertNameAt(buf: Uint8Array, start: number, end: number): string {
  return readCertName(buf, start, end, TEXT) as string;
}

const CHECK = 0, BUILD = 1, TEXT = 2;

function readCertName(
  buf: Uint8Array,
  start: number,
  end: number,
  mode: typeof CHECK | typeof BUILD | typeof TEXT,
): Name | string | undefined {
  if (!readTagAt(buf, start, end, 0x30)) throw new InputError("x509: invalid RDNSequence");
  const out = mode === BUILD ? parsedName() : undefined;
  const rdns = RDNS;
  // The scratch lists are empty unless a previous read threw.
  if (rdns.length !== 0) rdns.length = 0;
  if (SHOWN.length !== 0) SHOWN.length = 0;
  const texts = TEXTS;
  if (texts.length !== 0) texts.length = 0;
  let p = at.cs;
  const rawEnd = at.end;
  while (p < rawEnd) {
    if (!readTagAt(buf, p, rawEnd, 0x31)) throw new InputError("x509: invalid RDNSequence");
    let q = at.cs;
    const setEnd = at.end;
    p = at.end;
    const shown = SHOWN;
    let text = "";
    let count = 0;
    while (q < setEnd) {
      if (!readTagAt(buf, q, setEnd, 0x30)) {
        throw new InputError("x509: invalid RDNSequence: invalid attribute");
      }
      const atvEnd = at.end;
      const oid = readTagAt(buf, at.cs, atvEnd, 0x06) ? oidAt(buf, at.cs, at.end) : undefined;
      if (oid === undefined) {
        throw new InputError("x509: invalid RDNSequence: invalid attribute type");
      }
      q = atvEnd;
      if (!readAt(buf, at.end, atvEnd)) {
        throw new InputError("x509: invalid RDNSequence: invalid attribute value");
      }
      let value = "";
      try {
        if (mode === CHECK) checkString(at.tag, buf, at.cs, at.end);
        else value = certString(at.tag, buf.subarray(at.cs, at.end));
      } catch (e) {
        throw new InputError(
          `x509: invalid RDNSequence: invalid attribute value: ${(e as Error).message}`,
        );
      }
      if (mode === TEXT) {
        // formatName's text of one attribute.
        text += (count++ === 0 ? "" : "+") + (SHORT[oid] ?? oid) + "=" +
          (value.startsWith("#") || !NEEDS_ESCAPE.test(value) ? value : escapeValue(value));
      } else if (out) {
        shown.push({ oid, value });
        fillAttribute(out, oid, value);
      }
    }
    if (count > 0) texts.push(text);
    if (shown.length > 0) {
      rdns.push(shown.length === 1 ? [shown[0]!] : shown.slice());
      shown.length = 0;
    }
  }
  if (mode === TEXT) {
    // Most specific first, as formatName writes it.
    let s = "";
    for (let i = texts.length - 1; i >= 0; i--) s += (i === texts.length - 1 ? "" : ",") + texts[i];
    if (texts.length !== 0) texts.length = 0;
    return s;
  }
  if (!out) return undefined;
  // Lists built by push keep room to grow; a parsed name is held as long as its
  // certificate, so it keeps exact copies (a fleet holds thousands).
  out.rdns = rdns.slice();
  if (rdns.length !== 0) rdns.length = 0;
  return out;
}

const TEXTS: string[] = [];

/** {@link certString}'s verdict on `buf[start:end]`, without making the text where it can. */
function checkString(tag: number, buf: Uint8Array, start: number, end: number): void {
  switch (tag) {
    case 20: // T61String: any bytes
      return;
    case 19: // PrintableString
      for (let i = start; i < end; i++) {
        if (!isPrintableByte(buf[i]!)) throw new Error("invalid PrintableString");
      }
      return;
    case 22: // IA5String
      for (let i = start; i < end; i++) if (buf[i]! > 0x7f) throw new Error("invalid IA5String");
      return;
  }
  certString(tag, buf.subarray(start, end));
}

const RDNS: { oid: string; value: string }[][] = [];
const SHOWN: { oid: string; value: string }[] = [];
