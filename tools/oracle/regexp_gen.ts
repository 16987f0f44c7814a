/**
 * The oracle's `regexp` judgement: seeded pattern/input pairs biased toward
 * where RE2 and JavaScript (and re2js and Go) part ways: escapes, classes,
 * flags, anchors, multiline with `\r`, `\s` and `\v`, Unicode classes and
 * folding, repeat counts and their limits, named groups, and syntax Go
 * refuses. Go's side is tools/oracle/regexp/main.go (its own program, built
 * without the go125 overlay: Go 1.23's regexp is what kubelet-csr-approver
 * runs); joinkit's is lib/go/regexp.ts.
 *
 * Inputs avoid characters assigned after Unicode 15.0 (Go 1.23's tables;
 * re2js has 17.0): that difference is documented in lib/go/regexp.ts.
 *
 * @module
 */

import type { Rng } from "./der.ts";

/** One request for the Go side: pattern, input, and the input as base64 bytes for `Match`. */
export interface RegexpCase {
  p: string;
  s: string;
  /** Base64 of raw input bytes (possibly invalid UTF-8); when set, Go uses `Match`. */
  b?: string;
}

const LIT = [
  "a",
  "b",
  "c",
  "x",
  "A",
  "B",
  "0",
  "1",
  "9",
  "-",
  "_",
  ".",
  ":",
  "/",
  " ",
  "\t",
  "\n",
  "\r",
  "é",
  "É",
  "ß",
  "ẞ",
  "K",
  "k",
  "\u212a",
  "s",
  "S",
  "\u017f",
  "Σ",
  "σ",
  "ς",
  "İ",
  "ı",
  "i",
  "I",
  "α",
  "Ω",
  "\u00b5",
  "\u03bc",
  "Å",
  "\u212b",
  "😀",
  "𝔘",
  "日",
  "\u00a0",
  "\u0085",
  "\u2028",
  "\u3000",
  "\ufeff",
  "\ud800",
  "\udc00",
  "\u0000",
  "\u000b",
  "\u000c",
  "\ufffd",
  "}",
  "{",
  "]",
  ",",
  "=",
  "<",
  ">",
  "'",
  "!",
];

const ESC = [
  "\\d",
  "\\D",
  "\\w",
  "\\W",
  "\\s",
  "\\S",
  "\\b",
  "\\B",
  "\\A",
  "\\z",
  "\\v",
  "\\f",
  "\\t",
  "\\n",
  "\\r",
  "\\a",
  "\\x41",
  "\\x{1F600}",
  "\\x{10FFFF}",
  "\\x{0}",
  "\\x61",
  "\\101",
  "\\0",
  "\\00",
  "\\012",
  "\\7",
  "\\-",
  "\\_",
  "\\:",
  "\\.",
  "\\\\",
  "\\/",
  "\\ ",
  "\\#",
  "\\&",
  "\\~",
  "\\'",
  '\\"',
  "\\<",
  "\\>",
  "\\%",
  "\\@",
  "\\=",
  "\\pL",
  "\\PL",
  "\\pN",
  "\\p{Greek}",
  "\\p{Latin}",
  "\\P{Latin}",
  "\\p{^Greek}",
  "\\P{^L}",
  "\\p{Lu}",
  "\\p{Ll}",
  "\\p{Any}",
  "\\p{Zs}",
  "\\pZ",
  "\\pC",
  "\\p{Kawi}",
  "\\p{Han}",
  "\\p{Common}",
  "\\Qa.b\\E",
  "\\Q*+?\\E",
  "\\Q\\E",
  "\\Qab",
  "\\Q]\\E",
  "\\Q(?P<n>\\E",
  "\\$",
  "\\^",
  "\\[",
  "\\]",
  "\\(",
  "\\)",
  "\\{",
  "\\}",
  "\\|",
  "\\?",
  "\\*",
  "\\+",
  "\\x{41}",
  "\\x{FFFD}",
  "\\x{85}",
  "\\x{2028}",
  "\\x0b",
  "\\x0D",
];

/** Escapes Go refuses (some of them JavaScript or re2js accept). */
const BAD_ESC = [
  "\\Z",
  "\\e",
  "\\x{110000}",
  "\\x{}",
  "\\x4",
  "\\x{41",
  "\\xZZ",
  "\\8",
  "\\1",
  "\\9",
  "\\u0041",
  "\\u002e",
  "\\u{41}",
  "\\cJ",
  "\\k<n>",
  "\\p{greek}",
  "\\p{LC}",
  "\\p{Cn}",
  "\\p{L&}",
  "\\p{Alphabetic}",
  "\\p{White_Space}",
  "\\p{Emoji}",
  "\\p{Garay}",
  "\\p{Todhri}",
  "\\pl",
  "\\p{}",
  "\\p{Lu",
  "\\p",
  "\\pé",
  "\\C",
  "\\G",
  "\\h",
  "\\H",
  "\\K",
  "\\R",
  "\\X",
  "\\N",
  "\\E",
  "\\y",
  "\\é",
  "\\p{ASCII}",
  "\\p{Assigned}",
  "\\p{Letter}",
];

const CLASS_ITEMS = [
  "a",
  "b",
  "z",
  "0-9",
  "a-z",
  "A-Z",
  "-",
  "\\-",
  "_",
  ".",
  "\\d",
  "\\D",
  "\\s",
  "\\S",
  "\\w",
  "\\W",
  "\\v",
  "\\n",
  "\\r",
  "\\x{100}-\\x{200}",
  "[:alpha:]",
  "[:^alpha:]",
  "[:digit:]",
  "[:space:]",
  "[:word:]",
  "[:punct:]",
  "[:upper:]",
  "[:^lower:]",
  "[:blank:]",
  "[:cntrl:]",
  "[:graph:]",
  "[:print:]",
  "[:xdigit:]",
  "[:ascii:]",
  "[:alnum:]",
  "[",
  "\\[",
  "\\]",
  "\\pL",
  "\\p{Greek}",
  "\\P{Lu}",
  "é",
  "É-ë",
  "K",
  "k-s",
  "&&",
  "^",
  "\\x41",
  "\\101",
  "😀",
  "\\x{10FFFF}",
  "\\f",
  "\\t",
  " ",
  "\\x{2028}",
  "\\x{85}",
  "ſ",
  "ς",
  "\\^",
  "\\.",
  "\\:",
];

/** Class items Go refuses. */
const BAD_CLASS_ITEMS = [
  "z-a",
  "a-\\d",
  "[:foo:]",
  "[:Alpha:]",
  "\\p{Cn}",
  "\\Q",
  "\\b",
  "\\B",
  "\\A",
  "\\u0041",
  "\\z",
  "\\p{Alphabetic}",
  "\\cJ",
];

const GROUP_OPEN = [
  "(",
  "(?:",
  "(?i:",
  "(?s:",
  "(?m:",
  "(?U:",
  "(?i-s:",
  "(?-i:",
  "(?im:",
  "(?P<n>",
  "(?<n>",
  "(?P<m>",
  "(?<name_1>",
  "(?<n1>",
  "(?P<_>",
  "(?sm:",
  "(?-s:",
  "(?i-U:",
  "(",
  "(",
  "(?:",
];

/** Group openings Go refuses (lookaround, Perl-only groups, bad names). */
const BAD_GROUP_OPEN = [
  "(?P<>",
  "(?P<a-b>",
  "(?<1>",
  "(?=",
  "(?!",
  "(?<=",
  "(?<!",
  "(?#",
  "(?>",
  "(?|",
  "(?P=n)",
  "(?'n'",
  "(?x:",
  "(?z:",
  "(?i",
  "(?-:",
  "(?P>n)",
  "(?<n",
  "(?P<é>",
  "(?<>",
];

const FLAGS = [
  "(?i)",
  "(?m)",
  "(?s)",
  "(?U)",
  "(?ims)",
  "(?-m)",
  "(?i-m)",
  "(?sU)",
  "(?)",
  "(?-)",
  "(?m-)",
];

const REPEAT = [
  "*",
  "+",
  "?",
  "*?",
  "+?",
  "??",
  "{2}",
  "{0}",
  "{1,}",
  "{0,3}",
  "{1000}",
  "{1000,}",
  "{0,1000}",
  "{2}?",
  "{100}",
  "{500}",
  "{3,5}",
  "{1,2}?",
  "{,3}",
  "{}",
  "{a}",
  "{1",
  "{1,2",
];

/** Repeats Go refuses (counts over 1000, nested operators, bad ranges). */
const BAD_REPEAT = [
  "{1001}",
  "{1001,}",
  "{0,1001}",
  "{2,1}",
  "{2}{3}",
  "**",
  "++",
  "*+",
  "{3}*",
  "?+",
  "{99999999999}",
];

/** Pick from a list, or occasionally anything at all from a wider pool. */
function atom(r: Rng, depth: number): string {
  const k = r.int(100);
  if (k < 28) return r.pick(LIT);
  if (k < 48) return r.chance(0.12) ? r.pick(BAD_ESC) : r.pick(ESC);
  if (k < 62) return charClass(r);
  if (k < 72 && depth < 3) return group(r, depth + 1);
  if (k < 78) return r.pick(["^", "$", "."]);
  if (k < 82) return r.pick(FLAGS);
  if (k < 84) {
    return r.chance(0.3)
      ? r.pick(["|", ")", "(", "[", "*", "+", "?", "\\"])
      : r.pick(["]", "{", "}", "-", ",", "|"]);
  }
  return r.pick(LIT) + r.pick(LIT);
}

function charClass(r: Rng): string {
  let s = "[";
  if (r.chance(0.25)) s += "^";
  if (r.chance(0.15)) s += "]";
  const n = r.int(4) + (r.chance(0.1) ? 0 : 1);
  for (let i = 0; i < n; i++) s += r.chance(0.06) ? r.pick(BAD_CLASS_ITEMS) : r.pick(CLASS_ITEMS);
  if (r.chance(0.1)) s += "-";
  return r.chance(0.96) ? s + "]" : s;
}

function group(r: Rng, depth: number): string {
  const open = r.chance(0.12) ? r.pick(BAD_GROUP_OPEN) : r.pick(GROUP_OPEN);
  if (open.endsWith(")")) return open;
  return open + seq(r, depth, 1 + r.int(3)) + (r.chance(0.95) ? ")" : "");
}

function seq(r: Rng, depth: number, n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) {
    s += atom(r, depth);
    if (r.chance(0.25)) s += r.chance(0.12) ? r.pick(BAD_REPEAT) : r.pick(REPEAT);
    if (r.chance(0.08)) s += "|";
  }
  return s;
}

/** Patterns as people write them for node names, and the classic blow-ups. */
const SHAPES = [
  "^[\\w-]*\\.test\\.ch$",
  "^(a+)+$",
  "^(a|aa)+$",
  "(x+x+)+y",
  "^ip-\\d{1,3}(-\\d{1,3}){3}\\.ec2\\.internal$",
  "(?i)^node-[0-9]+\\.(prod|stage)\\.example\\.com$",
  "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
  "(?m)^a$",
  "(?m)a$",
  "(?m)^b",
  "(?s)a.b",
  "a.b",
  "^\\s$",
  "\\s+",
  "^[[:alpha:]]+$",
  "^[[:^alpha:]]+$",
  "^\\pL+$",
  "\\bfoo\\b",
  "^\\Q.example.com\\E$",
  "((a{10}){10}){10}",
  "((a{100}){10}){10}",
  "(a{500}){3}",
  "^(?:[a-z]+\\.)*cluster\\.local$",
  "(?U)a+",
  "(?U)a+?",
  "^$",
  "(?m)^$",
  "\\A\\z",
  "(?P<n>a)|(?P<n>b)",
  "(?<n>a)(?<n>b)",
  "(?P<n>a)(?P<n>b)(?P<n>c)",
  "(?i)k",
  "(?i)\\x{212a}",
  "(?i)ſ",
  "(?i)σ",
  "(?i)[k]",
  "(?i)[^k]",
  "[^\\n]",
  "(?s)[^a]",
  "\\v",
  "[\\v]",
  "(?i)ǅ",
  "(?i)Å",
];

function input(r: Rng, pattern: string): string {
  const s = shortInput(r, pattern);
  // Long inputs take re2js's other engines (DFA, NFA, prefilter) instead of its backtracker.
  if (s.length > 0 && r.chance(0.04)) {
    const long = s.repeat(Math.ceil(3000 / s.length));
    return r.chance(0.5) ? long : long + r.pick(LIT) + s;
  }
  return s;
}

function shortInput(r: Rng, pattern: string): string {
  // Characters the pattern mentions make matches likely; the rest make edge cases.
  const own = [...pattern].filter((c) => !"\\()[]{}|*+?^$".includes(c));
  if (own.length > 0 && r.chance(0.3)) {
    // The pattern's own characters in order, some dropped or doubled: literal-heavy patterns match.
    let t = r.chance(0.3) ? r.pick(LIT) : "";
    for (const c of own) t += r.chance(0.15) ? "" : r.chance(0.1) ? c + c : c;
    return t + (r.chance(0.3) ? r.pick(LIT) : "");
  }
  const n = r.chance(0.1) ? 0 : r.int(12);
  let s = "";
  for (let i = 0; i < n; i++) {
    s += own.length > 0 && r.chance(0.55) ? r.pick(own) : r.pick(LIT);
  }
  if (r.chance(0.05)) s = r.pick(["a".repeat(40), "a".repeat(40) + "!", "x".repeat(50)]);
  return s;
}

const BYTES = [
  0x61,
  0x0a,
  0x0d,
  0x80,
  0xbf,
  0xc0,
  0xc3,
  0xa9,
  0xe2,
  0x82,
  0xac,
  0xed,
  0xa0,
  0xf0,
  0x9f,
  0xff,
  0xf4,
  0x90,
];

/** Letters whose case folding matters, for alternations the parser factors. */
const FOLDY = ["a", "A", "b", "B", "k", "K", "\u212a", "σ", "Σ", "ς", "0", "s", "\u017f"];

/**
 * An alternation of arms sharing prefixes, each arm case-sensitive or not
 * (`(?i:…)`, a `(?i)` mid-arm, `[aA]`): the parser's factoring of common
 * prefixes and first pieces is where folded and unfolded literals meet
 * (golang/go#59007).
 */
function factoringPattern(r: Rng): string {
  const base = Array.from({ length: 1 + r.int(2) }, () => r.pick(FOLDY)).join("");
  const arms = Array.from({ length: 2 + r.int(3) }, () => {
    let arm = base.slice(0, 1 + r.int(base.length)) +
      Array.from({ length: r.int(3) }, () => r.pick(FOLDY)).join("");
    if (r.chance(0.2)) arm += r.pick(["+", "*", "?", "{2}", "[aA]", "."]);
    const w = r.int(5);
    if (w === 0) arm = `(?i:${arm})`;
    else if (w === 1) arm = `${arm.slice(0, 1)}(?i)${arm.slice(1)}`;
    else if (w === 2) arm = `[${arm[0]}${arm[0]!.toUpperCase()}]${arm.slice(1)}`;
    return arm;
  });
  return (r.chance(0.2) ? "(?i)" : "") + (r.chance(0.3) ? "^(?:" : "(") + arms.join("|") + ")" +
    (r.chance(0.3) ? "$" : "");
}

/** One case. */
export function regexpCase(r: Rng): RegexpCase {
  let p: string;
  const k = r.int(100);
  if (k < 18) p = r.pick(SHAPES);
  else if (k < 25) p = r.pick(SHAPES) + seq(r, 1, 1);
  else if (k < 32) {
    p = factoringPattern(r);
    const s = Array.from({ length: r.int(6) }, () => r.pick(FOLDY)).join("");
    return { p, s: r.chance(0.5) ? s : input(r, p) };
  } else p = (r.chance(0.15) ? r.pick(FLAGS) : "") + seq(r, 0, 1 + r.int(5));
  if (r.chance(0.08)) {
    // Raw bytes: invalid UTF-8 that Go reads as U+FFFD one byte at a time.
    const b = Uint8Array.from({ length: r.int(6) }, () => r.pick(BYTES));
    return { p, s: "", b: btoa(String.fromCharCode(...b)) };
  }
  return { p, s: input(r, p) };
}

/**
 * The one known difference between re2js and Go 1.23 that lib/go/regexp.ts
 * cannot reach: re2js's parser refuses a pattern as "expression too large"
 * above 1,398,101 size units (RE2/J's limit), Go above 3,355,443
 * (`maxSize` in regexp/syntax). Between the two, Go accepts the pattern or
 * goes on to a later error (typically "invalid repeat count" of the same
 * nested repeat). Only patterns with large counted repeats get there.
 * Returns the rule's id when a disagreement is exactly that.
 */
export function knownRegexpDifference(
  pattern: string,
  go: { ok?: boolean; err?: string },
  joinkit: { ok?: boolean; err?: string } | { unavailable: string },
): string | undefined {
  if (
    !("ok" in joinkit) || joinkit.ok !== false ||
    !joinkit.err?.startsWith("error parsing regexp: expression too large: ")
  ) {
    return undefined;
  }
  if (go.err?.startsWith("error parsing regexp: expression too large: ")) return undefined;
  return /\{(?:\d{3,}(?:,\d*)?|\d*,\d{3,})\}/.test(pattern) ? "re2js-size-limit" : undefined;
}
