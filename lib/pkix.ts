/**
 * X.509 building blocks read and written the way Go's `crypto/x509` does, on
 * `@peculiar/x509` and its ASN.1 schemas: distinguished names (`pkix.Name`),
 * subjectAltNames, the key-usage, extended-key-usage, basic-constraints and
 * key-identifier extensions, and a description of a SubjectPublicKeyInfo.
 *
 * @module
 */

import { AsnConvert, OctetString } from "@peculiar/asn1-schema";
import * as asn1X509 from "@peculiar/asn1-x509";
import { Buffer } from "node:buffer";
import { isIPv4, isIPv6 } from "node:net";
import { InputError } from "./errors.ts";

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
  const names = parseAsn(value, asn1X509.SubjectAlternativeName, "SAN extension");
  for (const gn of names) {
    if (gn.rfc822Name !== undefined) out.emails.push(gn.rfc822Name);
    else if (gn.dNSName !== undefined) out.dns.push(gn.dNSName);
    else if (gn.uniformResourceIdentifier !== undefined) {
      out.uris.push(gn.uniformResourceIdentifier);
    } else if (gn.iPAddress !== undefined) {
      const b = parseIp(gn.iPAddress);
      if (!b) throw new InputError(`invalid IP address ${JSON.stringify(gn.iPAddress)} in SAN`);
      out.ips.push(formatIp(b));
    }
  }
  return out;
}

/**
 * The subjectAltName extension for `s` as Go's `marshalSANs` writes it: DNS,
 * email, IP (IPv4 as 4 bytes), URI.
 */
export function sanExtension(s: Sans, critical: boolean): asn1X509.Extension {
  const names: asn1X509.GeneralName[] = [];
  for (const d of s.dns) names.push(new asn1X509.GeneralName({ dNSName: d }));
  for (const e of s.emails) names.push(new asn1X509.GeneralName({ rfc822Name: e }));
  for (const ip of s.ips) {
    const b = parseIp(ip);
    if (!b) throw new InputError(`invalid IP address ${JSON.stringify(ip)}`);
    names.push(new asn1X509.GeneralName({ iPAddress: formatIp(b) }));
  }
  for (const u of s.uris) {
    names.push(new asn1X509.GeneralName({ uniformResourceIdentifier: u }));
  }
  return extension(EXT.subjectAltName, critical, new asn1X509.SubjectAlternativeName(names));
}

/** One extension whose value is the DER of the ASN.1 object `value`. */
export function extension(oid: string, critical: boolean, value: object): asn1X509.Extension {
  return new asn1X509.Extension({
    extnID: oid,
    critical,
    extnValue: new OctetString(AsnConvert.serialize(value)),
  });
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

/** Parses DER with an ASN.1 schema; errors become `InputError`s naming `what`. */
export function parseAsn<T>(der: Uint8Array, type: new () => T, what: string): T {
  try {
    return AsnConvert.parse(der as BufferSource, type);
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(`malformed ${what}`);
  }
}

const asnMemo = new Map<string, unknown>();

/**
 * {@link parseAsn}, remembering results for values seen before: a batch of
 * certificates from one signer repeats its key usages, EKUs, basic
 * constraints and authority key id. Callers must not mutate the result.
 */
function parseAsnMemo<T>(der: Uint8Array, type: new () => T, what: string): T {
  const key = `${what}|${Buffer.from(der).toString("latin1")}`;
  const hit = asnMemo.get(key) as T | undefined;
  if (hit !== undefined) return hit;
  const v = parseAsn(der, type, what);
  if (asnMemo.size >= 256) asnMemo.clear();
  asnMemo.set(key, v);
  return v;
}

/** Lists parsed extensions; Go refuses a certificate with one extension twice. */
export function extensionList(list: readonly asn1X509.Extension[] | undefined): Extension[] {
  const out: Extension[] = [];
  const seen = new Set<string>();
  for (const e of list ?? []) {
    if (seen.has(e.extnID)) throw new InputError(`duplicate extension ${e.extnID}`);
    seen.add(e.extnID);
    out.push({
      oid: e.extnID,
      critical: e.critical,
      value: new Uint8Array(e.extnValue.buffer),
    });
  }
  return out;
}

/** Reads a keyUsage value into Go's bit mask (bit i = KU bit i). */
export function parseKeyUsage(value: Uint8Array): number {
  return parseAsnMemo(value, asn1X509.KeyUsage, "key usage").toNumber();
}

/** Reads an extKeyUsage value: the OIDs, in order. */
export function parseExtKeyUsage(value: Uint8Array): string[] {
  return [...parseAsnMemo(value, asn1X509.ExtendedKeyUsage, "extended key usage")];
}

/** Reads basicConstraints: CA flag and path length (-1 when absent). */
export function parseBasicConstraints(value: Uint8Array): { isCA: boolean; maxPathLen: number } {
  const bc = parseAsnMemo(value, asn1X509.BasicConstraints, "basic constraints");
  return { isCA: bc.cA, maxPathLen: bc.pathLenConstraint ?? -1 };
}

/** Reads a subjectKeyIdentifier value. */
export function parseSubjectKeyId(value: Uint8Array): Uint8Array {
  const ski = parseAsn(value, asn1X509.SubjectKeyIdentifier, "subject key identifier");
  return new Uint8Array(ski.buffer);
}

/** Reads the keyIdentifier of an authorityKeyIdentifier value (empty when absent). */
export function parseAuthorityKeyId(value: Uint8Array): Uint8Array {
  const aki = parseAsnMemo(value, asn1X509.AuthorityKeyIdentifier, "authority key identifier");
  return aki.keyIdentifier ? new Uint8Array(aki.keyIdentifier.buffer) : new Uint8Array();
}

/** Lower-case hex of bytes. */
export function hex(b: Uint8Array): string {
  return Buffer.from(b).toString("hex");
}

/** Hex with `:` between bytes, upper case, like openssl prints serials and key ids. */
export function colonHex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, "0").toUpperCase()).join(":");
}
