/**
 * A minimal DER writer and the few DER value readers the CSR signer needs
 * (OIDs, integers, times, strings). Building certificates by hand keeps the
 * signer fast (no ASN.1 library, no per-object schema walk) and lets it write
 * exactly what Go's `x509.CreateCertificate` writes.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { DerError } from "./der.ts";

/** Concatenates byte arrays. */
export function concat(parts: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** One DER element: tag, definite minimal length, content. */
export function tlv(tag: number, ...content: Uint8Array[]): Uint8Array {
  const body = content.length === 1 ? content[0]! : concat(content);
  const n = body.length;
  let head: number[];
  if (n < 0x80) head = [tag, n];
  else if (n < 0x100) head = [tag, 0x81, n];
  else if (n < 0x10000) head = [tag, 0x82, n >> 8, n & 0xff];
  else if (n < 0x1000000) head = [tag, 0x83, n >> 16, (n >> 8) & 0xff, n & 0xff];
  else head = [tag, 0x84, (n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
  const out = new Uint8Array(head.length + n);
  out.set(head, 0);
  out.set(body, head.length);
  return out;
}

/** SEQUENCE of the given encoded elements. */
export const seq = (...items: Uint8Array[]): Uint8Array => tlv(0x30, ...items);
/** SET of the given encoded elements, in DER order (sorted by encoding). */
export const setOf = (...items: Uint8Array[]): Uint8Array =>
  tlv(0x31, ...[...items].sort((a, b) => Buffer.compare(a, b)));
/** OCTET STRING. */
export const octets = (b: Uint8Array): Uint8Array => tlv(0x04, b);
/** BIT STRING with no unused bits. */
export const bits = (b: Uint8Array): Uint8Array => tlv(0x03, new Uint8Array([0]), b);
/** BOOLEAN. */
export const bool = (v: boolean): Uint8Array => new Uint8Array([0x01, 0x01, v ? 0xff : 0]);
/** NULL. */
export const NULL = new Uint8Array([0x05, 0x00]);

/** INTEGER from unsigned big-endian magnitude bytes (minimal, non-negative). */
export function uint(magnitude: Uint8Array): Uint8Array {
  let i = 0;
  while (i < magnitude.length - 1 && magnitude[i] === 0) i++;
  let m = magnitude.subarray(i);
  if (m.length === 0) m = new Uint8Array([0]);
  if (m[0]! & 0x80) m = concat([new Uint8Array([0]), m]);
  return tlv(0x02, m);
}

/** INTEGER from a small non-negative number. */
export function smallInt(n: number): Uint8Array {
  const b: number[] = [];
  do {
    b.unshift(n & 0xff);
    n = Math.floor(n / 256);
  } while (n > 0);
  return uint(new Uint8Array(b));
}

const oidCache = new Map<string, Uint8Array>();

/** OBJECT IDENTIFIER from dotted text. */
export function oid(dotted: string): Uint8Array {
  const hit = oidCache.get(dotted);
  if (hit) return hit;
  const arcs = dotted.split(".").map(Number);
  const out: number[] = [];
  const push = (v: number) => {
    const tmp = [v & 0x7f];
    v = Math.floor(v / 128);
    while (v > 0) {
      tmp.unshift((v & 0x7f) | 0x80);
      v = Math.floor(v / 128);
    }
    out.push(...tmp);
  };
  push(arcs[0]! * 40 + arcs[1]!);
  for (const a of arcs.slice(2)) push(a);
  const enc = tlv(0x06, new Uint8Array(out));
  oidCache.set(dotted, enc);
  return enc;
}

/** Dotted text of OBJECT IDENTIFIER content bytes. */
export function readOid(content: Uint8Array): string {
  if (content.length === 0) throw new DerError("empty OBJECT IDENTIFIER");
  const arcs: number[] = [];
  let v = 0;
  for (let i = 0; i < content.length; i++) {
    const b = content[i]!;
    v = v * 128 + (b & 0x7f);
    if ((b & 0x80) === 0) {
      if (arcs.length === 0) {
        const first = v < 80 ? Math.floor(v / 40) : 2;
        arcs.push(first, v - first * 40);
      } else arcs.push(v);
      v = 0;
    } else if (i === content.length - 1) throw new DerError("truncated OBJECT IDENTIFIER");
  }
  return arcs.join(".");
}

/** Go's x509 rule: UTCTime for 1950–2049, GeneralizedTime otherwise; whole seconds. */
export function time(date: Date): Uint8Array {
  const iso = date.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const y = date.getUTCFullYear();
  const body = iso.slice(5, 7) + iso.slice(8, 10) + iso.slice(11, 13) + iso.slice(14, 16) +
    iso.slice(17, 19) + "Z";
  if (y >= 1950 && y < 2050) {
    return tlv(0x17, Buffer.from(String(y % 100).padStart(2, "0") + body, "latin1"));
  }
  return tlv(0x18, Buffer.from(String(y).padStart(4, "0") + body, "latin1"));
}

/** Reads a UTCTime (0x17) or GeneralizedTime (0x18) content as a Date. */
export function readTime(tag: number, content: Uint8Array): Date {
  const s = Buffer.from(content).toString("latin1");
  const m = tag === 0x17
    ? /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(s)
    : /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(?:\.\d+)?Z$/.exec(s);
  if (!m) throw new DerError(`invalid time ${JSON.stringify(s)}`);
  let y = Number(m[1]);
  if (tag === 0x17) y += y < 50 ? 2000 : 1900;
  const d = new Date(0);
  d.setUTCFullYear(y, Number(m[2]) - 1, Number(m[3]));
  d.setUTCHours(Number(m[4]), Number(m[5]), Number(m[6]), 0);
  return d;
}

/** Reads a directory-string value (UTF8, Printable, IA5, T61, BMP, Universal) as text. */
export function readString(tag: number, content: Uint8Array): string {
  switch (tag) {
    case 0x0c: // UTF8String
      return Buffer.from(content).toString("utf8");
    case 0x1e: { // BMPString (UTF-16BE)
      const sw = Buffer.from(content);
      const le = Buffer.alloc(sw.length);
      for (let i = 0; i + 1 < sw.length; i += 2) {
        le[i] = sw[i + 1]!;
        le[i + 1] = sw[i]!;
      }
      return le.toString("utf16le");
    }
    default:
      return Buffer.from(content).toString("latin1");
  }
}

/** Go's asn1 `isPrintable` for marshalling (`*` allowed, `&` not). */
function isPrintable(s: string): boolean {
  return /^[A-Za-z0-9 '()+,\-./:=?*]*$/.test(s);
}

/** A string as Go marshals it: PrintableString when it can be, else UTF8String. */
export function goString(s: string): Uint8Array {
  return isPrintable(s) ? tlv(0x13, Buffer.from(s, "latin1")) : tlv(0x0c, Buffer.from(s, "utf8"));
}

/** Lower-case hex of bytes. */
export function hex(b: Uint8Array): string {
  return Buffer.from(b).toString("hex");
}

/** Hex with `:` between bytes, upper case, like openssl prints serials and key ids. */
export function colonHex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, "0").toUpperCase()).join(":");
}
