/**
 * X.509 building blocks read and written the way Go's `crypto/x509` does:
 * distinguished names (`pkix.Name`), subjectAltNames, the key-usage,
 * extended-key-usage, basic-constraints and key-identifier extensions, and a
 * description of a SubjectPublicKeyInfo (key type and size). No ASN.1 library.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { isIPv4, isIPv6 } from "node:net";
import { children, DerError, readTlv, type Tlv, tlvContent } from "./der.ts";
import { bool, octets, oid, readOid, seq, tlv } from "./der_build.ts";

export * from "./pkix_name.ts";
export * from "./pkix_key.ts";

/** subjectAltName entries Go keeps. */
export interface Sans {
  dns: string[];
  emails: string[];
  ips: string[];
  uris: string[];
}

/** Empty {@link Sans}. */
export function emptySans(): Sans {
  return { dns: [], emails: [], ips: [], uris: [] };
}

/** Whether there is no SAN at all. */
export function sansEmpty(s: Sans): boolean {
  return !s.dns.length && !s.emails.length && !s.ips.length && !s.uris.length;
}

/** Text form of a 4- or 16-byte IP address (IPv6 compressed per RFC 5952). */
export function formatIp(b: Uint8Array): string {
  if (b.length === 4) return Array.from(b).join(".");
  if (b.length !== 16) return "?" + Buffer.from(b).toString("hex");
  const isV4Mapped = b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff &&
    b[11] === 0xff;
  if (isV4Mapped) return Array.from(b.subarray(12)).join(".");
  const words: number[] = [];
  for (let i = 0; i < 16; i += 2) words.push((b[i]! << 8) | b[i + 1]!);
  let best = -1, bestLen = 0;
  for (let i = 0; i < 8;) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hexw = (ws: number[]) => ws.map((w) => w.toString(16)).join(":");
  if (best < 0) return hexw(words);
  return hexw(words.slice(0, best)) + "::" + hexw(words.slice(best + bestLen));
}

/** Parses an IPv4 or IPv6 address to 4 or 16 bytes; `undefined` when it is not one. */
export function parseIp(text: string): Uint8Array | undefined {
  if (isIPv4(text)) return new Uint8Array(text.split(".").map(Number));
  if (!isIPv6(text)) return undefined;
  let s = text;
  let tail: number[] = [];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (v4) {
    const p = v4[1]!.split(".").map(Number);
    tail = [(p[0]! << 8) | p[1]!, (p[2]! << 8) | p[3]!];
    s = s.slice(0, -v4[1]!.length) + "0:0";
  }
  const [head = "", rest] = s.split("::");
  const hs = head ? head.split(":") : [];
  const rs = rest === undefined ? [] : rest ? rest.split(":") : [];
  const fill = 8 - hs.length - rs.length;
  const words = [...hs, ...Array(rest === undefined ? 0 : fill).fill("0"), ...rs].map((w) =>
    parseInt(w, 16)
  );
  if (tail.length) words.splice(6, 2, ...tail);
  const out = new Uint8Array(16);
  words.forEach((w, i) => {
    out[2 * i] = w >> 8;
    out[2 * i + 1] = w & 0xff;
  });
  const mapped = out.subarray(0, 10).every((x) => x === 0) && out[10] === 0xff &&
    out[11] === 0xff;
  return mapped ? out.slice(12) : out;
}

/** Parses a subjectAltName extension value as Go's `parseSANExtension` does. */
export function parseSans(value: Uint8Array): Sans {
  const out = emptySans();
  const top = readTlv(value, 0);
  if (top.tag !== 0x30 || top.end !== value.length) throw new DerError("malformed SAN extension");
  for (const gn of children(value, top)) {
    const c = tlvContent(value, gn);
    switch (gn.tag) {
      case 0x81:
        out.emails.push(Buffer.from(c).toString("latin1"));
        break;
      case 0x82:
        out.dns.push(Buffer.from(c).toString("latin1"));
        break;
      case 0x86:
        out.uris.push(Buffer.from(c).toString("latin1"));
        break;
      case 0x87:
        if (c.length !== 4 && c.length !== 16) {
          throw new DerError(`invalid IP address length ${c.length} in SAN`);
        }
        out.ips.push(formatIp(c));
        break;
    }
  }
  return out;
}

/** Encodes SANs as Go's `marshalSANs`: DNS, email, IP (IPv4 as 4 bytes), URI. */
export function encodeSans(s: Sans): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const d of s.dns) parts.push(tlv(0x82, Buffer.from(d, "latin1")));
  for (const e of s.emails) parts.push(tlv(0x81, Buffer.from(e, "latin1")));
  for (const ip of s.ips) {
    const b = parseIp(ip);
    if (!b) throw new DerError(`invalid IP address ${JSON.stringify(ip)}`);
    parts.push(tlv(0x87, b));
  }
  for (const u of s.uris) parts.push(tlv(0x86, Buffer.from(u, "latin1")));
  return seq(...parts);
}

/** Well-known extension OIDs. */
export const EXT = {
  subjectKeyId: "2.5.29.14",
  keyUsage: "2.5.29.15",
  subjectAltName: "2.5.29.17",
  basicConstraints: "2.5.29.19",
  extKeyUsage: "2.5.29.37",
  authorityKeyId: "2.5.29.35",
} as const;

/** One extension as read. */
export interface Extension {
  oid: string;
  critical: boolean;
  value: Uint8Array;
}

/** Parses a SEQUENCE OF Extension. */
export function parseExtensions(buf: Uint8Array, list: Tlv): Extension[] {
  const out: Extension[] = [];
  const seen = new Set<string>();
  for (const ext of children(buf, list)) {
    const parts = children(buf, ext);
    const id = parts[0];
    if (!id || id.tag !== 0x06) throw new DerError("malformed extension");
    const type = readOid(tlvContent(buf, id));
    let critical = false;
    let valTlv = parts[1];
    if (valTlv?.tag === 0x01) {
      critical = buf[valTlv.contentStart] !== 0;
      valTlv = parts[2];
    }
    if (!valTlv || valTlv.tag !== 0x04) throw new DerError(`malformed extension ${type}`);
    if (seen.has(type)) throw new DerError(`duplicate extension ${type}`);
    seen.add(type);
    out.push({ oid: type, critical, value: tlvContent(buf, valTlv) });
  }
  return out;
}

/** Encodes one extension. */
export function encodeExtension(type: string, critical: boolean, value: Uint8Array): Uint8Array {
  return critical ? seq(oid(type), bool(true), octets(value)) : seq(oid(type), octets(value));
}

/** Reads a keyUsage value into Go's bit mask (bit i = KU bit i). */
export function parseKeyUsage(value: Uint8Array): number {
  const t = readTlv(value, 0);
  if (t.tag !== 0x03) throw new DerError("malformed key usage");
  const c = tlvContent(value, t);
  let ku = 0;
  for (let i = 0; i < 9; i++) {
    const byte = c[1 + (i >> 3)];
    if (byte !== undefined && (byte >> (7 - (i & 7))) & 1) ku |= 1 << i;
  }
  return ku;
}

/** Encodes Go's key-usage mask as the extension value (trailing zero bits trimmed). */
export function encodeKeyUsage(ku: number): Uint8Array {
  const rev = (b: number) => {
    let r = 0;
    for (let i = 0; i < 8; i++) if (b & (1 << i)) r |= 0x80 >> i;
    return r;
  };
  const a = [rev(ku & 0xff), rev((ku >> 8) & 0xff)];
  const len = a[1] === 0 ? 1 : 2;
  const bytes = a.slice(0, len);
  const last = bytes[len - 1]!;
  let unused = 0;
  if (last !== 0) { while (((last >> unused) & 1) === 0) unused++; }
  return tlv(0x03, new Uint8Array([unused, ...bytes]));
}

/** Reads an extKeyUsage value: the OIDs, in order. */
export function parseExtKeyUsage(value: Uint8Array): string[] {
  const t = readTlv(value, 0);
  if (t.tag !== 0x30) throw new DerError("malformed extended key usage");
  return children(value, t).map((o) => {
    if (o.tag !== 0x06) throw new DerError("malformed extended key usage");
    return readOid(tlvContent(value, o));
  });
}

/** Reads basicConstraints: CA flag and path length (-1 when absent). */
export function parseBasicConstraints(value: Uint8Array): { isCA: boolean; maxPathLen: number } {
  const t = readTlv(value, 0);
  if (t.tag !== 0x30) throw new DerError("malformed basic constraints");
  let isCA = false, maxPathLen = -1;
  for (const c of children(value, t)) {
    if (c.tag === 0x01) isCA = value[c.contentStart] !== 0;
    if (c.tag === 0x02) {
      maxPathLen = 0;
      for (const b of tlvContent(value, c)) maxPathLen = maxPathLen * 256 + b;
    }
  }
  return { isCA, maxPathLen };
}

/** Reads a subjectKeyIdentifier value. */
export function parseSubjectKeyId(value: Uint8Array): Uint8Array {
  const t = readTlv(value, 0);
  if (t.tag !== 0x04) throw new DerError("malformed subject key identifier");
  return tlvContent(value, t);
}

/** Reads the keyIdentifier of an authorityKeyIdentifier value (empty when absent). */
export function parseAuthorityKeyId(value: Uint8Array): Uint8Array {
  const t = readTlv(value, 0);
  if (t.tag !== 0x30) throw new DerError("malformed authority key identifier");
  const k = children(value, t).find((c) => c.tag === 0x80);
  return k ? tlvContent(value, k) : new Uint8Array();
}

/** Encodes an authorityKeyIdentifier value with just the key id. */
export function encodeAuthorityKeyId(keyId: Uint8Array): Uint8Array {
  return seq(tlv(0x80, keyId));
}
