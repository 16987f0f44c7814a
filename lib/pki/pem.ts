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
const CERT_LINE = "CERTIFICATE-----";
/** The headers of every block without any (frozen: blocks share it). */
const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** Whether a block read here has headers (`Object.keys(headers).length > 0`, no array made). */
export function hasHeaders(block: PemBlock): boolean {
  return block.headers !== NO_HEADERS && Object.keys(block.headers).length > 0;
}
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

/** Whether the line starting at `pos` (up to its `\n` or the end) holds a `:`. */
function lineHasColon(s: string, pos: number): boolean {
  for (let i = pos; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x3a) return true;
    if (c === 0x0a) return false;
  }
  return false;
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

// base64.StdEncoding.Decode after Go's removeSpacesAndTabs, of the text's bytes
// `s[start:end]`: `\r` and `\n` are skipped anywhere (spaces and tabs too), padding is
// required, nothing but padding may follow it; non-zero trailing bits are tolerated.
// `undefined` where Go returns an error. One pass, no intermediate strings.
function goBase64(s: Uint8Array, start: number, end: number): Uint8Array | undefined {
  const max = ((end - start) >> 2) * 3 + 3;
  // Small bodies are decoded straight into a shared slab and returned as views of it
  // (no buffer per block); a large one gets its own buffer.
  let out: Uint8Array, o: number;
  if (max > SLAB_SIZE / 4) {
    out = new Uint8Array(max);
    o = 0;
  } else {
    if (slabPos + max > slab.length) {
      // The first few slabs hold one body each (see FIRST_SLABS).
      slab = new Uint8Array(slabsMade < FIRST_SLABS ? max : SLAB_SIZE);
      slabsMade++;
      slabPos = 0;
    }
    out = slab;
    o = slabPos;
  }
  const from = o;
  let acc = 0, n = 0, pad = -1;
  for (let i = start; i < end; i++) {
    // Four alphabet characters at a quantum boundary (most of a body) in one step.
    if ((n & 3) === 0 && pad < 0 && i + 4 <= end) {
      const a = B64[s[i]!]!, b = B64[s[i + 1]!]!, c = B64[s[i + 2]!]!, d = B64[s[i + 3]!]!;
      if ((a | b | c | d) >= 0) {
        const q = (a << 18) | (b << 12) | (c << 6) | d;
        out[o++] = q >> 16;
        out[o++] = q >> 8;
        out[o++] = q;
        n += 4;
        i += 3;
        continue;
      }
    }
    const v = B64[s[i]!]!;
    if (v >= 0) {
      if (pad >= 0) return undefined;
      acc = (acc << 6) | v;
      if ((++n & 3) === 0) {
        out[o++] = acc >> 16;
        out[o++] = acc >> 8;
        out[o++] = acc;
        acc = 0;
      }
    } else if (v === B64_PAD) {
      if (pad < 0) pad = n;
      n++;
    } else if (v !== B64_SPACE) return undefined;
  }
  if ((n & 3) !== 0) return undefined;
  if (pad >= 0) {
    const data = pad & 3;
    if (n - pad > 2) return undefined;
    if (data === 2) out[o++] = acc >> 4;
    else {
      out[o++] = acc >> 10;
      out[o++] = acc >> 2;
    }
  }
  if (out === slab) slabPos = o;
  return out.subarray(from, o);
}

const SLAB_SIZE = 65536;
/**
 * Slabs made for one body each before the first full one: the first bodies
 * each run the slab allocation, so V8 has seen it (type feedback) before it
 * optimises goBase64 (it records none before a function's first few calls).
 * A slab made at load time left the optimised code without feedback there,
 * and the first refill (after ~100 certificates) threw it away (a
 * deoptimisation and a second compile).
 */
const FIRST_SLABS = 32;
let slabsMade = 0;
let slab = new Uint8Array(0);
let slabPos = 0;

/** {@link goBase64} of a body of a text with characters beyond U+00FF (none is base64). */
function bodyBase64(body: string): Uint8Array | undefined {
  // deno-lint-ignore no-control-regex
  if (/[^\x00-\x7f]/.test(body)) return undefined;
  return goBase64(Buffer.from(body, "latin1"), 0, body.length);
}

const B64_PAD = -2;
const B64_SPACE = -3;
/** The base64 alphabet's values by byte; -1 for bytes outside it, B64_PAD, B64_SPACE. */
const B64 = (() => {
  const t = new Int8Array(256).fill(-1);
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (let i = 0; i < 64; i++) t[alphabet.charCodeAt(i)] = i;
  t[0x3d] = B64_PAD;
  for (const c of " \t\r\n") t[c.charCodeAt(0)] = B64_SPACE;
  return t;
})();

function setHeader(headers: Record<string, string>, key: string, value: string): void {
  // An own property even for "__proto__".
  Object.defineProperty(headers, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

// The first BEGIN at or after `beginFrom` is at `beginAt` (-1: none); reset per text.
let beginFrom = -1;
let beginAt = -1;

/** The index of the first BEGIN at or after `from` (-1: none), reusing the last search. */
function firstBegin(s: string, from: number): number {
  if (beginFrom < 0 || from < beginFrom || (beginAt >= 0 && beginAt < from)) {
    beginFrom = from;
    beginAt = s.indexOf(BEGIN, from);
  }
  return beginAt;
}

/**
 * One call of Go's `Decode(data[from:])`: the next block and where the rest
 * starts, or `undefined` (no more blocks). Index arithmetic mirrors Go's
 * (`endIndex`, `endTrailerIndex` relative to `rest`), so every `continue`
 * resumes where Go's does.
 */
function decodeOne(
  s: string,
  from: number,
  bytes: Uint8Array | undefined,
): { block: PemBlock; next: number } | undefined {
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
    // The last BEGIN inside rest[:endIndex], found by forward searches (a backward search
    // would rescan earlier text once per END line): each search starts past the last one's
    // answer, so over the whole text they are linear.
    let beginIndex = -1;
    const lastStart = endAt - BEGIN.length;
    for (let b = firstBegin(s, rest); b >= 0 && b <= lastStart; b = firstBegin(s, b + 1)) {
      beginIndex = b - rest;
    }
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
    // The usual label is one shared string (a fleet's blocks are all held until parsed).
    const type = typeLine.line === CERT_LINE
      ? "CERTIFICATE"
      : typeLine.line.slice(0, -DASHES.length);

    // Made at the first header (a block without headers shares NO_HEADERS).
    let headers: Record<string, string> | undefined;
    let headerCount = 0;
    for (;;) {
      if (rest === s.length) return undefined;
      // The usual next line is the body's first: no colon, no line made to find that out.
      if (!lineHasColon(s, rest)) break;
      const { line, consumed } = getLine(s, rest);
      const colon = line.indexOf(":");
      if (colon < 0) break;
      setHeader(
        headers ??= {},
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
    // typeLine.line is `type + DASHES` (it ends with DASHES, type is the rest).
    if (!s.startsWith(typeLine.line, trailer)) continue;
    // Only spaces and tabs (then a newline, CRLF or the end) may follow on the END line.
    if (getLine(s, trailer + type.length + DASHES.length).line !== "") continue;

    let der: Uint8Array;
    if (endIndex > 0) {
      const body = bytes
        ? goBase64(bytes, rest, rest + endIndex)
        : bodyBase64(s.slice(rest, rest + endIndex));
      if (!body) continue;
      der = body;
    } else der = new Uint8Array(0);
    // END_NL.length - 1: an empty block's END may have matched without its newline.
    const after = rest + endIndex + END_NL.length - 1;
    return {
      block: { type, headers: headers ?? NO_HEADERS, der },
      next: after + getLine(s, after).consumed,
    };
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
  eachPemBlock(text, (b) => {
    blocks.push(b);
  });
  return blocks;
}

/**
 * {@link decodePem}'s blocks handed to `each` one at a time, as they are
 * decoded (none held). `bytes`, when given, must be the text's bytes (the
 * text being their Latin-1 reading, as `pem.Decode` walks bytes): bodies
 * are decoded from them, with no copy of the text.
 *
 * @example
 * ```ts ignore
 * eachPemBlock(Buffer.from(data).toString("latin1"), (b) => console.log(b.type), data);
 * ```
 */
export function eachPemBlock(
  text: string,
  each: (block: PemBlock) => void,
  bytes?: Uint8Array,
): void {
  beginFrom = beginAt = -1;
  // Bodies are decoded from the text's bytes: one copy when every character is a byte.
  // deno-lint-ignore no-control-regex
  if (!bytes) bytes = /[^\x00-\xff]/.test(text) ? undefined : Buffer.from(text, "latin1");
  let pos = 0;
  while (pos < text.length) {
    const r = decodeOne(text, pos, bytes);
    if (!r) break;
    pos = r.next;
    // The forward BEGIN search is module state: kept across `each`, which may decode too.
    const from = beginFrom, at = beginAt;
    each(r.block);
    beginFrom = from;
    beginAt = at;
  }
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
