/**
 * PEM decoding and encoding. Decoding is Go's `encoding/pem.Decode` as of
 * Go 1.24.8 / 1.25.2 (the CVE-2025-61723 rewrite, with the golang/go#76027
 * fix of 1.25.4): the blocks it returns, in order, with malformed ones
 * skipped silently, as client-go's `ParseCertsPEM` and every other Go reader
 * of PEM see them.
 *
 * @module
 */

import { Buffer } from "node:buffer";

/** One decoded PEM block. */
export interface PemBlock {
  /** The label, e.g. `CERTIFICATE` or `EC PRIVATE KEY` (any text Go accepts). */
  type: string;
  /** Headers such as `Proc-Type` (legacy encrypted keys); empty when none. */
  headers: Record<string, string>;
  /** The decoded bytes; empty for an empty body, as in Go. */
  der: Uint8Array;
}

const BEGIN = "-----BEGIN ";
const END_NL = "\n-----END ";
const DASHES = "-----";

/** Whether the text holds at least one PEM `BEGIN` marker. */
export function looksLikePem(text: string): boolean {
  return text.includes(BEGIN);
}

/**
 * Go's `getLine`: the line starting at `pos` without its `\n` (and a `\r`
 * right before it), right-trimmed of spaces and tabs, and how many chars
 * were consumed (the newline included).
 */
function getLine(s: string, pos: number): { line: string; consumed: number } {
  const nl = s.indexOf("\n", pos);
  let end: number, next: number;
  if (nl < 0) {
    end = next = s.length;
  } else {
    next = nl + 1;
    end = nl > pos && s[nl - 1] === "\r" ? nl - 1 : nl;
  }
  let e = end;
  while (e > pos && (s[e - 1] === " " || s[e - 1] === "\t")) e--;
  return { line: s.slice(pos, e), consumed: next - pos };
}

// unicode.IsSpace, as bytes.TrimSpace uses it (JavaScript's trim() differs: it trims U+FEFF
// and keeps U+0085).
const GO_SPACE = new Set([..."\t\n\v\f\r \u0085\u00a0\u1680\u2028\u2029\u202f\u205f\u3000"]);
const isGoSpace = (c: string) => GO_SPACE.has(c) || (c >= "\u2000" && c <= "\u200a");

// bytes.TrimSpace with index loops: a regular expression anchored at `$` backtracks
// quadratically on a long inner run of blanks (fuzz seed 1785686382: 75 s on 300,000 spaces).
function goTrimSpace(s: string): string {
  let a = 0, b = s.length;
  while (a < b && isGoSpace(s[a]!)) a++;
  while (b > a && isGoSpace(s[b - 1]!)) b--;
  return s.slice(a, b);
}

// base64.StdEncoding.Decode after Go's removeSpacesAndTabs: `\r` and `\n` are skipped
// anywhere, padding is required, nothing may follow it; non-zero trailing bits are
// tolerated. `undefined` where Go returns an error.
function goBase64(body: string): Uint8Array | undefined {
  const c = body.replace(/[ \t\r\n]+/g, "");
  if (c.length % 4 !== 0) return undefined;
  const pad = c.indexOf("=");
  const data = pad < 0 ? c : c.slice(0, pad);
  if (pad >= 0 && !(pad === c.length - 1 || (pad === c.length - 2 && c[c.length - 1] === "="))) {
    return undefined;
  }
  if (!/^[A-Za-z0-9+/]*$/.test(data)) return undefined;
  return new Uint8Array(Buffer.from(c, "base64"));
}

function setHeader(headers: Record<string, string>, key: string, value: string): void {
  // An own property even for "__proto__".
  Object.defineProperty(headers, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/**
 * One call of Go's `Decode(data[from:])`: the next block and where the rest
 * starts, or `undefined` (no more blocks). Index arithmetic mirrors Go's
 * (`endIndex`, `endTrailerIndex` relative to `rest`), so every `continue`
 * resumes where Go's does.
 */
function decodeOne(s: string, from: number): { block: PemBlock; next: number } | undefined {
  let rest = from;
  let endTrailerIndex = 0;
  for (;;) {
    if (endTrailerIndex < 0 || endTrailerIndex > s.length - rest) return undefined;
    rest += endTrailerIndex;
    // The first END line, then the last BEGIN before it: repeated BEGIN lines without an
    // END cost nothing (the quadratic case of CVE-2025-61723).
    const endAt = s.indexOf(END_NL, rest);
    if (endAt < 0) return undefined;
    let endIndex = endAt - rest;
    endTrailerIndex = endIndex + END_NL.length;
    // Bounded to rest[:endIndex]: a lastIndexOf over the whole text would rescan earlier
    // text once per END line.
    const beginIndex = s.slice(rest, endAt).lastIndexOf(BEGIN);
    if (beginIndex < 0 || (beginIndex > 0 && s[rest + beginIndex - 1] !== "\n")) continue;
    const shift = beginIndex + BEGIN.length;
    rest += shift;
    endIndex -= shift;
    endTrailerIndex -= shift;

    const typeLine = getLine(s, rest);
    rest += typeLine.consumed;
    endIndex -= typeLine.consumed;
    endTrailerIndex -= typeLine.consumed;
    if (!typeLine.line.endsWith(DASHES)) continue;
    const type = typeLine.line.slice(0, -DASHES.length);

    const headers: Record<string, string> = {};
    let headerCount = 0;
    for (;;) {
      if (rest === s.length) return undefined;
      const { line, consumed } = getLine(s, rest);
      const colon = line.indexOf(":");
      if (colon < 0) break;
      setHeader(
        headers,
        goTrimSpace(line.slice(0, colon)),
        goTrimSpace(line.slice(colon + 1)),
      );
      headerCount++;
      rest += consumed;
      endIndex -= consumed;
      endTrailerIndex -= consumed;
    }
    // With headers, a newline must separate them from the END line.
    if (headerCount > 0 && endIndex < 0) continue;

    const trailer = rest + endTrailerIndex;
    if (!s.startsWith(type + DASHES, trailer)) continue;
    // Only spaces and tabs (then a newline, CRLF or the end) may follow on the END line.
    if (getLine(s, trailer + type.length + DASHES.length).line !== "") continue;

    let der: Uint8Array = new Uint8Array(0);
    if (endIndex > 0) {
      const bytes = goBase64(s.slice(rest, rest + endIndex));
      if (!bytes) continue;
      der = bytes;
    }
    // END_NL.length - 1: an empty block's END may have matched without its newline.
    const after = rest + endIndex + END_NL.length - 1;
    return { block: { type, headers, der }, next: after + getLine(s, after).consumed };
  }
}

/**
 * Every block Go's `for { block, rest = pem.Decode(rest) … }` loop returns,
 * in order. Never throws: malformed blocks (bad base64, a mismatched END, a
 * BEGIN not at the start of a line, …) are skipped as Go skips them, so
 * callers decide what "no usable block" means. Text outside blocks is
 * ignored; a byte-order mark is not stripped (Go does not strip it, so a
 * block right after one is not found). Linear in the input.
 *
 * The text is taken as already decoded from UTF-8; block types and headers
 * compare as text, where Go compares bytes.
 *
 * @example
 * ```ts ignore
 * decodePem(pemText).map((b) => b.type); // ["CERTIFICATE"]
 * ```
 */
export function decodePem(text: string, _source = "input"): PemBlock[] {
  const blocks: PemBlock[] = [];
  let pos = 0;
  while (pos < text.length) {
    const r = decodeOne(text, pos);
    if (!r) break;
    blocks.push(r.block);
    pos = r.next;
  }
  return blocks;
}

/**
 * Encodes DER bytes as a PEM block with 64-character lines, as Go's `pem.Encode` does.
 *
 * @example
 * ```ts ignore
 * encodePem("CERTIFICATE", der);
 * ```
 */
export function encodePem(type: string, der: Uint8Array): string {
  const b64 = Buffer.from(der).toString("base64");
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${type}-----\n${lines.join("\n")}\n-----END ${type}-----\n`;
}
