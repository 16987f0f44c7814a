import assert from "node:assert/strict";
import { goQuote, goQuoteBytes, goQuoteStrings } from "../../lib/go/quote.ts";

Deno.test("goQuote() is Go's %q", () => {
  assert.equal(goQuote('a"b\\c'), '"a\\"b\\\\c"');
  assert.equal(goQuote("\x00\n\x7f"), '"\\x00\\n\\x7f"');
  assert.equal(goQuote("é漢"), '"é漢"');
  assert.equal(goQuote("\u200b"), '"\\u200b"');
});

Deno.test("goQuote() escapes as Go's %q", () => {
  assert.equal(goQuote('a"b\\c'), String.raw`"a\"b\\c"`);
  assert.equal(goQuote("x\n\t\x01"), String.raw`"x\n\t\x01"`);
  assert.equal(goQuote("héllo"), '"héllo"');
});

Deno.test("goQuote() escapes non-printable runes as Go does where the old token copy did not", () => {
  // strconv.IsPrint: U+00A0 (Zs) and U+00AD (Cf) are not printable; U+1F600 (So) is.
  assert.equal(goQuote("a\u00a0b\u00ad"), String.raw`"a\u00a0b\u00ad"`);
  assert.equal(goQuote("\u{1F600}"), '"\u{1F600}"');
  assert.equal(goQuote("\u{E0001}"), String.raw`"\U000e0001"`);
  // A lone surrogate cannot be in a Go string: it arrives as U+FFFD.
  assert.equal(goQuote("\ud800"), '"\ufffd"');
});

Deno.test("goQuoteBytes() and goQuote() agree on valid UTF-8", () => {
  for (const s of ['a"b\\c', "\x00\n\x7f", "é漢", "\u200b", "\u{1F600}"]) {
    assert.equal(goQuoteBytes(new TextEncoder().encode(s)), goQuote(s), s);
  }
  assert.equal(goQuoteBytes(new Uint8Array([0xed, 0xa0, 0x80])), String.raw`"\xed\xa0\x80"`);
});

Deno.test("goQuoteStrings() is Go's %q of a []string", () => {
  assert.equal(goQuoteStrings([]), "[]");
  assert.equal(goQuoteStrings(["a", "b c", "\x01"]), String.raw`["a" "b c" "\x01"]`);
});
