/**
 * X.509 extensions read the way Go's `crypto/x509` does: IP addresses, subjectAltNames, name
 * constraints, the key-usage, extended-key-usage, basic-constraints and
 * key-identifier extensions. Names (`pkix.Name`) live in `pkix_name.ts`,
 * public keys (SubjectPublicKeyInfo) in `pkix_key.ts`.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { DerCursor, integerValue, latin1, Tag } from "./der.ts";
import { goQuote, goQuoteBytes } from "../go/quote.ts";
import { InputError } from "../base/errors.ts";
import { isIa5 } from "./pkix_name.ts";

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

/**
 * node:net, loaded on first use: only IP text needs it, and loading it pulls
 * dns and streams (a few ms of every `ca hash` start-up under Deno). Through
 * the `process` global, not an import of node:process, which alone costs
 * ~13 ms of a start-up under Deno.
 */
const net = () => process.getBuiltinModule("node:net");

/** Parses an IPv4 or IPv6 address to 4 or 16 bytes; `undefined` when it is not one. */
export function parseIp(text: string): Uint8Array | undefined {
  const { isIPv4, isIPv6 } = net();
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
  return goParseSan(value).sans;
}

/** crypto/x509's `domainToReverseLabels` validity: non-empty labels of bytes 33..126, no trailing dot. */
export function goDomainValid(domain: string): boolean {
  if (domain === "") return true;
  for (const label of domain.split(".")) {
    if (label.length === 0) return false;
    for (let i = 0; i < label.length; i++) {
      const c = label.charCodeAt(i);
      if (c < 33 || c > 126) return false;
    }
  }
  return true;
}

const isHex = (c: string) => /^[0-9a-fA-F]$/.test(c);

/** net/url's `shouldEscape(c, encodeHost)` for an ASCII byte. */
function hostByteNeedsEscape(c: string): boolean {
  if (/^[A-Za-z0-9]$/.test(c)) return false;
  if ("!$&'()*+,;=:[]<>\"-_.~".includes(c)) return false;
  return true;
}

/** net/url's `unescape` error checks (the modes Parse uses); returns the unescaped text or throws the reason. */
function urlUnescape(s: string, mode: "host" | "zone" | "path" | "user" | "fragment"): string {
  let out = "";
  for (let i = 0; i < s.length;) {
    const c = s[i]!;
    if (c === "%") {
      if (i + 2 >= s.length || !isHex(s[i + 1]!) || !isHex(s[i + 2]!)) {
        throw new Error(`invalid URL escape ${goQuote(s.slice(i, i + 3))}`);
      }
      const v = parseInt(s.slice(i + 1, i + 3), 16);
      if (mode === "host" && parseInt(s[i + 1]!, 16) < 8 && s.slice(i, i + 3) !== "%25") {
        throw new Error(`invalid URL escape ${goQuote(s.slice(i, i + 3))}`);
      }
      if (
        mode === "zone" && s.slice(i, i + 3) !== "%25" && v !== 0x20 &&
        hostByteNeedsEscape(String.fromCharCode(v))
      ) {
        throw new Error(`invalid URL escape ${goQuote(s.slice(i, i + 3))}`);
      }
      out += String.fromCharCode(v);
      i += 3;
      continue;
    }
    if ((mode === "host" || mode === "zone") && c.charCodeAt(0) < 0x80 && hostByteNeedsEscape(c)) {
      throw new Error(`invalid character ${goQuote(c)} in host name`);
    }
    out += c;
    i++;
  }
  return out;
}

const validOptionalPort = (p: string) => p === "" || /^:[0-9]*$/.test(p);

function urlParseHost(host: string): string {
  if (host.startsWith("[")) {
    const i = host.lastIndexOf("]");
    if (i < 0) throw new Error("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) {
      throw new Error(`invalid port ${goQuote(colonPort)} after host`);
    }
    const zone = host.slice(0, i).indexOf("%25");
    if (zone >= 0) {
      return urlUnescape(host.slice(0, zone), "host") + urlUnescape(host.slice(zone, i), "zone") +
        urlUnescape(host.slice(i), "host");
    }
  } else {
    const i = host.lastIndexOf(":");
    if (i !== -1 && !validOptionalPort(host.slice(i))) {
      throw new Error(`invalid port ${goQuote(host.slice(i))} after host`);
    }
  }
  return urlUnescape(host, "host");
}

/**
 * net/url's `Parse` as far as x509 needs it: the error (Go's `*url.Error`
 * text) or the URL's host.
 */
export function goUrlParse(raw: string): { host: string } | { error: string } {
  const hash = raw.indexOf("#");
  const u = hash < 0 ? raw : raw.slice(0, hash);
  const frag = hash < 0 ? "" : raw.slice(hash + 1);
  let host = "";
  try {
    // deno-lint-ignore no-control-regex
    if (/[\x00-\x1f\x7f]/.test(u)) throw new Error("net/url: invalid control character in URL");
    let scheme = "";
    let rest = u;
    for (let i = 0; i < u.length; i++) {
      const c = u[i]!;
      if (/[a-zA-Z]/.test(c)) continue;
      if (/[0-9+\-.]/.test(c)) {
        if (i === 0) break;
        continue;
      }
      if (c === ":") {
        if (i === 0) throw new Error("missing protocol scheme");
        scheme = u.slice(0, i);
        rest = u.slice(i + 1);
      }
      break;
    }
    if (rest.endsWith("?") && rest.split("?").length === 2) rest = rest.slice(0, -1);
    else if (rest.includes("?")) rest = rest.slice(0, rest.indexOf("?"));
    if (!rest.startsWith("/")) {
      if (scheme !== "") return { host: "" }; // opaque
      if (rest.split("/")[0]!.includes(":")) {
        throw new Error("first path segment in URL cannot contain colon");
      }
    }
    if (rest.startsWith("//") && (scheme !== "" || !rest.startsWith("///"))) {
      let authority = rest.slice(2);
      rest = "";
      const slash = authority.indexOf("/");
      if (slash >= 0) {
        rest = authority.slice(slash);
        authority = authority.slice(0, slash);
      }
      const at = authority.lastIndexOf("@");
      host = urlParseHost(at < 0 ? authority : authority.slice(at + 1));
      if (at >= 0) {
        const userinfo = authority.slice(0, at);
        if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo)) {
          throw new Error("net/url: invalid userinfo");
        }
        for (const part of userinfo.split(":").slice(0, 2)) urlUnescape(part, "user");
      }
    }
    urlUnescape(rest, "path");
  } catch (e) {
    return { error: `parse ${goQuote(u)}: ${(e as Error).message}` };
  }
  if (hash >= 0 && frag !== "") {
    try {
      urlUnescape(frag, "fragment");
    } catch (e) {
      return { error: `parse ${goQuote(raw)}: ${(e as Error).message}` };
    }
  }
  return { host };
}

/**
 * crypto/x509's `parseSANExtension`: the names Go keeps (DNS, email, IP,
 * URI), the IPs also as raw bytes, and whether any name was found. Throws
 * `InputError` with Go's text.
 */
export function goParseSan(value: Uint8Array): { sans: Sans; ipBytes: Uint8Array[]; any: boolean } {
  const out = emptySans();
  const ipBytes: Uint8Array[] = [];
  const der = DerCursor.all(value).enter(0x30);
  if (!der) throw new InputError("x509: invalid subject alternative names");
  while (!der.empty()) {
    const t = der.readAny();
    if (!t) throw new InputError("x509: invalid subject alternative name");
    const data = der.content(t);
    switch (t.tag ^ 0x80) {
      case 1:
        if (!isIa5(data)) throw new InputError("x509: SAN rfc822Name is malformed");
        out.emails.push(latin1(data));
        break;
      case 2:
        if (!isIa5(data)) throw new InputError("x509: SAN dNSName is malformed");
        out.dns.push(latin1(data));
        break;
      case 6: {
        if (!isIa5(data)) throw new InputError("x509: SAN uniformResourceIdentifier is malformed");
        const s = latin1(data);
        const u = goUrlParse(s);
        if ("error" in u) throw new InputError(`x509: cannot parse URI ${goQuote(s)}: ${u.error}`);
        if (u.host.length > 0 && !goDomainValid(u.host)) {
          throw new InputError(`x509: cannot parse URI ${goQuote(s)}: invalid domain`);
        }
        out.uris.push(s);
        break;
      }
      case 7:
        if (data.length !== 4 && data.length !== 16) {
          throw new InputError(`x509: cannot parse IP address of length ${data.length}`);
        }
        ipBytes.push(data.slice());
        out.ips.push(formatIp(data));
        break;
    }
  }
  return { sans: out, ipBytes, any: !sansEmpty(out) };
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

/** Reads a keyUsage value into Go's bit mask (bit i = KU bit i), as `parseKeyUsageExtension`. */
export function parseKeyUsage(value: Uint8Array): number {
  const bits = DerCursor.all(value).readBitString();
  if (!bits) throw new InputError("x509: invalid key usage");
  let usage = 0;
  for (let i = 0; i < 9 && i < bits.bitLength; i++) {
    if ((bits.bytes[i >> 3]! >> (7 - (i & 7))) & 1) usage |= 1 << i;
  }
  return usage;
}

/** Reads an extKeyUsage value: the OIDs, in order (known and unknown). */
export function parseExtKeyUsage(value: Uint8Array): string[] {
  const der = DerCursor.all(value).enter(0x30);
  if (!der) throw new InputError("x509: invalid extended key usages");
  const out: string[] = [];
  while (!der.empty()) {
    const oid = der.readOid();
    if (oid === undefined) throw new InputError("x509: invalid extended key usages");
    out.push(oid);
  }
  return out;
}

/**
 * Reads basicConstraints as Go 1.25 does: CA flag and path length (-1 when
 * absent); a negative or oversized pathLen is `x509: invalid basic constraints`.
 */
export function parseBasicConstraints(value: Uint8Array): { isCA: boolean; maxPathLen: number } {
  const bad = () => new InputError("x509: invalid basic constraints");
  const der = DerCursor.all(value).enter(0x30);
  if (!der) throw bad();
  let isCA = false;
  if (der.peek(0x01)) {
    const b = der.readBoolean();
    if (b === undefined) throw bad();
    isCA = b;
  }
  let maxPathLen = -1;
  if (der.peek(Tag.INTEGER)) {
    const c = der.readInteger();
    // Go 1.25 reads a uint no larger than MaxInt64.
    if (!c || (c[0]! & 0x80) !== 0 || c.length > 9 || (c.length === 9 && c[0] !== 0)) throw bad();
    const v = integerValue(c);
    if (v > 0x7fffffffffffffffn) throw bad();
    maxPathLen = Number(v);
  }
  return { isCA, maxPathLen };
}

/** Reads a subjectKeyIdentifier value. */
export function parseSubjectKeyId(value: Uint8Array): Uint8Array {
  const t = DerCursor.all(value).read(Tag.OCTET_STRING);
  if (!t) throw new InputError("x509: invalid subject key identifier");
  return value.slice(t.contentStart, t.end);
}

/** Reads the keyIdentifier of an authorityKeyIdentifier value (empty when absent). */
export function parseAuthorityKeyId(value: Uint8Array): Uint8Array {
  const akid = DerCursor.all(value).enter(0x30);
  if (!akid) throw new InputError("x509: invalid authority key identifier");
  if (akid.peek(0x80)) {
    const t = akid.read(0x80);
    if (!t) throw new InputError("x509: invalid authority key identifier");
    return value.slice(t.contentStart, t.end);
  }
  return new Uint8Array();
}

/** Lower-case hex of bytes. */
export function hex(b: Uint8Array): string {
  return Buffer.from(b).toString("hex");
}

/** Hex with `:` between bytes, upper case, like openssl prints serials and key ids. */
export function colonHex(b: Uint8Array): string {
  let out = "";
  for (let i = 0; i < b.length; i++) out += (i ? ":" : "") + HEX_BYTES[b[i]!];
  return out;
}

const HEX_BYTES = Array.from(
  { length: 256 },
  (_, x) => x.toString(16).padStart(2, "0").toUpperCase(),
);

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

/** crypto/x509's `parseRFC2821Mailbox` success. */
export function goMailboxValid(s: string): boolean {
  if (s.length === 0) return false;
  let i = 0;
  const local: number[] = [];
  if (s[0] === '"') {
    i = 1;
    for (;;) {
      if (i >= s.length) return false;
      const c = s.charCodeAt(i++);
      if (c === 0x22) break;
      if (c === 0x5c) {
        if (i >= s.length) return false;
        const d = s.charCodeAt(i);
        if (d === 11 || d === 12 || (d >= 1 && d <= 9) || (d >= 14 && d <= 127)) {
          local.push(d);
          i++;
        } else return false;
      } else if (
        c === 11 || c === 12 || c === 32 || c === 33 || c === 127 || (c >= 1 && c <= 8) ||
        (c >= 14 && c <= 31) || (c >= 35 && c <= 91) || (c >= 93 && c <= 126)
      ) local.push(c);
      else return false;
    }
  } else {
    while (i < s.length) {
      const c = s[i]!;
      if (c === "\\") {
        i++;
        if (i >= s.length) return false;
        local.push(s.charCodeAt(i));
        i++;
      } else if (/[0-9a-zA-Z!#$%&'*+\-/=?^_`{|}~.]/.test(c)) {
        local.push(s.charCodeAt(i));
        i++;
      } else break;
    }
    if (local.length === 0) return false;
    const text = String.fromCharCode(...local);
    if (text.startsWith(".") || text.endsWith(".") || text.includes("..")) return false;
  }
  if (i >= s.length || s[i] !== "@") return false;
  return goDomainValid(s.slice(i + 1));
}

function validIpMask(mask: Uint8Array): boolean {
  let seenZero = false;
  for (const b of mask) {
    if (seenZero) {
      if (b !== 0) return false;
      continue;
    }
    if ([0x00, 0x80, 0xc0, 0xe0, 0xf0, 0xf8, 0xfc, 0xfe].includes(b)) seenZero = true;
    else if (b !== 0xff) return false;
  }
  return true;
}

/** Go's `net.ParseIP` success, for URI constraints. */
function goIsIp(s: string): boolean {
  return !s.includes("%") && net().isIP(s) !== 0;
}

/**
 * crypto/x509's `parseNameConstraintsExtension`: the constraints and whether
 * some constraint type was unsupported (which makes a critical extension
 * unhandled). Throws `InputError` with Go's text.
 */
export function goParseNameConstraints(
  value: Uint8Array,
  critical: boolean,
): { nc: NameConstraints; unhandled: boolean } {
  const invalid = () => new InputError("x509: invalid NameConstraints extension");
  const outer = DerCursor.all(value);
  const top = outer.enter(0x30);
  if (!top || !outer.empty()) throw invalid();
  const permitted = top.readOptional(0xa0);
  const excluded = top.readOptional(0xa1);
  if (permitted === undefined || excluded === undefined || !top.empty()) throw invalid();
  const len = (t: typeof permitted) => t ? t.end - t.contentStart : 0;
  if ((!permitted && !excluded) || (len(permitted) === 0 && len(excluded) === 0)) {
    throw new InputError("x509: empty name constraints extension");
  }
  let unhandled = false;
  const values = (t: typeof permitted) => {
    const dns: string[] = [], emails: string[] = [], uris: string[] = [];
    const ips: { ip: Uint8Array; mask: Uint8Array }[] = [];
    if (!t) return { dns, emails, uris, ips };
    const subtrees = new DerCursor(value, t.contentStart, t.end);
    while (!subtrees.empty()) {
      const seq = subtrees.enter(0x30);
      const v = seq?.readAny();
      if (!seq || !v) throw invalid();
      const data = seq.content(v);
      const text = latin1(data);
      const ia5 = () => {
        if (!isIa5(data)) {
          throw new InputError(
            `x509: invalid constraint value: x509: ${
              goQuoteBytes(data)
            } cannot be encoded as an IA5String`,
          );
        }
      };
      const trimDot = (d: string) => d.startsWith(".") ? d.slice(1) : d;
      switch (v.tag) {
        case 0x82:
          ia5();
          if (!goDomainValid(trimDot(text))) {
            throw new InputError(`x509: failed to parse dnsName constraint ${goQuote(text)}`);
          }
          dns.push(text);
          break;
        case 0x87:
          if (data.length !== 8 && data.length !== 32) {
            throw new InputError(`x509: IP constraint contained value of length ${data.length}`);
          }
          {
            const half = data.length / 2;
            const mask = data.slice(half);
            if (!validIpMask(mask)) {
              throw new InputError(
                `x509: IP constraint contained invalid mask ${Buffer.from(mask).toString("hex")}`,
              );
            }
            ips.push({ ip: data.slice(0, half), mask });
          }
          break;
        case 0x81:
          ia5();
          if (text.includes("@")) {
            if (!goMailboxValid(text)) {
              throw new InputError(`x509: failed to parse rfc822Name constraint ${goQuote(text)}`);
            }
          } else if (!goDomainValid(trimDot(text))) {
            throw new InputError(`x509: failed to parse rfc822Name constraint ${goQuote(text)}`);
          }
          emails.push(text);
          break;
        case 0x86:
          ia5();
          if (goIsIp(text)) {
            throw new InputError(
              `x509: failed to parse URI constraint ${goQuote(text)}: cannot be IP address`,
            );
          }
          if (!goDomainValid(trimDot(text))) {
            throw new InputError(`x509: failed to parse URI constraint ${goQuote(text)}`);
          }
          uris.push(text);
          break;
        default:
          unhandled = true;
      }
    }
    return { dns, emails, uris, ips };
  };
  const p = values(permitted);
  const e = values(excluded);
  return {
    nc: {
      critical,
      permittedDns: p.dns,
      excludedDns: e.dns,
      permittedEmail: p.emails,
      excludedEmail: e.emails,
      permittedUri: p.uris,
      excludedUri: e.uris,
      permittedIp: p.ips,
      excludedIp: e.ips,
    },
    unhandled,
  };
}
