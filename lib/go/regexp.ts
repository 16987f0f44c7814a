/**
 * Go's `regexp` (RE2 syntax and semantics) for policies written for Go
 * programs (kubelet-csr-approver's `--provider-regex`), on `re2js`, a
 * JavaScript port of RE2/J: linear-time matching (no backtracking, so a
 * pattern like `^(a+)+$` cannot be made to run for seconds), RE2's syntax
 * and RE2's matching rules (`(?m)` lines end only at `\n`, `\s` is
 * `[\t\n\f\r ]`, `.` excludes only `\n`, leftmost-first).
 *
 * re2js follows Go's `regexp/syntax` closely but not exactly; this wrapper
 * makes it give what Go 1.23 gives (the Go the oracle judges with; newer
 * kubelet-csr-approver releases are built with Go 1.25/1.26, whose `\p{…}`
 * also takes aliases such as `Letter`: docs/go-exact.md), each difference
 * tested in tests/go/regexp_test.ts and the oracle:
 *
 * - error texts: Go always prints `error parsing regexp: <code>: \`<expr>\``
 *   (a trailing backslash has an empty expr; "expression too large" and
 *   "expression nests too deeply" name the whole pattern), re2js drops the
 *   empty or missing part;
 * - `\p{…}` / `\pX`: Go 1.23 knows only `Any`, the Unicode general
 *   categories and scripts of its `unicode` package (Unicode 15.0.0), by
 *   exact name; re2js also takes binary properties (`Alphabetic`, `Emoji`),
 *   `Cn`, `LC` and scripts of Unicode 16/17 (`Garay`). Those are refused with
 *   Go's text, at the place in the pattern where Go refuses them;
 * - duplicate group names: Go 1.23 accepts `(?P<n>a)|(?P<n>b)`, re2js
 *   refuses it; the duplicates are renamed before re2js sees them (names
 *   play no part in matching).
 *
 * Not followed: Go 1.23's bug golang/go#59007 (`0A|0[aA]` does not match
 * `0a` there), fixed in Go's sources after 1.23; re2js matches as written.
 *
 * Known, bounded difference: re2js's tables are Unicode 17.0, Go 1.23's
 * 15.0, so a character assigned after Unicode 15.0 (e.g. U+1C89) can belong
 * to a class (`\pL`, `\p{Lu}`, a `(?i)` fold) here and not in Go. Approval
 * matches DNS SANs, which Go's x509 parser only lets through as ASCII, where
 * the two agree.
 *
 * @module
 */

import { RE2JS, RE2JSSyntaxException } from "re2js";

/** The `\p{…}` names Go 1.23's `regexp/syntax` accepts (`unicode.Categories`, `unicode.Scripts`, `Any`). */
const GO_UNICODE_NAMES: ReadonlySet<string> = new Set(
  (
    "Any C Cc Cf Co Cs L Ll Lm Lo Lt Lu M Mc Me Mn N Nd Nl No P Pc Pd Pe Pf Pi Po Ps S Sc Sk Sm So Z Zl Zp Zs " +
    "Adlam Ahom Anatolian_Hieroglyphs Arabic Armenian Avestan Balinese Bamum Bassa_Vah Batak Bengali " +
    "Bhaiksuki Bopomofo Brahmi Braille Buginese Buhid Canadian_Aboriginal Carian Caucasian_Albanian Chakma " +
    "Cham Cherokee Chorasmian Common Coptic Cuneiform Cypriot Cypro_Minoan Cyrillic Deseret Devanagari " +
    "Dives_Akuru Dogra Duployan Egyptian_Hieroglyphs Elbasan Elymaic Ethiopic Georgian Glagolitic Gothic " +
    "Grantha Greek Gujarati Gunjala_Gondi Gurmukhi Han Hangul Hanifi_Rohingya Hanunoo Hatran Hebrew Hiragana " +
    "Imperial_Aramaic Inherited Inscriptional_Pahlavi Inscriptional_Parthian Javanese Kaithi Kannada Katakana " +
    "Kawi Kayah_Li Kharoshthi Khitan_Small_Script Khmer Khojki Khudawadi Lao Latin Lepcha Limbu Linear_A " +
    "Linear_B Lisu Lycian Lydian Mahajani Makasar Malayalam Mandaic Manichaean Marchen Masaram_Gondi " +
    "Medefaidrin Meetei_Mayek Mende_Kikakui Meroitic_Cursive Meroitic_Hieroglyphs Miao Modi Mongolian Mro " +
    "Multani Myanmar Nabataean Nag_Mundari Nandinagari New_Tai_Lue Newa Nko Nushu Nyiakeng_Puachue_Hmong " +
    "Ogham Ol_Chiki Old_Hungarian Old_Italic Old_North_Arabian Old_Permic Old_Persian Old_Sogdian " +
    "Old_South_Arabian Old_Turkic Old_Uyghur Oriya Osage Osmanya Pahawh_Hmong Palmyrene Pau_Cin_Hau Phags_Pa " +
    "Phoenician Psalter_Pahlavi Rejang Runic Samaritan Saurashtra Sharada Shavian Siddham SignWriting Sinhala " +
    "Sogdian Sora_Sompeng Soyombo Sundanese Syloti_Nagri Syriac Tagalog Tagbanwa Tai_Le Tai_Tham Tai_Viet " +
    "Takri Tamil Tangsa Tangut Telugu Thaana Thai Tibetan Tifinagh Tirhuta Toto Ugaritic Vai Vithkuqi Wancho " +
    "Warang_Citi Yezidi Yi Zanabazar_Square"
  ).split(" "),
);

/** A pattern Go's `regexp.Compile` refuses: `code` and `expr` of its `*syntax.Error`. */
export class GoRegexpError extends Error {
  /** The `syntax.ErrorCode` text, e.g. `invalid escape sequence`. */
  readonly code: string;
  /** The offending part of the pattern, as Go quotes it. */
  readonly expr: string;
  constructor(code: string, expr: string) {
    super(`error parsing regexp: ${code}: \`${expr}\``);
    this.name = "GoRegexpError";
    this.code = code;
    this.expr = expr;
  }
}

/** A compiled Go regexp (what `regexp.Compile` returns, for matching). */
export interface GoRegexp {
  /** The pattern as given. */
  readonly pattern: string;
  /** Go's `MatchString`: whether the pattern matches anywhere in `s` (unanchored). */
  matchString(s: string): boolean;
  /** Go's `Match` on bytes: invalid UTF-8 reads as U+FFFD, one byte at a time. */
  match(b: Uint8Array): boolean;
}

/**
 * A JavaScript string as the Go string it stands for: a lone surrogate
 * (only reachable through a JSON `\ud800` escape, which Go's decoder turns
 * into U+FFFD) becomes U+FFFD.
 */
function goString(s: string): string {
  return s.isWellFormed() ? s : s.toWellFormed();
}

/** Where the pattern holds `\p` names Go refuses and repeated group names. */
interface Scan {
  /** `[start, end)` of each `\p…`/`\P…` whose name Go 1.23 does not know. */
  badProps: [number, number][];
  /** `[start, end)` of each group name already used earlier in the pattern. */
  dupNames: [number, number][];
}

/**
 * Walks the pattern as Go's parser tokenizes it (escapes, `\Q…\E`, classes
 * with a leading `]` and `[:name:]`, named groups). Only its findings on
 * parts re2js parses the same way matter: everything it replaces is
 * re-parsed by re2js, which reports any earlier error first.
 */
function scan(p: string): Scan {
  const out: Scan = { badProps: [], dupNames: [] };
  const names = new Set<string>();
  let inClass = false;
  let classStart = 0;
  let i = 0;
  const cpLen = (at: number) => (p.codePointAt(at)! > 0xffff ? 2 : 1);
  while (i < p.length) {
    const c = p[i]!;
    if (c === "\\") {
      const n = p[i + 1];
      if (n === undefined) break;
      if (n === "Q" && !inClass) {
        const end = p.indexOf("\\E", i + 2);
        i = end < 0 ? p.length : end + 2;
        continue;
      }
      if (n === "p" || n === "P") {
        const start = i;
        let name: string;
        let end: number;
        if (p[i + 2] === "{") {
          const close = p.indexOf("}", i + 3);
          if (close < 0) break; // Go and re2js both refuse this here
          name = p.slice(i + 3, close);
          end = close + 1;
        } else if (i + 2 < p.length) {
          end = i + 2 + cpLen(i + 2);
          name = p.slice(i + 2, end);
        } else break;
        if (name.startsWith("^")) name = name.slice(1);
        if (!GO_UNICODE_NAMES.has(name)) out.badProps.push([start, end]);
        i = end;
        continue;
      }
      i += 1 + cpLen(i + 1);
      continue;
    }
    if (inClass) {
      if (c === "[" && p[i + 1] === ":") {
        const close = p.indexOf(":]", i + 2);
        if (close >= 0) {
          i = close + 2;
          continue;
        }
      }
      if (c === "]" && i > classStart) inClass = false;
      i += cpLen(i);
      continue;
    }
    if (c === "[") {
      inClass = true;
      i++;
      if (p[i] === "^") i++;
      classStart = i; // a `]` here is a literal
      continue;
    }
    if (c === "(" && p[i + 1] === "?") {
      const at = p.startsWith("(?P<", i) && p.length - i > 4
        ? i + 4
        : p[i + 2] === "<" && p.length - i > 3
        ? i + 3
        : -1;
      if (at >= 0) {
        const close = p.indexOf(">", at);
        if (close < 0) break;
        const name = p.slice(at, close);
        if (names.has(name)) out.dupNames.push([at, close]);
        names.add(name);
        i = close + 1;
        continue;
      }
    }
    i += cpLen(i);
  }
  return out;
}

/** A character absent from `p`, to build markers that cannot collide with its text. */
function absentChar(p: string): string {
  for (let c = 0xe000;; c++) {
    const ch = String.fromCharCode(c);
    if (!p.includes(ch)) return ch;
  }
}

/**
 * Go's `regexp.Compile`: compiles `pattern` with Go 1.23's syntax, or
 * throws {@link GoRegexpError} with Go's exact message.
 */
export function compileGoRegexp(pattern: string): GoRegexp {
  const p = goString(pattern);
  const { badProps, dupNames } = scan(p);
  // Rewrite what re2js would judge differently: unknown `\p` names become
  // names re2js refuses too (so the refusal comes at the same point of the
  // parse), duplicate group names become fresh ones. Both are mapped back
  // in error texts.
  const edits = [
    ...badProps.map(([s, e]) => ({ s, e, kind: "prop" as const })),
    ...dupNames.map(([s, e]) => ({ s, e, kind: "name" as const })),
  ].sort((a, b) => a.s - b.s);
  let src = p;
  const back = new Map<string, string>();
  if (edits.length > 0) {
    const mark = absentChar(p);
    let out = "";
    let at = 0;
    edits.forEach((ed, k) => {
      // A group name must stay [A-Za-z0-9_]+: the marker is a run of `_` longer than any in p.
      const fresh = ed.kind === "prop" ? `\\p{${mark}${k}${mark}}` : nameMarker(p, k);
      back.set(fresh, p.slice(ed.s, ed.e));
      out += p.slice(at, ed.s) + fresh;
      at = ed.e;
    });
    src = out + p.slice(at);
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(src);
  } catch (e) {
    if (!(e instanceof RE2JSSyntaxException)) throw e;
    const code = e.error;
    let expr = e.input ?? "";
    if (code === "expression too large" || code === "expression nests too deeply") expr = p;
    else if (expr === src) expr = p;
    else for (const [fresh, orig] of back) expr = expr.split(fresh).join(orig);
    throw new GoRegexpError(code, expr);
  }
  return {
    pattern,
    matchString: (s: string) => re.test(goString(s)),
    match: (b: Uint8Array) => re.test(b),
  };
}

/** The k-th fresh group name for `p`: `_…_k_…_` with runs of `_` longer than any in `p`. */
function nameMarker(p: string, k: number): string {
  const longest = Math.max(0, ...(p.match(/_+/g) ?? []).map((r) => r.length));
  const run = "_".repeat(longest + 1);
  return `${run}${k}${run}`;
}
