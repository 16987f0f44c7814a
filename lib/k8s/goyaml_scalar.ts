/**
 * One string scalar written the way go-yaml v2.4.0's emitter writes it (the
 * copy sigs.k8s.io/yaml vendors as `goyaml.v2`, which kubectl and kubeadm
 * v1.32 marshal with): its choice of plain, single-quoted, double-quoted or
 * literal style, its escapes (`\x7F`, `\N`, `\L`, `\P`, `\U0001F600`; every
 * character of a string that starts with a BOM), and its folding of long
 * lines at spaces past column 80.

 * go-yaml reads every string it writes back unchanged (checked for each case
 * of the fixture). kubectl's own path (`json.Marshal`, then go-yaml reads the
 * JSON and writes YAML) differs for two kinds of value: one holding DEL or a C1
 * control fails there ("control characters are not allowed"), and a raw NEL
 * comes out as a space; joinkit writes go-yaml's direct output for both.
 *
 * Facts checked against go-yaml itself: tests/fixtures/yaml/goyaml_marshal.json.
 *
 * @module
 */

import { goResolvesNonString } from "./manifest.ts";

/** go-yaml's preferred line width (`best_width`, never changed by sigs.k8s.io/yaml or kubectl). */
const BEST_WIDTH = 80;
/** go-yaml's indent step (`best_indent`). */
const BEST_INDENT = 2;

/** libyaml's `is_printable` over code points (astral characters are not printable there). */
function printable(c: number): boolean {
  return c === 0x0a || (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xd7ff) ||
    (c >= 0xe000 && c <= 0xfffd && c !== 0xfeff);
}

/** libyaml's `is_break`: CR, LF, NEL, LS, PS. */
function isBreak(c: number): boolean {
  return c === 0x0a || c === 0x0d || c === 0x85 || c === 0x2028 || c === 0x2029;
}

/** libyaml's `is_blankz` (the end of the string is handled by the caller). */
function isBlankz(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0 || isBreak(c);
}

type Style = "plain" | "single" | "double" | "literal";

/** What `yaml_emitter_analyze_scalar` and `yaml_emitter_select_scalar_style` decide. */
function selectStyle(cps: readonly number[], text: string, key: boolean): Style {
  // The encoder: a string containing "\n" asks for a literal block, one that
  // resolves to another type for double quotes, any other for plain.
  const wanted: Style = text.includes("\n")
    ? "literal"
    : goResolvesNonString(text)
    ? "double"
    : "plain";
  const n = cps.length;
  let blockPlain = true;
  let single = true;
  let block = true;
  let multiline = false;
  if (n === 0) {
    block = false;
  } else {
    let blockIndicators = text.startsWith("---") || text.startsWith("...");
    let leadingSpace = false, leadingBreak = false, trailingSpace = false, trailingBreak = false;
    let breakSpace = false, spaceBreak = false, special = false;
    let prevSpace = false, prevBreak = false, precededByWs = true;
    for (let i = 0; i < n; i++) {
      const c = cps[i]!;
      const next = cps[i + 1];
      const followedByWs = next === undefined || next === 0x20 || next === 0x09;
      if (i === 0) {
        if ("#,[]{}&*!|>'\"%@`".includes(String.fromCharCode(c))) blockIndicators = true;
        else if ((c === 0x3f || c === 0x3a || c === 0x2d) && followedByWs) blockIndicators = true;
      } else if (c === 0x3a && followedByWs) {
        blockIndicators = true;
      } else if (c === 0x23 && precededByWs) {
        blockIndicators = true;
      }
      if (!printable(c)) special = true;
      if (c === 0x20) {
        if (i === 0) leadingSpace = true;
        if (i === n - 1) trailingSpace = true;
        if (prevBreak) breakSpace = true;
        prevSpace = true;
        prevBreak = false;
      } else if (isBreak(c)) {
        multiline = true;
        if (i === 0) leadingBreak = true;
        if (i === n - 1) trailingBreak = true;
        if (prevSpace) spaceBreak = true;
        prevSpace = false;
        prevBreak = true;
      } else {
        prevSpace = false;
        prevBreak = false;
      }
      precededByWs = isBlankz(c);
    }
    if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) blockPlain = false;
    if (trailingSpace) block = false;
    if (breakSpace) blockPlain = single = false;
    if (spaceBreak || special) blockPlain = single = block = false;
    if (multiline || blockIndicators) blockPlain = false;
  }
  let style: Style = wanted;
  if (key && multiline) style = "double";
  if (style === "plain" && (!blockPlain || (n === 0 && key))) style = "single";
  if (style === "single" && !single) style = "double";
  if (style === "literal" && (!block || key)) style = "double";
  return style;
}

const ESCAPES: Record<number, string> = {
  0x00: "0",
  0x07: "a",
  0x08: "b",
  0x09: "t",
  0x0a: "n",
  0x0b: "v",
  0x0c: "f",
  0x0d: "r",
  0x1b: "e",
  0x22: '"',
  0x5c: "\\",
  0x85: "N",
  0xa0: "_",
  0x2028: "L",
  0x2029: "P",
};

/** The emitter's output and its column/indention state while one scalar is written. */
class Writer {
  out = "";
  whitespace = false;
  indention = false;
  constructor(public column: number, readonly indent: number) {}

  put(s: string): void {
    this.out += s;
    this.column += s.length;
  }
  /** One character of the value (one column, whatever its width). */
  char(c: number): void {
    this.out += String.fromCodePoint(c);
    this.column++;
  }
  putBreak(): void {
    this.out += "\n";
    this.column = 0;
  }
  /** A break of the value: LF as a newline, any other break copied as it is. */
  writeBreak(c: number): void {
    if (c === 0x0a) this.putBreak();
    else {
      this.out += String.fromCodePoint(c);
      this.column = 0;
    }
  }
  writeIndent(): void {
    const indent = Math.max(this.indent, 0);
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) {
      this.putBreak();
    }
    while (this.column < indent) this.put(" ");
    this.whitespace = true;
    this.indention = true;
  }
  indicator(s: string, needWhitespace: boolean): void {
    if (needWhitespace && !this.whitespace) this.put(" ");
    this.put(s);
    this.whitespace = false;
    this.indention = false;
  }
}

function writePlain(w: Writer, cps: readonly number[], allowBreaks: boolean): void {
  if (!w.whitespace) w.put(" ");
  let spaces = false;
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i]!;
    if (c === 0x20) {
      if (allowBreaks && !spaces && w.column > BEST_WIDTH && cps[i + 1] !== 0x20) w.writeIndent();
      else w.char(c);
      spaces = true;
    } else {
      // No breaks: a scalar with one is never plain.
      w.char(c);
      w.indention = false;
      spaces = false;
    }
  }
}

function writeSingle(w: Writer, cps: readonly number[], allowBreaks: boolean): void {
  w.indicator("'", true);
  let spaces = false;
  let breaks = false;
  const n = cps.length;
  for (let i = 0; i < n; i++) {
    const c = cps[i]!;
    if (c === 0x20) {
      if (
        allowBreaks && !spaces && w.column > BEST_WIDTH && i > 0 && i < n - 1 && cps[i + 1] !== 0x20
      ) {
        w.writeIndent();
      } else w.char(c);
      spaces = true;
    } else if (isBreak(c)) {
      if (!breaks && c === 0x0a) w.putBreak();
      w.writeBreak(c);
      w.indention = true;
      breaks = true;
    } else {
      if (breaks) w.writeIndent();
      if (c === 0x27) w.put("'");
      w.char(c);
      w.indention = false;
      spaces = false;
      breaks = false;
    }
  }
  w.indicator("'", false);
}

function writeDouble(w: Writer, cps: readonly number[], allowBreaks: boolean): void {
  w.indicator('"', true);
  // libyaml's is_bom looks at the start of the value, not at the character.
  const bomStart = cps[0] === 0xfeff;
  let spaces = false;
  const n = cps.length;
  for (let i = 0; i < n; i++) {
    const c = cps[i]!;
    if (bomStart || !printable(c) || isBreak(c) || c === 0x22 || c === 0x5c) {
      const e = ESCAPES[c];
      if (e !== undefined) w.put("\\" + e);
      else {
        const [p, digits] = c <= 0xff ? ["x", 2] : c <= 0xffff ? ["u", 4] : ["U", 8];
        w.put("\\" + p + c.toString(16).toUpperCase().padStart(digits, "0"));
      }
      spaces = false;
    } else if (c === 0x20) {
      if (allowBreaks && !spaces && w.column > BEST_WIDTH && i > 0 && i < n - 1) {
        w.writeIndent();
        if (cps[i + 1] === 0x20) w.put("\\");
      } else w.char(c);
      spaces = true;
    } else {
      w.char(c);
      spaces = false;
    }
  }
  w.indicator('"', false);
}

/** The literal block. */
function writeLiteral(w: Writer, cps: readonly number[]): void {
  w.indicator("|", true);
  const n = cps.length;
  if (cps[0] === 0x20 || isBreak(cps[0]!)) w.indicator(String(BEST_INDENT), false);
  let chomp = "";
  if (!isBreak(cps[n - 1]!)) chomp = "-";
  else if (n === 1 || isBreak(cps[n - 2]!)) chomp = "+";
  if (chomp !== "") w.indicator(chomp, false);
  w.putBreak();
  w.indention = true;
  w.whitespace = true;
  let breaks = true;
  for (const c of cps) {
    if (isBreak(c)) {
      w.writeBreak(c);
      w.indention = true;
      breaks = true;
    } else {
      if (breaks) w.writeIndent();
      w.char(c);
      w.indention = false;
      breaks = false;
    }
  }
}

/** A scalar as {@link goYamlScalar} writes it. */
export interface GoYamlScalar {
  /** The text after the indicator (`key:` or `-`), starting with its space. */
  text: string;
  /** The text ends with a line break (a literal block): no newline follows it. */
  endsLine: boolean;
}

/**
 * `value` as go-yaml v2's `yaml.Marshal` writes a string, after an indicator
 * (`key:` or `-`) that ends at `column`, for a node whose container is at
 * `containerIndent` (a map's key column, a sequence's dash column). Keys
 * (`key` true) are never folded and never block scalars.
 *
 * @example
 * ```ts
 * goYamlScalar("a\x7fb", 1, 0).text; // ' "a\\x7Fb"'
 * goYamlScalar("x\u0085y", 1, 0).text; // ' "x\\Ny"'
 * ```
 */
export function goYamlScalar(
  value: string,
  column: number,
  containerIndent: number,
  key = false,
): GoYamlScalar {
  const cps: number[] = [];
  for (const ch of value) cps.push(ch.codePointAt(0)!);
  const style = selectStyle(cps, value, key);
  const w = new Writer(column, containerIndent + BEST_INDENT);
  // A key starts a line (after its indent), so no space goes before it.
  w.whitespace = key;
  if (style === "plain") writePlain(w, cps, !key);
  else if (style === "single") writeSingle(w, cps, !key);
  else if (style === "double") writeDouble(w, cps, !key);
  else writeLiteral(w, cps);
  return { text: w.out, endsLine: w.column === 0 };
}
