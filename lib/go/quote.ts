/**
 * Go's `%q` (`strconv.Quote`): the one quoting every Go error text joinkit
 * reproduces goes through. Two forms of one rule: {@link goQuote} for a Go
 * string whose text is a JavaScript string, {@link goQuoteBytes} for a Go
 * string built from raw bytes (invalid UTF-8 shows as `\xNN`).
 *
 * Not for joinkit's own messages about user input: those use `quote` in
 * `base/errors.ts`, which clips long values.
 *
 * @module
 */

/**
 * `strconv.IsPrint` for a non-ASCII rune: Unicode letters, marks, numbers,
 * punctuation, symbols. Made on first use: making it (its Unicode classes)
 * costs ~3 ms, which every command's start-up under `deno run` paid when it
 * was made at import.
 */
let printable: RegExp | undefined;

const ESCAPES: Record<number, string> = {
  7: "\\a",
  8: "\\b",
  12: "\\f",
  10: "\\n",
  13: "\\r",
  9: "\\t",
  11: "\\v",
};

/** Appends one rune as `strconv.Quote` writes it. */
function quoteRune(cp: number, out: string[]): void {
  if (cp === 0x22) out.push('\\"');
  else if (cp === 0x5c) out.push("\\\\");
  else if (cp >= 0x20 && cp < 0x7f) out.push(String.fromCharCode(cp));
  else if (
    cp >= 0x80 && (printable ??= /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u).test(String.fromCodePoint(cp))
  ) {
    out.push(String.fromCodePoint(cp));
  } else if (ESCAPES[cp]) out.push(ESCAPES[cp]!);
  else if (cp < 0x20 || cp === 0x7f) out.push("\\x" + cp.toString(16).padStart(2, "0"));
  else if (cp < 0x10000) out.push("\\u" + cp.toString(16).padStart(4, "0"));
  else out.push("\\U" + cp.toString(16).padStart(8, "0"));
}

/**
 * Go's `%q` of a string: `"` and `\` escaped, printable runes as themselves,
 * `\n`-style escapes, `\xNN` for other control bytes, `\uNNNN` for other
 * non-printable runes. A lone surrogate (no Go string can hold one) quotes as
 * U+FFFD, the rune Go decodes from its UTF-8 replacement.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { goQuote } from "./quote.ts";
 * assert.equal(goQuote('a"b\n'), '"a\\"b\\n"');
 * assert.equal(goQuote("\u200b"), '"\\u200b"');
 * ```
 */
export function goQuote(text: string): string {
  const out: string[] = ['"'];
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    quoteRune(cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp, out);
  }
  out.push('"');
  return out.join("");
}

/** `utf8.DecodeRune`: [rune, size]; rune -1 (with size 1) for an invalid byte. */
function decodeRune(b: Uint8Array, i: number): [number, number] {
  const b0 = b[i]!;
  if (b0 < 0x80) return [b0, 1];
  const cont = (k: number) => {
    const x = b[i + k];
    return x !== undefined && x >= 0x80 && x <= 0xbf ? x & 0x3f : -1;
  };
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    const c1 = cont(1);
    return c1 < 0 ? [-1, 1] : [((b0 & 0x1f) << 6) | c1, 2];
  }
  if (b0 >= 0xe0 && b0 <= 0xef) {
    const c1 = cont(1), c2 = cont(2);
    if (c1 < 0 || c2 < 0) return [-1, 1];
    const cp = ((b0 & 0x0f) << 12) | (c1 << 6) | c2;
    return cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff) ? [-1, 1] : [cp, 3];
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    const c1 = cont(1), c2 = cont(2), c3 = cont(3);
    if (c1 < 0 || c2 < 0 || c3 < 0) return [-1, 1];
    const cp = ((b0 & 0x07) << 18) | (c1 << 12) | (c2 << 6) | c3;
    return cp < 0x10000 || cp > 0x10ffff ? [-1, 1] : [cp, 4];
  }
  return [-1, 1];
}

/**
 * Go's `%q` of a string holding these bytes: valid UTF-8 runes quoted as
 * {@link goQuote} does, each byte of an invalid sequence as `\xNN`. A
 * "binary string" (one char per byte, as DER text values are held) is
 * quoted with `goQuoteBytes(Buffer.from(s, "latin1"))`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { goQuoteBytes } from "./quote.ts";
 * assert.equal(goQuoteBytes(new Uint8Array([0x66, 0xe9])), '"f\\xe9"');
 * ```
 */
export function goQuoteBytes(bytes: Uint8Array): string {
  const out: string[] = ['"'];
  for (let i = 0; i < bytes.length;) {
    const [cp, size] = decodeRune(bytes, i);
    if (cp < 0) out.push("\\x" + bytes[i]!.toString(16).padStart(2, "0"));
    else quoteRune(cp, out);
    i += size;
  }
  out.push('"');
  return out.join("");
}

/**
 * Go's `%q` of a `[]string`: each element quoted, space-separated, in brackets.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { goQuoteStrings } from "./quote.ts";
 * assert.equal(goQuoteStrings(["a", "b c"]), '["a" "b c"]');
 * ```
 */
export function goQuoteStrings(values: readonly string[]): string {
  return `[${values.map(goQuote).join(" ")}]`;
}
