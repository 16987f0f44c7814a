/**
 * Reading the simple YAML that fleets of generated manifests are written in
 * (as kubectl and joinkit write them) directly, several times faster than a
 * YAML parser: block maps with two-space indents and plain keys, block
 * sequences not indented, and one-line values that YAML 1.1 reads one way
 * only. Anything else is left to the parser (`undefined`).
 *
 * @module
 */

// The simple YAML that fleets of generated manifests are written in, as
// kubectl and joinkit write it: block maps with two-space indents and plain
// keys, block sequences not indented (`- ` at the key's column), and
// one-line values that YAML 1.1 reads one way only: plain strings that start
// with a letter (no indicator, single spaces, not a keyword), double-quoted
// strings without escapes, decimal integers, true and false.
const KEY_LINE = /([A-Za-z][A-Za-z0-9._/-]*):(?: (.+))?$/y;
const PLAIN_VALUE =
  /^[A-Za-z](?:[A-Za-z0-9._/+=@-]|:(?=[^ ]))*(?: (?:[A-Za-z0-9._/+=@-]|:(?=[^ ]))+)*$/;
const QUOTED_VALUE = /^"[ !#-[\]-~]*"$/;
const INT_VALUE = /^(?:0|[1-9][0-9]{0,14})$/;
const YAML11_WORDS = new Set(["y", "n", "yes", "no", "on", "off", "true", "false", "null"]);

/** Thrown inside {@link simpleDocuments} when a line is not that simple. */
const NOT_SIMPLE = new Error("not simple YAML");

/** Code units of a plain word after its first letter (PLAIN_VALUE without spaces and colons). */
const WORD_CHAR = new Uint8Array(128);
for (const c of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/+=@-") {
  WORD_CHAR[c.charCodeAt(0)] = 1;
}

/** The common case of PLAIN_VALUE (a letter, then word characters only), without the regex. */
function plainWord(v: string): boolean {
  const c = v.charCodeAt(0);
  if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122))) return false;
  for (let i = 1; i < v.length; i++) {
    const d = v.charCodeAt(i);
    if (d >= 128 || WORD_CHAR[d] === 0) return false;
  }
  return true;
}

function simpleScalar(v: string): unknown {
  if (plainWord(v) || PLAIN_VALUE.test(v)) {
    if (v === "true") return true;
    if (v === "false") return false;
    if (v.length <= 5 && YAML11_WORDS.has(v.toLowerCase())) throw NOT_SIMPLE;
    return v;
  }
  if (QUOTED_VALUE.test(v)) return v.slice(1, -1);
  if (INT_VALUE.test(v)) return Number(v);
  throw NOT_SIMPLE;
}

/**
 * The string {@link simpleDocuments} reads the one-line value `v` as (what
 * follows `key: `), or undefined when it reads something else (a number, a
 * boolean) or leaves the value to the parser.
 *
 * @example
 * ```ts
 * import { simpleString } from "./simple_yaml.ts";
 * simpleString("kube-system"); // "kube-system"
 * simpleString('"yes"'); // "yes"
 * simpleString("yes"); // undefined (left to the parser: a YAML 1.1 boolean)
 * ```
 */
export function simpleString(v: string): string | undefined {
  if (plainWord(v)) {
    return v.length <= 5 && YAML11_WORDS.has(v.toLowerCase()) ? undefined : v;
  }
  try {
    const s = simpleScalar(v);
    return typeof s === "string" ? s : undefined;
  } catch (e) {
    if (e === NOT_SIMPLE) return undefined;
    throw e;
  }
}

/**
 * The documents of a stream written in simple YAML (see above; `---` lines
 * between documents, no empty document, no comment, no blank line, no
 * duplicate key), exactly as the YAML parser would return them, or
 * undefined when any line is not that simple: the parser then reads it all.
 * Reading such a stream directly is several times faster than the parser.
 */
export function simpleDocuments(text: string, maxDepth: number): unknown[] | undefined {
  if (text.length === 0) return undefined;
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  let i = 0;
  const indentOf = (line: string) => {
    let n = 0;
    while (line.charCodeAt(n) === 32) n++;
    return n;
  };
  const map = (n: number): Record<string, unknown> => {
    // Deep nesting is left to the parser, which refuses it (and this reader recurses). So
    // what this reader returns nests less than maxDepth (a map and a list per indent).
    if (n > maxDepth - 4) throw NOT_SIMPLE;
    const obj: Record<string, unknown> = {};
    let keys = 0;
    while (i < lines.length) {
      const line = lines[i]!;
      if (line === "---") break;
      const ind = indentOf(line);
      if (ind < n) break;
      if (ind > n) throw NOT_SIMPLE;
      KEY_LINE.lastIndex = n;
      const m = KEY_LINE.exec(line);
      if (m === null) throw NOT_SIMPLE;
      const key = m[1]!;
      if (Object.hasOwn(obj, key)) throw NOT_SIMPLE;
      i++;
      keys++;
      if (m[2] !== undefined) {
        obj[key] = simpleScalar(m[2]);
        continue;
      }
      const next = lines[i];
      if (next === undefined) throw NOT_SIMPLE;
      const nind = indentOf(next);
      if (nind === n && next.startsWith("- ", n)) obj[key] = seq(n);
      else if (nind === n + 2) obj[key] = map(n + 2);
      else throw NOT_SIMPLE;
    }
    if (keys === 0) throw NOT_SIMPLE;
    return obj;
  };
  const seq = (n: number): unknown[] => {
    const arr: unknown[] = [];
    while (i < lines.length) {
      const line = lines[i]!;
      if (indentOf(line) !== n || !line.startsWith("- ", n)) break;
      const rest = line.slice(n + 2);
      KEY_LINE.lastIndex = 0;
      if (KEY_LINE.test(rest)) {
        // A map item: its first key sits after the dash, the others under it.
        lines[i] = " ".repeat(n + 2) + rest;
        arr.push(map(n + 2));
      } else {
        arr.push(simpleScalar(rest));
        i++;
      }
    }
    return arr;
  };
  const docs: unknown[] = [];
  try {
    if (lines[0] === "---") i++;
    for (;;) {
      docs.push(map(0));
      if (i >= lines.length) break;
      if (lines[i] !== "---") throw NOT_SIMPLE;
      i++;
      if (i >= lines.length) throw NOT_SIMPLE; // an empty last document
    }
  } catch (e) {
    if (e === NOT_SIMPLE) return undefined;
    throw e;
  }
  return docs;
}
