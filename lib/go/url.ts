/**
 * Go's `net/url.Parse`, the parts kubeadm's validation depends on: the
 * scheme, the host and whether parsing fails, with Go's error texts
 * (`parse "<url>": <why>`). Query and fragment are split off and not
 * checked beyond Go's control-character rule.
 *
 * @module
 */

import { goQuote } from "./quote.ts";

/** What {@link goUrlParse} found. */
export type GoUrl =
  | { ok: true; scheme: string; host: string; path: string; opaque: string }
  | { ok: false; error: string };

// deno-lint-ignore no-control-regex
const CTL = /[\x00-\x1f\x7f]/;

/** `getScheme`: the scheme (lower-cased by the caller), or an error. */
function getScheme(raw: string): { scheme: string; rest: string } | { error: string } {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+.-]/.test(c)) {
      if (i === 0) return { scheme: "", rest: raw };
      continue;
    }
    if (c === ":") {
      if (i === 0) return { error: "missing protocol scheme" };
      return { scheme: raw.slice(0, i), rest: raw.slice(i + 1) };
    }
    return { scheme: "", rest: raw };
  }
  return { scheme: "", rest: raw };
}

/** `validOptionalPort`. */
function validOptionalPort(port: string): boolean {
  if (port === "") return true;
  return port[0] === ":" && /^[0-9]*$/.test(port.slice(1));
}

/** `shouldEscape(c, encodeHost)` for an ASCII byte. */
function hostNeedsEscape(c: string): boolean {
  if (/[A-Za-z0-9\-_.~]/.test(c)) return false;
  return !`!$&'()*+,;=:[]<>"`.includes(c);
}

/** `unescape(s, mode)`: only the error cases matter here. */
function unescapeError(s: string, host: boolean): string | undefined {
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "%") {
      const hex = s.slice(i, i + 3);
      if (!/^%[0-9A-Fa-f]{2}$/.test(hex)) {
        return `invalid URL escape ${goQuote(hex)}`;
      }
      i += 2;
    } else if (host && c.charCodeAt(0) < 0x80 && hostNeedsEscape(c)) {
      return `invalid character ${goQuote(c)} in host name`;
    }
  }
  return undefined;
}

/** `parseHost`: the host, or the error detail. */
function parseHost(host: string): { host: string } | { error: string } {
  if (host.startsWith("[")) {
    const i = host.lastIndexOf("]");
    if (i < 0) return { error: "missing ']' in host" };
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) {
      return { error: `invalid port ${goQuote(colonPort)} after host` };
    }
  } else {
    const i = host.lastIndexOf(":");
    if (i !== -1) {
      const colonPort = host.slice(i);
      if (!validOptionalPort(colonPort)) {
        return { error: `invalid port ${goQuote(colonPort)} after host` };
      }
    }
  }
  const err = unescapeError(host, true);
  return err ? { error: err } : { host };
}

/**
 * `url.Parse(raw)`. The error is Go's `*url.Error` text:
 * `parse "<raw>": <why>`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { goUrlParse } from "./url.ts";
 * assert.deepEqual(goUrlParse(":::"), { ok: false, error: 'parse ":::": missing protocol scheme' });
 * ```
 */
export function goUrlParse(raw: string): GoUrl {
  const fail = (why: string): GoUrl => ({ ok: false, error: `parse ${goQuote(raw)}: ${why}` });
  const hash = raw.indexOf("#");
  const u = hash >= 0 ? raw.slice(0, hash) : raw;
  if (hash >= 0) {
    const fragErr = unescapeError(raw.slice(hash + 1), false);
    if (fragErr) return fail(fragErr);
  }
  if (CTL.test(u)) return fail("net/url: invalid control character in URL");
  const s = getScheme(u);
  if ("error" in s) return fail(s.error);
  const scheme = s.scheme.toLowerCase();
  let rest = s.rest;
  const q = rest.indexOf("?");
  if (q >= 0) rest = rest.slice(0, q);
  if (!rest.startsWith("/")) {
    if (scheme !== "") return { ok: true, scheme, host: "", path: "", opaque: rest };
    const segment = rest.split("/")[0]!;
    if (segment.includes(":")) return fail("first path segment in URL cannot contain colon");
  }
  let host = "";
  if ((scheme !== "" || !rest.startsWith("///")) && rest.startsWith("//")) {
    const after = rest.slice(2);
    const slash = after.indexOf("/");
    const authority = slash >= 0 ? after.slice(0, slash) : after;
    rest = slash >= 0 ? after.slice(slash) : "";
    const at = authority.lastIndexOf("@");
    if (at >= 0) {
      const userinfo = authority.slice(0, at);
      if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo)) {
        return fail("net/url: invalid userinfo");
      }
      const uiErr = unescapeError(userinfo, false);
      if (uiErr) return fail(uiErr);
    }
    const h = parseHost(at >= 0 ? authority.slice(at + 1) : authority);
    if ("error" in h) return fail(h.error);
    host = h.host;
  }
  const pathErr = unescapeError(rest, false);
  if (pathErr) return fail(pathErr);
  return { ok: true, scheme, host, path: rest, opaque: "" };
}
