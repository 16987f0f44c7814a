/**
 * A port of Go 1.25's `(*x509.Certificate).Verify` (crypto/x509/verify.go,
 * with the ≥ 1.25.5 security fixes): chain building over every candidate
 * parent (raw subject = raw issuer, AKID/SKID ordering, roots before
 * intermediates, loop check, 100-signature budget), `isValid` on every
 * certificate (unhandled critical extensions, validity window, name
 * constraints, CA flag, path length), `CheckSignatureFrom` with SHA-1 refused,
 * EKU nesting and `VerifyHostname` — returning Go's exact `Error()` text.
 *
 * Not ported: certificate-policy validation (RFC 5280 §6.1 policy graph, new
 * in Go 1.24). With no requested policies it only refuses chains whose CAs
 * carry policy constraints that require an explicit policy none of them
 * asserts; joinkit accepts those chains.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { type Cert, goCertName } from "./cert_info.ts";
import { readTlv } from "./der.ts";
import { formatRfc3339 } from "../go/time.ts";
import { goQuote, goQuoteBytes } from "../go/quote.ts";
import { EKUS } from "./usages.ts";
import { checkSignature, ERR_UNSUPPORTED_ALGORITHM } from "./x509_signature.ts";

/** Go's `VerifyOptions` (Roots and Intermediates as lists). */
export interface VerifyOptions {
  roots: readonly Cert[];
  intermediates: readonly Cert[];
  currentTime: Date;
  /** Go `ExtKeyUsage` names ("ServerAuth", "ClientAuth", "Any", …); empty/absent = ServerAuth. */
  keyUsages?: readonly string[] | undefined;
  dnsName?: string | undefined;
  /** `MaxConstraintComparisions`; 0/absent = 250000. */
  maxConstraintComparisons?: number | undefined;
}

/** Verified chains (leaf first, root last), or Go's error text. */
export type VerifyResult = { ok: true; chains: Cert[][] } | { ok: false; error: string };

const LEAF = 0;
const INTERMEDIATE = 1;
const ROOT = 2;

/** `maxChainSignatureChecks`. */
const MAX_CHAIN_SIGNATURE_CHECKS = 100;

const KU_CERT_SIGN = 1 << 5;

// Error texts (CertificateInvalidError.Error() per reason, and friends).
const ERR = {
  unhandledCritical: "x509: unhandled critical extension",
  nameMismatch: "x509: issuer name does not match subject from issuing certificate",
  expired: "x509: certificate has expired or is not yet valid: ",
  notAuthorizedForName:
    "x509: a root or intermediate certificate is not authorized to sign for this name: ",
  notAuthorizedToSign: "x509: certificate is not authorized to sign other certificates",
  tooManyIntermediates: "x509: too many intermediates for path length constraint",
  incompatibleUsage: "x509: certificate specifies an incompatible key usage",
  /** TooManyConstraints has no case in Error(). */
  tooManyConstraints: "x509: unknown error",
  constraintViolation:
    "x509: invalid signature: parent certificate cannot sign this kind of certificate",
  sigLimit: "x509: signature check attempts limit reached while verifying certificate chain",
  unknownAuthority: "x509: certificate signed by unknown authority",
} as const;

const sameBytes = (a: Uint8Array | undefined, b: Uint8Array | undefined): boolean => {
  const x = a ?? EMPTY;
  const y = b ?? EMPTY;
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
};
const EMPTY = new Uint8Array();

// ---------------------------------------------------------------------------
// Go formatting helpers

/** Go's `%q` of a byte string held as a binary string (one char per byte). */
const goQuoteBinary = (s: string): string => goQuoteBytes(Buffer.from(s, "latin1"));

const bytesToBinary = (b: Uint8Array): string => {
  let s = "";
  for (const x of b) s += String.fromCharCode(x);
  return s;
};

// ---------------------------------------------------------------------------
// IP addresses: net/netip parsing and net.IP.String()

const IPV4_IN_6_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

function parseIPv4Fields(s: string, out: number[]): boolean {
  let val = 0, pos = 0, digLen = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) {
      if (digLen === 1 && val === 0) return false; // leading zero
      val = val * 10 + (c - 0x30);
      digLen++;
      if (val > 255) return false;
    } else if (c === 0x2e) {
      if (i === 0 || i === s.length - 1 || s[i - 1] === ".") return false;
      if (pos === 3) return false;
      out.push(val);
      pos++;
      val = 0;
      digLen = 0;
    } else return false;
  }
  if (pos < 3) return false;
  out.push(val);
  return true;
}

function parseIPv6(input: string): { ip: Uint8Array; zone: string } | undefined {
  let s = input;
  let zone = "";
  const pct = s.indexOf("%");
  if (pct !== -1) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (zone === "") return undefined;
  }
  const ip = new Uint8Array(16);
  let ellipsis = -1;
  if (s.length >= 2 && s[0] === ":" && s[1] === ":") {
    ellipsis = 0;
    s = s.slice(2);
    if (s.length === 0) return { ip, zone };
  }
  let i = 0;
  while (i < 16) {
    let off = 0, acc = 0;
    for (; off < s.length; off++) {
      const c = s.charCodeAt(off);
      let v: number;
      if (c >= 0x30 && c <= 0x39) v = c - 0x30;
      else if (c >= 0x61 && c <= 0x66) v = c - 0x61 + 10;
      else if (c >= 0x41 && c <= 0x46) v = c - 0x41 + 10;
      else break;
      if (off > 3) return undefined;
      acc = acc * 16 + v;
    }
    if (off === 0) return undefined;
    if (off < s.length && s[off] === ".") {
      if (ellipsis < 0 && i !== 12) return undefined;
      if (i + 4 > 16) return undefined;
      const f: number[] = [];
      if (!parseIPv4Fields(s, f)) return undefined;
      ip.set(f, i);
      s = "";
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s.length === 0) break;
    if (s[0] !== ":" || s.length === 1) return undefined;
    s = s.slice(1);
    if (s[0] === ":") {
      if (ellipsis >= 0) return undefined;
      ellipsis = i;
      s = s.slice(1);
      if (s.length === 0) break;
    }
  }
  if (s.length !== 0) return undefined;
  if (i < 16) {
    if (ellipsis < 0) return undefined;
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j]!;
    ip.fill(0, ellipsis, ellipsis + n);
  } else if (ellipsis >= 0) return undefined;
  return { ip, zone };
}

/** `netip.ParseAddr`: 4 or 16 bytes and the zone, or undefined. */
function netipParseAddr(s: string): { ip: Uint8Array; zone: string } | undefined {
  for (let i = 0; i < s.length; i++) {
    if (s[i] === ".") {
      const f: number[] = [];
      return parseIPv4Fields(s, f) ? { ip: Uint8Array.from(f), zone: "" } : undefined;
    }
    if (s[i] === ":") return parseIPv6(s);
    if (s[i] === "%") return undefined;
  }
  return undefined;
}

/** `net.ParseIP`: the 16-byte form, or undefined (zones refused). */
export function goParseIP(s: string): Uint8Array | undefined {
  const a = netipParseAddr(s);
  if (!a || a.zone !== "") return undefined;
  if (a.ip.length === 4) return Uint8Array.from([...IPV4_IN_6_PREFIX, ...a.ip]);
  return a.ip;
}

function to4(ip: Uint8Array): Uint8Array | undefined {
  if (ip.length === 4) return ip;
  if (ip.length === 16 && IPV4_IN_6_PREFIX.every((b, i) => ip[i] === b)) return ip.subarray(12);
  return undefined;
}

/** `net.IP.Equal`. */
function ipEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length === b.length) return sameBytes(a, b);
  const a4 = to4(a), b4 = to4(b);
  if ((a.length === 4) !== (b.length === 4) && a4 && b4) return sameBytes(a4, b4);
  return false;
}

/** `net.IP.String()`. */
export function goIpString(ip: Uint8Array): string {
  if (ip.length === 0) return "<nil>";
  if (ip.length !== 4 && ip.length !== 16) {
    return "?" + [...ip].map((b) => b.toString(16).padStart(2, "0")).join("");
  }
  const v4 = to4(ip);
  if (v4) return [...v4].join(".");
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((ip[i]! << 8) | ip[i + 1]!);
  let zeroStart = -1, zeroEnd = -1;
  for (let i = 0; i < 8; i++) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i >= 2 && j - i > zeroEnd - zeroStart) {
      zeroStart = i;
      zeroEnd = j;
    }
  }
  let out = "";
  for (let i = 0; i < 8; i++) {
    if (i === zeroStart) {
      out += "::";
      i = zeroEnd;
      if (i >= 8) break;
    } else if (i > 0) out += ":";
    out += groups[i]!.toString(16);
  }
  return out;
}

/** `(*net.IPNet).String()`: CIDR when the mask is canonical. */
function goIpNetString(ip: Uint8Array, mask: Uint8Array): string {
  let nn = to4(ip);
  if (!nn) {
    if (ip.length !== 16) return "<nil>";
    nn = ip;
  }
  let m = mask;
  if (m.length === 4) {
    if (nn.length !== 4) return "<nil>";
  } else if (m.length === 16) {
    if (nn.length === 4) m = m.subarray(12);
  } else return "<nil>";
  // simpleMaskLength
  let ones = 0;
  let canonical = true;
  for (let i = 0; i < m.length; i++) {
    const v = m[i]!;
    if (v === 0xff) {
      ones += 8;
      continue;
    }
    let x = v;
    while (x & 0x80) {
      ones++;
      x = (x << 1) & 0xff;
    }
    if (x !== 0) canonical = false;
    for (const rest of m.subarray(i + 1)) if (rest !== 0) canonical = false;
    break;
  }
  const ipText = goIpString(nn);
  if (!canonical) {
    return ipText + "/" + [...m].map((b) => b.toString(16).padStart(2, "0")).join("");
  }
  return `${ipText}/${ones}`;
}

// ---------------------------------------------------------------------------
// net/url: enough of url.Parse and (*URL).String for matchURIConstraint

const enum Enc {
  Path = 1,
  PathSegment,
  Host,
  Zone,
  UserPassword,
  QueryComponent,
  Fragment,
}

function shouldEscape(c: number, mode: Enc): boolean {
  if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39)) {
    return false;
  }
  const ch = String.fromCharCode(c);
  if ((mode === Enc.Host || mode === Enc.Zone) && "!$&'()*+,;=:[]<>\"".includes(ch)) return false;
  if ("-_.~".includes(ch)) return false;
  if ("$&+,/:;=?@".includes(ch)) {
    switch (mode) {
      case Enc.Path:
        return ch === "?";
      case Enc.PathSegment:
        return ch === "/" || ch === ";" || ch === "," || ch === "?";
      case Enc.UserPassword:
        return ch === "@" || ch === "/" || ch === "?" || ch === ":";
      case Enc.QueryComponent:
        return true;
      case Enc.Fragment:
        return false;
    }
  }
  if (mode === Enc.Fragment && "!()*".includes(ch)) return false;
  return true;
}

const isHex = (c: string | undefined) => c !== undefined && /^[0-9a-fA-F]$/.test(c);

class UrlError {
  constructor(readonly message: string) {}
}

function unescape(s: string, mode: Enc): string {
  let n = 0;
  let hasPlus = false;
  for (let i = 0; i < s.length;) {
    const c = s[i]!;
    if (c === "%") {
      n++;
      if (i + 2 >= s.length || !isHex(s[i + 1]) || !isHex(s[i + 2])) {
        throw new UrlError(`invalid URL escape ${goQuoteBinary(s.slice(i, i + 3))}`);
      }
      const hi = parseInt(s[i + 1]!, 16);
      if (mode === Enc.Host && hi < 8 && s.slice(i, i + 3) !== "%25") {
        throw new UrlError(`invalid URL escape ${goQuoteBinary(s.slice(i, i + 3))}`);
      }
      if (mode === Enc.Zone) {
        const v = parseInt(s.slice(i + 1, i + 3), 16);
        if (s.slice(i, i + 3) !== "%25" && v !== 0x20 && shouldEscape(v, Enc.Host)) {
          throw new UrlError(`invalid URL escape ${goQuoteBinary(s.slice(i, i + 3))}`);
        }
      }
      i += 3;
    } else if (c === "+") {
      hasPlus = mode === Enc.QueryComponent;
      i++;
    } else {
      const code = s.charCodeAt(i);
      if ((mode === Enc.Host || mode === Enc.Zone) && code < 0x80 && shouldEscape(code, mode)) {
        throw new UrlError(`invalid character ${goQuoteBinary(c)} in host name`);
      }
      i++;
    }
  }
  if (n === 0 && !hasPlus) return s;
  let t = "";
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "%") {
      t += String.fromCharCode(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (c === "+") t += mode === Enc.QueryComponent ? " " : "+";
    else t += c;
  }
  return t;
}

function escape(s: string, mode: Enc): string {
  let t = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x20 && mode === Enc.QueryComponent) t += "+";
    else if (shouldEscape(c, mode)) t += "%" + c.toString(16).toUpperCase().padStart(2, "0");
    else t += s[i];
  }
  return t;
}

function validEncoded(s: string, mode: Enc): boolean {
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if ("!$&'()*+,;=:@[]%".includes(ch)) continue;
    if (shouldEscape(s.charCodeAt(i), mode)) return false;
  }
  return true;
}

function validOptionalPort(port: string): boolean {
  if (port === "") return true;
  if (port[0] !== ":") return false;
  return /^[0-9]*$/.test(port.slice(1));
}

function validUserinfo(s: string): boolean {
  return /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(s);
}

/** A parsed URL (byte strings). */
interface GoUrl {
  scheme: string;
  opaque: string;
  user: { username: string; password: string; passwordSet: boolean } | undefined;
  host: string;
  path: string;
  rawPath: string;
  omitHost: boolean;
  forceQuery: boolean;
  rawQuery: string;
  fragment: string;
  rawFragment: string;
}

function parseHost(host: string): string {
  if (host.startsWith("[")) {
    const i = host.lastIndexOf("]");
    if (i < 0) throw new UrlError("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) {
      throw new UrlError(`invalid port ${goQuoteBinary(colonPort)} after host`);
    }
    const zone = host.slice(0, i).indexOf("%25");
    let unescaped: string;
    if (zone >= 0) {
      unescaped = unescape(host.slice(0, zone), Enc.Host) +
        unescape(host.slice(zone, i), Enc.Zone) + unescape(host.slice(i), Enc.Host);
    } else unescaped = unescape(host, Enc.Host);
    // Go ≥ 1.25.2 (CVE-2025-47912): only an IPv6 address may be bracketed.
    const inner = unescaped.slice(1, unescaped.lastIndexOf("]"));
    const addr = netipParseAddr(inner);
    if (!addr) throw new UrlError("invalid host");
    if (addr.ip.length === 4) throw new UrlError("invalid IP-literal");
    return unescaped;
  }
  const i = host.lastIndexOf(":");
  if (i !== -1) {
    const colonPort = host.slice(i);
    if (!validOptionalPort(colonPort)) {
      throw new UrlError(`invalid port ${goQuoteBinary(colonPort)} after host`);
    }
  }
  return unescape(host, Enc.Host);
}

/** `url.Parse`; throws UrlError. */
function urlParse(raw: string): GoUrl {
  const hash = raw.indexOf("#");
  const u0 = hash < 0 ? raw : raw.slice(0, hash);
  const frag = hash < 0 ? "" : raw.slice(hash + 1);
  if ([...u0].some((ch) => ch < " " || ch === "\x7f")) {
    throw new UrlError("net/url: invalid control character in URL");
  }
  const url: GoUrl = {
    scheme: "",
    opaque: "",
    user: undefined,
    host: "",
    path: "",
    rawPath: "",
    omitHost: false,
    forceQuery: false,
    rawQuery: "",
    fragment: "",
    rawFragment: "",
  };
  const finish = () => {
    if (frag !== "") {
      url.fragment = unescape(frag, Enc.Fragment);
      url.rawFragment = escape(url.fragment, Enc.Fragment) === frag ? "" : frag;
    }
    return url;
  };
  if (u0 === "*") {
    url.path = "*";
    return finish();
  }
  let rest = u0;
  for (let i = 0; i < u0.length; i++) {
    const c = u0[i]!;
    if (/[a-zA-Z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) break;
      continue;
    }
    if (c === ":") {
      if (i === 0) throw new UrlError("missing protocol scheme");
      url.scheme = u0.slice(0, i).toLowerCase();
      rest = u0.slice(i + 1);
    }
    break;
  }
  if (rest.endsWith("?") && rest.split("?").length === 2) {
    url.forceQuery = true;
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf("?");
    if (q >= 0) {
      url.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith("/")) {
    if (url.scheme !== "") {
      url.opaque = rest;
      return finish();
    }
    const slash = rest.indexOf("/");
    if ((slash < 0 ? rest : rest.slice(0, slash)).includes(":")) {
      throw new UrlError("first path segment in URL cannot contain colon");
    }
  }
  if ((url.scheme !== "" || !rest.startsWith("///")) && rest.startsWith("//")) {
    let authority = rest.slice(2);
    rest = "";
    const slash = authority.indexOf("/");
    if (slash >= 0) {
      rest = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    const at = authority.lastIndexOf("@");
    url.host = parseHost(at < 0 ? authority : authority.slice(at + 1));
    if (at >= 0) {
      const userinfo = authority.slice(0, at);
      if (!validUserinfo(userinfo)) throw new UrlError("net/url: invalid userinfo");
      const colon = userinfo.indexOf(":");
      url.user = colon < 0
        ? { username: unescape(userinfo, Enc.UserPassword), password: "", passwordSet: false }
        : {
          username: unescape(userinfo.slice(0, colon), Enc.UserPassword),
          password: unescape(userinfo.slice(colon + 1), Enc.UserPassword),
          passwordSet: true,
        };
    }
  } else if (url.scheme !== "" && rest.startsWith("/")) url.omitHost = true;
  url.path = unescape(rest, Enc.Path);
  url.rawPath = escape(url.path, Enc.Path) === rest ? "" : rest;
  return finish();
}

/** `(*url.URL).String()`. */
function urlString(u: GoUrl): string {
  let buf = "";
  if (u.scheme !== "") buf += u.scheme + ":";
  if (u.opaque !== "") buf += u.opaque;
  else {
    if (u.scheme !== "" || u.host !== "" || u.user) {
      if (!(u.omitHost && u.host === "" && !u.user)) {
        if (u.host !== "" || u.path !== "" || u.user) buf += "//";
        if (u.user) {
          buf += escape(u.user.username, Enc.UserPassword) +
            (u.user.passwordSet ? ":" + escape(u.user.password, Enc.UserPassword) : "") + "@";
        }
        if (u.host !== "") buf += escape(u.host, Enc.Host);
      }
    }
    let path: string;
    if (
      u.rawPath !== "" && validEncoded(u.rawPath, Enc.Path) &&
      tryUnescape(u.rawPath, Enc.Path) === u.path
    ) path = u.rawPath;
    else if (u.path === "*") path = "*";
    else path = escape(u.path, Enc.Path);
    if (path !== "" && path[0] !== "/" && u.host !== "") buf += "/";
    if (buf === "") {
      const slash = path.indexOf("/");
      if ((slash < 0 ? path : path.slice(0, slash)).includes(":")) buf += "../";
    }
    buf += path;
  }
  if (u.forceQuery || u.rawQuery !== "") buf += "?" + u.rawQuery;
  if (u.fragment !== "") {
    const f = u.rawFragment !== "" && validEncoded(u.rawFragment, Enc.Fragment) &&
        tryUnescape(u.rawFragment, Enc.Fragment) === u.fragment
      ? u.rawFragment
      : escape(u.fragment, Enc.Fragment);
    buf += "#" + f;
  }
  return buf;
}

function tryUnescape(s: string, mode: Enc): string | undefined {
  try {
    return unescape(s, mode);
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------
// Name constraints (§1.6)

/** `domainToReverseLabels` (Go 1.25: a leading empty label is invalid too). */
function domainToReverseLabels(domain: string): string[] | undefined {
  const labels = domain === "" ? [] : domain.split(".").reverse();
  if (labels.length > 0 && labels[0] === "") return undefined;
  for (const label of labels) {
    if (label === "") return undefined;
    for (let i = 0; i < label.length; i++) {
      const c = label.charCodeAt(i);
      if (c < 33 || c > 126) return undefined;
    }
  }
  return labels;
}

/** `domainNameValid(s, constraint=false)` as of Go 1.25.3 (the #75835 checks stay off). */
function domainNameValid(s: string): boolean {
  if (s.length === 0) return true;
  if (s[s.length - 1] === ".") return false;
  let lastDot = -1;
  for (let i = 0; i <= s.length; i++) {
    if (i < s.length) {
      const c = s.charCodeAt(i);
      if (c < 33 || c > 126) return false;
    }
    if (i === s.length || s[i] === ".") {
      if (i - (lastDot + 1) === 0) return false;
      lastDot = i;
    }
  }
  return true;
}

interface Mailbox {
  local: string;
  domain: string;
}

/** `parseRFC2821Mailbox`. */
function parseRFC2821Mailbox(s: string): Mailbox | undefined {
  if (s.length === 0) return undefined;
  let inp = s;
  let local = "";
  const code = (i: number) => inp.charCodeAt(i);
  if (inp[0] === '"') {
    inp = inp.slice(1);
    for (;;) {
      if (inp.length === 0) return undefined;
      const c = code(0);
      inp = inp.slice(1);
      if (c === 0x22) break;
      if (c === 0x5c) {
        if (inp.length === 0) return undefined;
        const d = code(0);
        if (d === 11 || d === 12 || (d >= 1 && d <= 9) || (d >= 14 && d <= 127)) {
          local += inp[0];
          inp = inp.slice(1);
        } else return undefined;
      } else if (
        c === 11 || c === 12 || c === 32 || c === 33 || c === 127 || (c >= 1 && c <= 8) ||
        (c >= 14 && c <= 31) || (c >= 35 && c <= 91) || (c >= 93 && c <= 126)
      ) {
        local += String.fromCharCode(c);
      } else return undefined;
    }
  } else {
    while (inp.length > 0) {
      let c = inp[0]!;
      if (c === "\\") {
        inp = inp.slice(1);
        if (inp.length === 0) return undefined;
        c = inp[0]!;
        // Go falls through and appends the escaped byte whatever it is.
        local += c;
        inp = inp.slice(1);
        continue;
      }
      if (/[0-9a-zA-Z!#$%&'*+\-/=?^_`{|}~.]/.test(c)) {
        local += c;
        inp = inp.slice(1);
      } else break;
    }
    if (local.length === 0) return undefined;
    if (local[0] === "." || local[local.length - 1] === "." || local.includes("..")) {
      return undefined;
    }
  }
  if (inp.length === 0 || inp[0] !== "@") return undefined;
  inp = inp.slice(1);
  if (!domainToReverseLabels(inp)) return undefined;
  return { local, domain: inp };
}

type Match = { ok: boolean; err?: string };

const eqFold = (a: string, b: string) =>
  a.length === b.length && a.replace(/[A-Z]/g, (c) => c.toLowerCase()) ===
    b.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** `matchDomainConstraint` with the ≥ 1.25.5 wildcard rule for excluded constraints. */
export function matchDomainConstraint(
  domain: string,
  constraint: string,
  excluded: boolean,
): Match {
  if (constraint.length === 0) return { ok: true };
  let domainLabels = domainToReverseLabels(domain);
  if (!domainLabels) {
    return { ok: false, err: `x509: internal error: cannot parse domain ${goQuoteBinary(domain)}` };
  }
  const wildcardDomain = domain.length > 0 && domain[0] === "*";
  let mustHaveSubdomains = false;
  let cons = constraint;
  if (cons[0] === ".") {
    mustHaveSubdomains = true;
    cons = cons.slice(1);
  }
  let constraintLabels = domainToReverseLabels(cons);
  if (!constraintLabels) {
    return { ok: false, err: `x509: internal error: cannot parse domain ${goQuoteBinary(cons)}` };
  }
  if (
    domainLabels.length < constraintLabels.length ||
    (mustHaveSubdomains && domainLabels.length === constraintLabels.length)
  ) return { ok: false };
  // CVE-2025-61727 (Go 1.24.11/1.25.5): an excluded constraint also rules out
  // a wildcard SAN covering it, by comparing without the leftmost labels.
  if (excluded && wildcardDomain && domainLabels.length > 1 && constraintLabels.length > 0) {
    domainLabels = domainLabels.slice(0, -1);
    constraintLabels = constraintLabels.slice(0, -1);
  }
  for (let i = 0; i < constraintLabels.length; i++) {
    if (!eqFold(constraintLabels[i]!, domainLabels[i]!)) return { ok: false };
  }
  return { ok: true };
}

function matchEmailConstraint(mailbox: Mailbox, constraint: string, excluded: boolean): Match {
  if (constraint.includes("@")) {
    const cm = parseRFC2821Mailbox(constraint);
    if (!cm) {
      return {
        ok: false,
        err: `x509: internal error: cannot parse constraint ${goQuoteBinary(constraint)}`,
      };
    }
    return { ok: mailbox.local === cm.local && eqFold(mailbox.domain, cm.domain) };
  }
  return matchDomainConstraint(mailbox.domain, constraint, excluded);
}

function matchURIConstraint(uri: GoUrl, constraint: string, excluded: boolean): Match {
  let host = uri.host;
  if (host.length === 0) {
    return {
      ok: false,
      err: `URI with empty host (${
        goQuoteBinary(urlString(uri))
      }) cannot be matched against constraints`,
    };
  }
  if (host.includes(":") && !host.endsWith("]")) {
    const split = splitHostPort(uri.host);
    if (typeof split !== "string") return { ok: false, err: split.err };
    host = split;
  }
  if (netipParseAddr(host) || (host.startsWith("[") && host.endsWith("]"))) {
    return {
      ok: false,
      err: `URI with IP (${goQuoteBinary(urlString(uri))}) cannot be matched against constraints`,
    };
  }
  return matchDomainConstraint(host, constraint, excluded);
}

/** `net.SplitHostPort`'s host, or its error text. */
function splitHostPort(hostport: string): string | { err: string } {
  const addrErr = (why: string) => ({ err: `address ${hostport}: ${why}` });
  const i = hostport.lastIndexOf(":");
  if (i < 0) return addrErr("missing port in address");
  let host: string;
  let j = 0, k = 0;
  if (hostport[0] === "[") {
    const end = hostport.indexOf("]");
    if (end < 0) return addrErr("missing ']' in address");
    if (end + 1 === hostport.length) return addrErr("missing port in address");
    if (end + 1 !== i) {
      return addrErr(
        hostport[end + 1] === ":" ? "too many colons in address" : "missing port in address",
      );
    }
    host = hostport.slice(1, end);
    j = 1;
    k = end + 1;
  } else {
    host = hostport.slice(0, i);
    if (host.includes(":")) return addrErr("too many colons in address");
  }
  if (hostport.slice(j).includes("[")) return addrErr("unexpected '[' in address");
  if (hostport.slice(k).includes("]")) return addrErr("unexpected ']' in address");
  return host;
}

function matchIPConstraint(ip: Uint8Array, c: { ip: Uint8Array; mask: Uint8Array }): boolean {
  if (ip.length !== c.ip.length) return false;
  for (let i = 0; i < ip.length; i++) {
    const m = c.mask[i] ?? 0;
    if ((ip[i]! & m) !== (c.ip[i]! & m)) return false;
  }
  return true;
}

class Counter {
  n = 0;
  constructor(readonly max: number) {}
}

/** `checkNameConstraints`: undefined, or Go's error text. */
function checkNameConstraints<P, C>(
  count: Counter,
  nameType: string,
  name: string,
  parsed: P,
  match: (p: P, c: C, excluded: boolean) => Match,
  permitted: readonly C[],
  excluded: readonly C[],
  show: (c: C) => string,
): string | undefined {
  count.n += excluded.length;
  if (count.n > count.max) return ERR.tooManyConstraints;
  for (const c of excluded) {
    const m = match(parsed, c, true);
    if (m.err !== undefined) return ERR.notAuthorizedForName + m.err;
    if (m.ok) {
      return ERR.notAuthorizedForName +
        `${nameType} ${goQuoteBinary(name)} is excluded by constraint ${show(c)}`;
    }
  }
  count.n += permitted.length;
  if (count.n > count.max) return ERR.tooManyConstraints;
  let ok = true;
  for (const c of permitted) {
    const m = match(parsed, c, false);
    if (m.err !== undefined) return ERR.notAuthorizedForName + m.err;
    ok = m.ok;
    if (ok) break;
  }
  if (!ok) {
    return ERR.notAuthorizedForName +
      `${nameType} ${goQuoteBinary(name)} is not permitted by any constraint`;
  }
  return undefined;
}

/** `forEachSAN` over a raw SAN extension value; the callback gets Go's tag (0x80 cleared). */
function forEachSAN(
  der: Uint8Array,
  cb: (tag: number, data: Uint8Array) => string | undefined,
): string | undefined {
  let seq;
  try {
    seq = readTlv(der, 0);
    if (seq.tag !== 0x30) throw new Error();
  } catch {
    return "x509: invalid subject alternative names";
  }
  let pos = seq.contentStart;
  while (pos < seq.end) {
    let t;
    try {
      t = readTlv(der, pos, seq.end);
    } catch {
      return "x509: invalid subject alternative name";
    }
    const err = cb(t.tag ^ 0x80, der.subarray(t.contentStart, t.end));
    if (err !== undefined) return err;
    pos = t.end;
  }
  return undefined;
}

const NAME_EMAIL = 1;
const NAME_DNS = 2;
const NAME_URI = 6;
const NAME_IP = 7;

/** The name-constraint part of `isValid` for CA `c` over the SANs already in `chain`. */
function checkChainNameConstraints(
  c: Cert,
  chain: readonly Cert[],
  max: number,
): string | undefined {
  const nc = c.nameConstraints!;
  const count = new Counter(max);
  const q = (s: string) => goQuoteBinary(s);
  for (const sanCert of chain) {
    if (!sanCert.hasSanExtension || !sanCert.sanExtension) continue;
    const err = forEachSAN(sanCert.sanExtension, (tag, data) => {
      switch (tag) {
        case NAME_EMAIL: {
          const name = bytesToBinary(data);
          const mailbox = parseRFC2821Mailbox(name);
          // Go formats the zero rfc2821Mailbox struct here, not the name.
          if (!mailbox) return `x509: cannot parse rfc822Name {"" ""}`;
          return checkNameConstraints(
            count,
            "email address",
            name,
            mailbox,
            matchEmailConstraint,
            nc.permittedEmail,
            nc.excludedEmail,
            q,
          );
        }
        case NAME_DNS: {
          const name = bytesToBinary(data);
          if (!domainNameValid(name)) return `x509: cannot parse dnsName ${q(name)}`;
          return checkNameConstraints(
            count,
            "DNS name",
            name,
            name,
            matchDomainConstraint,
            nc.permittedDns,
            nc.excludedDns,
            q,
          );
        }
        case NAME_URI: {
          const name = bytesToBinary(data);
          let uri: GoUrl;
          try {
            uri = urlParse(name);
          } catch {
            return `x509: internal error: URI SAN ${q(name)} failed to parse`;
          }
          return checkNameConstraints(
            count,
            "URI",
            name,
            uri,
            matchURIConstraint,
            nc.permittedUri,
            nc.excludedUri,
            q,
          );
        }
        case NAME_IP: {
          if (data.length !== 4 && data.length !== 16) {
            const hex = [...data].map((b) => b.toString(16).padStart(2, "0")).join("");
            return `x509: internal error: IP SAN ${hex} failed to parse`;
          }
          return checkNameConstraints(
            count,
            "IP address",
            goIpString(data),
            data,
            (ip: Uint8Array, cons: { ip: Uint8Array; mask: Uint8Array }) => ({
              ok: matchIPConstraint(ip, cons),
            }),
            nc.permittedIp,
            nc.excludedIp,
            (cons) => goQuote(goIpNetString(cons.ip, cons.mask)),
          );
        }
      }
      return undefined; // other SAN types are ignored
    });
    if (err !== undefined) return err;
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// isValid, CheckSignatureFrom, buildChains

interface Ctx {
  now: Date;
  maxComparisons: number;
  roots: Pool;
  intermediates: Pool;
  sigChecks: number;
}

/** `isValid(certType, currentChain, opts)`. */
function isValid(c: Cert, certType: number, chain: readonly Cert[], ctx: Ctx): string | undefined {
  if (c.unhandledCriticalExtensions.length > 0) return ERR.unhandledCritical;
  if (chain.length > 0 && !sameBytes(chain[chain.length - 1]!.issuerDer, c.subjectDer)) {
    return ERR.nameMismatch;
  }
  const now = ctx.now.getTime();
  if (now < c.notBefore.getTime()) {
    return ERR.expired +
      `current time ${formatRfc3339(ctx.now)} is before ${formatRfc3339(c.notBefore)}`;
  }
  if (now > c.notAfter.getTime()) {
    return ERR.expired +
      `current time ${formatRfc3339(ctx.now)} is after ${formatRfc3339(c.notAfter)}`;
  }
  if ((certType === INTERMEDIATE || certType === ROOT) && c.nameConstraints) {
    const err = checkChainNameConstraints(c, chain, ctx.maxComparisons);
    if (err !== undefined) return err;
  }
  // KeyUsage is deliberately not checked here (Go's long comment on CAs
  // marking their keys wrongly); the issuer's certSign bit is checked in
  // CheckSignatureFrom.
  if (certType === INTERMEDIATE && (!c.basicConstraintsValid || !c.isCA)) {
    return ERR.notAuthorizedToSign;
  }
  if (c.basicConstraintsValid && c.maxPathLen >= 0 && chain.length - 1 > c.maxPathLen) {
    return ERR.tooManyIntermediates;
  }
  return undefined;
}

/** `(*Certificate).CheckSignatureFrom(parent)`. */
export function checkSignatureFrom(child: Cert, parent: Cert): string | undefined {
  if (
    (parent.version === 3 && !parent.basicConstraintsValid) ||
    (parent.basicConstraintsValid && !parent.isCA)
  ) return ERR.constraintViolation;
  if (parent.keyUsage && (parent.keyUsage & KU_CERT_SIGN) === 0) return ERR.constraintViolation;
  // In certificates Go knows RSA, DSA, ECDSA and Ed25519 keys; X25519 is "unknown".
  if (!HAS_GO_KEY.has(parent.publicKeyAlgorithm)) return ERR_UNSUPPORTED_ALGORITHM;
  return checkSignature(
    child.signatureAlgorithm,
    child.tbs,
    child.signature,
    parent.publicKeyAlgorithm,
    parent.key.spki,
    false,
  );
}

/** Key algorithms for which Go's certificate parser fills `PublicKey`. */
const HAS_GO_KEY = new Set(["RSA", "DSA", "ECDSA", "Ed25519"]);

/** A CertPool: deduplicated by raw bytes, indexed by raw subject. */
class Pool {
  private byName = new Map<string, Cert[]>();
  private all: Cert[] = [];
  constructor(certs: readonly Cert[]) {
    for (const c of certs) {
      const key = nameKey(c.subjectDer);
      const same = this.byName.get(key) ?? [];
      if (same.some((o) => sameBytes(o.der, c.der))) continue;
      same.push(c);
      this.byName.set(key, same);
      this.all.push(c);
    }
  }
  contains(c: Cert): boolean {
    return (this.byName.get(nameKey(c.subjectDer)) ?? []).some((o) => sameBytes(o.der, c.der));
  }
  /** `findPotentialParents`: KID match, then one KID missing, then KID mismatch. */
  findPotentialParents(child: Cert): Cert[] {
    const matching: Cert[] = [], one: Cert[] = [], mismatch: Cert[] = [];
    for (const cand of this.byName.get(nameKey(child.issuerDer)) ?? []) {
      const skid = cand.subjectKeyId ?? EMPTY;
      const akid = child.authorityKeyId ?? EMPTY;
      if (sameBytes(skid, akid)) matching.push(cand);
      else if ((skid.length === 0) !== (akid.length === 0)) one.push(cand);
      else mismatch.push(cand);
    }
    return [...matching, ...one, ...mismatch];
  }
}

const nameKey = (der: Uint8Array) => bytesToBinary(der);

/** `alreadyInChain`: same subject, same SPKI and the same SAN extension (or none on both). */
function alreadyInChain(cand: Cert, chain: readonly Cert[]): boolean {
  const candSan = cand.hasSanExtension ? cand.sanExtension : undefined;
  for (const c of chain) {
    if (!sameBytes(cand.subjectDer, c.subjectDer)) continue;
    if (!sameBytes(cand.key.spki, c.key.spki)) continue;
    const certSan = c.hasSanExtension ? c.sanExtension : undefined;
    if (!candSan && !certSan) return true;
    if (!candSan || !certSan) return false;
    if (sameBytes(candSan, certSan)) return true;
  }
  return false;
}

function unknownAuthorityError(hintErr: string | undefined, hintCert: Cert | undefined): string {
  if (hintErr === undefined || !hintCert) return ERR.unknownAuthority;
  return `${ERR.unknownAuthority} (possibly because of ${
    goQuote(hintErr)
  } while trying to verify candidate authority certificate ${goQuote(goCertName(hintCert))})`;
}

/** `buildChains`: every chain from `c` (the last of `chain`) to a root, or the error Go returns. */
function buildChains(
  c: Cert,
  chain: readonly Cert[],
  ctx: Ctx,
): { chains: Cert[][]; err: string | undefined } {
  let hintErr: string | undefined;
  let hintCert: Cert | undefined;
  let err: string | undefined;
  const chains: Cert[][] = [];
  const consider = (certType: number, cand: Cert) => {
    if (!HAS_GO_KEY.has(cand.publicKeyAlgorithm) || alreadyInChain(cand, chain)) return;
    ctx.sigChecks++;
    if (ctx.sigChecks > MAX_CHAIN_SIGNATURE_CHECKS) {
      err = ERR.sigLimit;
      return;
    }
    const sigErr = checkSignatureFrom(c, cand);
    if (sigErr !== undefined) {
      if (hintErr === undefined) {
        hintErr = sigErr;
        hintCert = cand;
      }
      return;
    }
    // Unlike signature failures, these land in the function's own err: the
    // last candidate past the signature check decides the error returned.
    err = isValid(cand, certType, chain, ctx);
    if (err !== undefined) {
      if (hintErr === undefined) {
        hintErr = err;
        hintCert = cand;
      }
      return;
    }
    if (certType === ROOT) chains.push([...chain, cand]);
    else {
      const sub = buildChains(cand, [...chain, cand], ctx);
      err = sub.err;
      chains.push(...sub.chains);
    }
  };
  for (const root of ctx.roots.findPotentialParents(c)) consider(ROOT, root);
  for (const inter of ctx.intermediates.findPotentialParents(c)) consider(INTERMEDIATE, inter);
  if (chains.length > 0) err = undefined;
  if (chains.length === 0 && err === undefined) err = unknownAuthorityError(hintErr, hintCert);
  return { chains, err };
}

// ---------------------------------------------------------------------------
// EKU and hostnames

const EKU_OID = new Map(EKUS.map((e) => [e.name, e.oid]));
const ANY_OID = EKU_OID.get("Any")!;

/** `checkChainForKeyUsage` (chain leaf first; walked from the root down). */
export function checkChainForKeyUsage(
  chain: readonly Cert[],
  keyUsages: readonly string[],
): boolean {
  if (chain.length === 0) return false;
  // Unknown names stand for a usage no certificate lists.
  const usages: (string | undefined)[] = keyUsages.map((u) => EKU_OID.get(u) ?? `?${u}`);
  let remaining = usages.length;
  for (let i = chain.length - 1; i >= 0; i--) {
    const ekus = chain[i]!.extKeyUsage ?? [];
    if (ekus.length === 0) continue;
    if (ekus.includes(ANY_OID)) continue;
    for (let j = 0; j < usages.length; j++) {
      const u = usages[j];
      if (u === undefined || ekus.includes(u)) continue;
      usages[j] = undefined;
      remaining--;
      if (remaining === 0) return false;
    }
  }
  return true;
}

const toLowerAscii = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** `validHostname(host, isPattern)`. */
export function validHostname(host: string, isPattern: boolean): boolean {
  let h = host;
  if (!isPattern && h.endsWith(".")) h = h.slice(0, -1);
  if (h.length === 0 || h === "*") return false;
  const parts = h.split(".");
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part === "") return false;
    if (isPattern && i === 0 && part === "*") continue;
    let j = 0;
    for (const ch of part) {
      const ok = /[a-zA-Z0-9_]/.test(ch) || (ch === "-" && j !== 0);
      if (!ok) return false;
      j++; // a byte index in Go, but any non-ASCII rune has already failed
    }
  }
  return true;
}

function matchExactly(a: string, b: string): boolean {
  if (a === "" || a === "." || b === "" || b === ".") return false;
  return toLowerAscii(a) === toLowerAscii(b);
}

function matchHostnames(pattern: string, host: string): boolean {
  const p = toLowerAscii(pattern);
  const h = toLowerAscii(host.endsWith(".") ? host.slice(0, -1) : host);
  if (p.length === 0 || h.length === 0) return false;
  const pp = p.split("."), hp = h.split(".");
  if (pp.length !== hp.length) return false;
  for (let i = 0; i < pp.length; i++) {
    if (i === 0 && pp[i] === "*") continue;
    if (pp[i] !== hp[i]) return false;
  }
  return true;
}

/** `HostnameError.Error()` (with the ≥ 1.25.5 cap of 100 listed names). */
function hostnameError(c: Cert, host: string): string {
  if (!c.hasSanExtension && matchHostnames(c.subject.commonName, host)) {
    return "x509: certificate relies on legacy Common Name field, use SANs instead";
  }
  let valid: string;
  if (goParseIP(host)) {
    if (c.sanIpBytes.length === 0) {
      return `x509: cannot validate certificate for ${host} because it doesn't contain any IP SANs`;
    }
    if (c.sanIpBytes.length >= 100) {
      return `x509: certificate is valid for ${c.sanIpBytes.length} IP SANs, but none matched ${host}`;
    }
    valid = c.sanIpBytes.map(goIpString).join(", ");
  } else {
    if (c.sans.dns.length >= 100) {
      return `x509: certificate is valid for ${c.sans.dns.length} names, but none matched ${host}`;
    }
    valid = c.sans.dns.join(", ");
  }
  if (valid.length === 0) {
    return `x509: certificate is not valid for any names, but wanted to match ${host}`;
  }
  return `x509: certificate is valid for ${valid}, not ${host}`;
}

/** `(*Certificate).VerifyHostname(h)`: undefined, or Go's error text. */
export function verifyHostname(c: Cert, h: string): string | undefined {
  let candidateIP = h;
  if (h.length >= 3 && h[0] === "[" && h[h.length - 1] === "]") candidateIP = h.slice(1, -1);
  const ip = goParseIP(candidateIP);
  if (ip) {
    for (const san of c.sanIpBytes) if (ipEqual(ip, san)) return undefined;
    return hostnameError(c, candidateIP);
  }
  const name = toLowerAscii(h);
  const validName = validHostname(name, false);
  for (const match of c.sans.dns) {
    if (validName && validHostname(match, true)) {
      if (matchHostnames(match, name)) return undefined;
    } else if (matchExactly(match, name)) return undefined;
  }
  return hostnameError(c, h);
}

// ---------------------------------------------------------------------------

/** `(*Certificate).Verify(opts)`. */
export function verify(leaf: Cert, opts: VerifyOptions): VerifyResult {
  const ctx: Ctx = {
    now: opts.currentTime,
    maxComparisons: opts.maxConstraintComparisons || 250000,
    roots: new Pool(opts.roots),
    intermediates: new Pool(opts.intermediates),
    sigChecks: 0,
  };
  const fail = (error: string): VerifyResult => ({ ok: false, error });
  let err = isValid(leaf, LEAF, [], ctx);
  if (err !== undefined) return fail(err);
  if (opts.dnsName) {
    err = verifyHostname(leaf, opts.dnsName);
    if (err !== undefined) return fail(err);
  }
  let candidates: Cert[][];
  if (ctx.roots.contains(leaf)) candidates = [[leaf]];
  else {
    const built = buildChains(leaf, [leaf], ctx);
    if (built.err !== undefined) return fail(built.err);
    candidates = built.chains;
  }
  // Policy validation would filter `candidates` here (see the module doc).
  const keyUsages = opts.keyUsages ?? [];
  if (keyUsages.includes("Any")) return { ok: true, chains: candidates };
  const wanted = keyUsages.length > 0 ? keyUsages : ["ServerAuth"];
  const chains = candidates.filter((ch) => checkChainForKeyUsage(ch, wanted));
  if (chains.length === 0) return fail(ERR.incompatibleUsage);
  return { ok: true, chains };
}
