/**
 * Secret manifests read straight from their text into {@link DecodedSecret}s,
 * for fleets of token Secrets (`token create`'s output, ~410 bytes each):
 * the general path (`parseManifestChunk`, then `decodeSecret`) builds a
 * generic object per document and a string per line first. This reader
 * takes only the common simple shape and gives up (`undefined`) on anything
 * else in a chunk, which the caller then reads the general way; whatever
 * it returns is exactly what the general path gives for that chunk, with no
 * message (a document the general path would complain about, or skip, is
 * never taken here).
 *
 * The shape: documents separated by `---` lines (one may open the chunk),
 * each a Secret written as {@link simpleDocuments} reads it directly (keys at
 * the left margin, one level of two-space indented keys, one-line values),
 * with only the keys `decodeSecret` reads: `apiVersion` (`v1`), `kind`
 * (`Secret`), `type`, `metadata` with `name` and `namespace`, `data` (valid
 * base64 strings) and `stringData` (strings). Every line ends with a newline.
 * The same Secrets as the items of a YAML List the way kubectl writes one
 * (each item's first line `- ` and the others `  ` before the document's
 * own line): a chunk that is one such List document, or a part of a long
 * List read item by item (see `ManifestChunk.list`).
 *
 * @module
 */

import { MAX_INPUT_BYTES, MAX_OBJECTS } from "../base/limits.ts";
import { isObject } from "../base/object.ts";
import { type ChunkCounts, type ManifestChunk, MAX_DEPTH } from "./manifest.ts";
import { jsonListSecrets } from "./json_stream.ts";
import { decodeAsciiBase64, decodeBase64Strict, type DecodedSecret } from "./secret.ts";
import { simpleDocuments, simpleString } from "./simple_yaml.ts";

/**
 * The Secrets of `chunk` when every document is a Secret in the simple
 * shape (see the module), else `undefined`. Keeps `counts` as
 * `parseManifestChunk` does for the chunk, so the two can be mixed chunk by
 * chunk; the per-input bounds are its: a chunk over them is left to it.
 *
 * @example
 * ```ts
 * import { simpleSecretsChunk } from "./simple_secrets.ts";
 * const text = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  a: Yg==\n";
 * const counts = { documents: 0, objects: 0 };
 * simpleSecretsChunk({ source: "s.yaml", text, index: 0, last: true }, counts)![0]!.data.a; // "b"
 * ```
 */
export function simpleSecretsChunk(
  chunk: ManifestChunk,
  counts: ChunkCounts,
): DecodedSecret[] | undefined {
  if (chunk.text.length > MAX_INPUT_BYTES) return undefined;
  if (chunk.list !== undefined) return listPart(chunk, chunk.list, counts);
  const stream = readSimpleSecrets(chunk.text);
  if (stream !== undefined) return counted(chunk, counts, stream, stream.length);
  const list = readListDocument(chunk.text);
  return list === undefined ? undefined : counted(chunk, counts, list, 1);
}

/**
 * `secrets`, read from `documents` documents of `chunk`, with `counts` kept
 * as parseManifestChunk keeps them; undefined (counts untouched but for the
 * reset of an input's first chunk) where it would refuse them.
 */
function counted(
  chunk: ManifestChunk,
  counts: ChunkCounts,
  secrets: DecodedSecret[],
  documents: number,
): DecodedSecret[] | undefined {
  if (chunk.index === 0) {
    counts.documents = 0;
    counts.objects = 0;
  }
  // An input in one chunk is parsed without the running counts (parseManifests' numbering).
  const whole = chunk.index === 0 && chunk.last;
  const n = secrets.length;
  if (
    !whole && (counts.documents + documents > MAX_OBJECTS || counts.objects + n > MAX_OBJECTS)
  ) {
    return undefined;
  }
  if (n > MAX_OBJECTS) return undefined;
  if (!whole) {
    counts.documents += documents;
    counts.objects += n;
  }
  return secrets;
}

/** How readManifestChunks opens each part of a long YAML List's items. */
const LIST_PART_HEAD = "kind: List\nitems:\n";

/**
 * The Secrets of a part of a long YAML List read item by item (see
 * ManifestChunk.list): `kind: List`, `items:`, then items in the simple
 * shape, kubectl's way (see readDocuments). The List's other fields (its
 * last part) and JSON Lists are left to the general path. Counts as
 * parseManifestChunk counts such a part: its items, no document.
 */
function listPart(
  chunk: ManifestChunk,
  list: NonNullable<ManifestChunk["list"]>,
  counts: ChunkCounts,
): DecodedSecret[] | undefined {
  const text = chunk.text;
  // A JSON List's part: its Secrets when its reader could read them all (json_stream.ts).
  if (list.json === true) return jsonListSecrets(chunk, counts);
  if (list.end || !text.startsWith(LIST_PART_HEAD)) return undefined;
  if (text.charCodeAt(text.length - 1) !== NL) return undefined;
  const read = readDocuments(text, LIST_PART_HEAD.length, true);
  if (read === undefined || read.end !== text.length) return undefined;
  const objectsBefore = chunk.index === 0 ? 0 : counts.objects;
  const n = read.secrets.length;
  // The List is document `list.document`; each item an object of the input.
  if (list.document > MAX_OBJECTS || objectsBefore + n > MAX_OBJECTS) return undefined;
  if (chunk.index === 0) counts.documents = 0;
  counts.objects = objectsBefore + n;
  return read.secrets;
}

/**
 * The Secrets of a chunk that is one YAML List document (after an optional
 * `---` line), as `kubectl get -o yaml` writes one: `items:` at the left
 * margin, its items in the simple shape (see readDocuments), and the
 * List's other fields simple YAML (lib/k8s/simple_yaml.ts) without flow
 * brackets, making one map whose `kind` ends in `List` and which has no
 * other `items`. Those lines stand on their own, so they mean the same
 * with the items cut out as in the whole document. Undefined otherwise.
 */
function readListDocument(text: string): DecodedSecret[] | undefined {
  const n = text.length;
  if (n === 0 || text.charCodeAt(n - 1) !== NL) return undefined;
  const begin = text.startsWith("---\n") ? 4 : 0;
  // A key opens the document (JSON, a comment… are the general path's: not searched).
  if (!isLetter(text.charCodeAt(begin))) return undefined;
  let at = begin;
  if (!text.startsWith("items:\n", begin)) {
    const i = text.indexOf("\nitems:\n", begin);
    if (i < 0) return undefined;
    at = i + 1;
  }
  const first = at + "items:\n".length;
  if (!text.startsWith("- ", first)) return undefined;
  const read = readDocuments(text, first, true);
  if (read === undefined) return undefined;
  const rest = text.slice(begin, at) + text.slice(read.end);
  // (Brackets, even quoted, count toward the general path's nesting bound: left to it.)
  if (rest.includes("[") || rest.includes("{")) return undefined;
  const docs = rest === "" ? undefined : simpleDocuments(rest, MAX_DEPTH);
  if (docs === undefined || docs.length !== 1) return undefined;
  const head = docs[0];
  if (!isObject(head) || Object.hasOwn(head, "items")) return undefined;
  return typeof head.kind === "string" && head.kind.endsWith("List") ? read.secrets : undefined;
}

const NL = 10;
const SPACE = 32;
const DASH = 45;
const COLON = 58;

/** Code units of a key after its first letter (simpleDocuments' key: `[A-Za-z][A-Za-z0-9._/-]*`). */
const KEY_CHAR = new Uint8Array(128);
for (const c of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/-") {
  KEY_CHAR[c.charCodeAt(0)] = 1;
}

function isLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

// What a line is. Top-level keys decodeSecret reads, one bit each (to refuse a duplicate);
// the keys of `metadata` it reads; an entry of `data` or `stringData`; a `---` line.
const API_VERSION = 1, KIND = 2, TYPE = 4, METADATA = 8, DATA = 16, STRING_DATA = 32;
const NAME = 64, NAMESPACE = 128, DATA_ENTRY = 256, STRING_ENTRY = 512, SEPARATOR = 1024;
const BLOCKS = METADATA | DATA | STRING_DATA;

/** One line read: what it is, its key and its value (decoded for `data`). */
interface Line {
  /** The map the line is in: 0 at the left margin, else the block's bit. */
  block: number;
  /** The line's text, its newline included. */
  text: string;
  /** One of the line bits above. */
  what: number;
  key: string;
  value: string;
  /** Where the value starts in `text`. */
  at: number;
}

/**
 * The lines of the last document read, by position: a fleet's documents
 * repeat most lines (type, namespace, usages, groups, expiration), which
 * are then neither cut out of the text nor checked again. One memo for
 * stream documents, one for List items (whose lines carry a `- ` or `  `
 * before the document's own text, so the same text means another line).
 */
const lineMemo: (Line | undefined)[] = [];
const itemLineMemo: (Line | undefined)[] = [];
/** The keys of the last document's lines, by position (for lines whose value differs). */
const keyMemo: (string | undefined)[] = [];
const MEMO_LINES = 64;

/** The end of the key starting at `p` (a letter), at its colon; -1 when there is none. */
function keyEnd(text: string, p: number): number {
  if (!isLetter(text.charCodeAt(p))) return -1;
  let q = p + 1;
  for (;;) {
    const c = text.charCodeAt(q);
    if (c === COLON) return q;
    if (!(c < 128 && KEY_CHAR[c] === 1)) return -1;
    q++;
  }
}

/** Which top-level key `text[p, end)` is (one of the bits above), 0 for any other. */
function topKey(text: string, p: number, end: number): number {
  switch (end - p) {
    case 4:
      return text.startsWith("kind", p)
        ? KIND
        : text.startsWith("type", p)
        ? TYPE
        : text.startsWith("data", p)
        ? DATA
        : 0;
    case 8:
      return text.startsWith("metadata", p) ? METADATA : 0;
    case 10:
      return text.startsWith("apiVersion", p)
        ? API_VERSION
        : text.startsWith("stringData", p)
        ? STRING_DATA
        : 0;
    default:
      return 0;
  }
}

/** The one-line value `text[start, end)` as simpleDocuments reads it, when a string. */
function stringAt(text: string, start: number, end: number): string | undefined {
  const raw = text.slice(start, end);
  // A bracket, even quoted, counts toward the general path's nesting bound: left to it.
  if (raw.includes("[") || raw.includes("{")) return undefined;
  const value = simpleString(raw);
  // A long slice keeps its whole chunk alive (V8 shares the text): kept values are copies.
  return value !== undefined && value.length >= 13 ? (value + " ").slice(0, -1) : value;
}

/**
 * A `data` value `text[start, end)` decoded as decodeSecret decodes it
 * (simpleString, then decodeBase64Strict), or undefined when it does not.
 * The common case (a plain word of more than five characters in the
 * base64 alphabet, padded, whose bytes are ASCII) is decoded here in place.
 */
function dataAt(text: string, start: number, end: number): string | undefined {
  // A plain word (base64 characters are word characters) and no YAML 1.1 keyword.
  if (end - start > 5 && isLetter(text.charCodeAt(start))) {
    const ascii = decodeAsciiBase64(text, start, end);
    if (ascii !== undefined) return ascii;
  }
  const s = simpleString(text.slice(start, end));
  return s === undefined ? undefined : decodeBase64Strict(s);
}

/**
 * Reads the line at `p` (ending at `eol`, a newline) inside `block` (0 at
 * the left margin): what it is, its key and value; undefined when it is
 * not in the simple shape. Depends on nothing else, so it can be remembered.
 */
function readLine(
  text: string,
  start: number,
  p: number,
  eol: number,
  block: number,
  j: number,
): Line | undefined {
  if (text.charCodeAt(p) === SPACE) {
    // `  key: value` in a block; anything deeper or shallower is not simple.
    if (block === 0 || text.charCodeAt(p + 1) !== SPACE) return undefined;
    const k0 = p + 2;
    // The key of the previous document's line here, when this line has it too.
    const known = keyMemo[j];
    const same = known !== undefined && text.startsWith(known, k0) &&
      text.charCodeAt(k0 + known.length) === COLON;
    const e = same ? k0 + known.length : keyEnd(text, k0);
    if (e < 0 || text.charCodeAt(e + 1) !== SPACE || e + 2 === eol) return undefined;
    const key = same ? known : text.slice(k0, e);
    if (j < MEMO_LINES) keyMemo[j] = key;
    if (block === METADATA) {
      const field = key === "name" ? NAME : key === "namespace" ? NAMESPACE : 0;
      if (field === 0) return undefined;
      const value = stringAt(text, e + 2, eol);
      return value === undefined
        ? undefined
        : makeLine(block, text, start, eol, field, key, value, e + 2);
    }
    const value = block === DATA ? dataAt(text, e + 2, eol) : stringAt(text, e + 2, eol);
    if (value === undefined) return undefined;
    const what = block === DATA ? DATA_ENTRY : STRING_ENTRY;
    return makeLine(block, text, start, eol, what, key, value, e + 2);
  }
  if (eol - p === 3 && text.startsWith("---", p)) {
    return makeLine(block, text, start, eol, SEPARATOR, "", "", eol);
  }
  const k = keyEnd(text, p);
  if (k < 0) return undefined;
  const which = topKey(text, p, k);
  if (which === 0) return undefined;
  if ((which & BLOCKS) !== 0) {
    return k + 1 === eol ? makeLine(block, text, start, eol, which, "", "", eol) : undefined;
  }
  if (text.charCodeAt(k + 1) !== SPACE || k + 2 === eol) return undefined;
  const value = stringAt(text, k + 2, eol);
  if (value === undefined) return undefined;
  if (which === API_VERSION && value !== "v1") return undefined;
  if (which === KIND && value !== "Secret") return undefined;
  return makeLine(block, text, start, eol, which, "", value, k + 2);
}

/** The {@link Line} of `text[start, eol]` whose value starts at `valueAt`. */
function makeLine(
  block: number,
  text: string,
  start: number,
  eol: number,
  what: number,
  key: string,
  value: string,
  valueAt: number,
): Line {
  return { block, text: text.slice(start, eol + 1), what, key, value, at: valueAt - start };
}

/** The documents of `text` as Secrets, or undefined when one is not in the simple shape. */
function readSimpleSecrets(text: string): DecodedSecret[] | undefined {
  const n = text.length;
  if (n === 0 || text.charCodeAt(n - 1) !== NL) return undefined;
  const read = readDocuments(text, text.startsWith("---\n") ? 4 : 0, false);
  return read !== undefined && read.end === n ? read.secrets : undefined;
}

/**
 * The Secrets from `p` on, until the end of `text` (which ends with a
 * newline) or, with `items`, the first line that is not part of a List's
 * items: with `items`, the documents are the items of a block sequence at
 * the left margin, kubectl's way (the first line of each `- `, the others
 * `  `, then the document's own line); else `---` lines separate them.
 * Undefined when one is not in the simple shape; `end` is where reading
 * stopped.
 */
function readDocuments(
  text: string,
  p: number,
  items: boolean,
): { secrets: DecodedSecret[]; end: number } | undefined {
  const n = text.length;
  const memo = items ? itemLineMemo : lineMemo;
  const out: DecodedSecret[] = [];
  // `stringData` pairs of the document, merged over `data` at its end.
  const strings: string[] = [];
  // The lines of the document read line by line before this one, and of this one.
  let before: Line[] = [], lines: Line[] = [];
  // Set when the last two documents read line by line had the same lines but for values.
  let template: Template | undefined;
  for (;;) {
    if (template !== undefined) {
      const doc = byTemplate(text, p, template, items);
      if (doc !== undefined) {
        out.push(doc.secret);
        p = doc.end;
        if (!doc.separator) return { secrets: out, end: p };
        if (p === n) return undefined; // an empty last document
        continue;
      }
    }
    // One document, p at its first line; j counts its lines.
    let seen = 0, block = 0, blockLines = 0, j = 0;
    let name = "", namespace = "", type = "";
    const data: Record<string, string> = {};
    strings.length = 0;
    lines.length = 0;
    let separator = false;
    while (p < n) {
      if (items && j > 0) {
        const c = text.charCodeAt(p);
        // The next item, or the end of the items: the document ends here.
        if (c !== SPACE) {
          separator = c === DASH;
          break;
        }
      }
      let l = memo[j];
      // (A slice compared is faster than startsWith, which compares code unit by code unit.)
      if (l === undefined || l.block !== block || text.slice(p, p + l.text.length) !== l.text) {
        let q = p;
        if (items) {
          // `- ` then a key opens an item; `  ` goes on with it.
          if (j === 0 && !(text.startsWith("- ", p) && text.charCodeAt(p + 2) !== SPACE)) {
            return undefined;
          }
          if (j > 0 && text.charCodeAt(p + 1) !== SPACE) return undefined;
          q = p + 2;
        }
        l = readLine(text, p, q, text.indexOf("\n", p), block, j);
        if (l === undefined || (items && l.what === SEPARATOR)) return undefined;
        if (j < MEMO_LINES) memo[j] = l;
      }
      p += l.text.length;
      j++;
      lines.push(l);
      const what = l.what;
      if (what === NAME || what === NAMESPACE) {
        if ((seen & what) !== 0) return undefined;
        seen |= what;
        if (what === NAME) name = l.value;
        else namespace = l.value;
      } else if (what === DATA_ENTRY) {
        if (Object.hasOwn(data, l.key)) return undefined;
        data[l.key] = l.value;
      } else if (what === STRING_ENTRY) {
        for (let i = 0; i < strings.length; i += 2) if (strings[i] === l.key) return undefined;
        strings.push(l.key, l.value);
      } else {
        // A line at the left margin ends the block before it, which must not be empty.
        if (block !== 0 && blockLines === 0) return undefined;
        if (what === SEPARATOR) {
          separator = true;
          break;
        }
        if ((seen & what) !== 0) return undefined;
        seen |= what;
        if (what === TYPE) type = l.value;
        block = (what & BLOCKS) !== 0 ? what : 0;
        blockLines = 0;
        continue;
      }
      blockLines++;
    }
    if (block !== 0 && blockLines === 0) return undefined;
    if ((seen & KIND) === 0) return undefined;
    for (let i = 0; i < strings.length; i += 2) data[strings[i]!] = strings[i + 1]!;
    out.push({ name, namespace, type: type || "Opaque", data });
    if (!separator) return { secrets: out, end: p };
    if (p === n) return undefined; // an empty last document
    template = strings.length === 0
      ? templateOf(before, lines, { name, namespace, type, data }, separator)
      : undefined;
    [before, lines] = [lines, before];
  }
}

/**
 * What a fleet's documents share, learnt from two documents read line by
 * line that have the same lines (text, or for a varying value at least the
 * same key in the same place): each varying line with the shared text
 * before its value (the shared lines since the last varying line, then the
 * line itself up to its value), the shared lines after the last one, and
 * the later document's fields. A document that matches it means the same
 * but for the varying values, and needs only those values read.
 */
interface Template {
  /** The varying lines, in order. */
  vary: Varying[];
  /** The shared lines after the last varying line. */
  tail: string;
  name: string;
  namespace: string;
  /** As read (`""` when absent). */
  type: string;
  data: Record<string, string>;
  /** Whether the documents end with a `---` line (in a stream). */
  separator: boolean;
}

/** A line of a {@link Template} whose value varies. */
interface Varying {
  /** The text before the value: shared lines, then this line's indent, key, `: `. */
  head: string;
  /** One of the line bits (NAME, NAMESPACE, TYPE or DATA_ENTRY). */
  what: number;
  key: string;
}

function templateOf(
  a: readonly Line[],
  b: readonly Line[],
  fields: { name: string; namespace: string; type: string; data: Record<string, string> },
  separator: boolean,
): Template | undefined {
  if (a.length !== b.length) return undefined;
  const vary: Varying[] = [];
  let run = "";
  for (let j = 0; j < b.length; j++) {
    const x = a[j]!, y = b[j]!;
    if (x.block !== y.block || x.what !== y.what || x.key !== y.key) return undefined;
    if (x.text === y.text) {
      run += y.text;
      continue;
    }
    // Only values vary: a block's opening line, `apiVersion` and `kind` read the same always.
    if ((y.what & (NAME | NAMESPACE | TYPE | DATA_ENTRY)) === 0) return undefined;
    // The same text up to the value is the same line but for its value, as readLine reads it
    // (an item's `- ` or `  `, the indent, the key and `: ` are all in it).
    vary.push({ head: run + y.text.slice(0, y.at), what: y.what, key: y.key });
    run = "";
  }
  return { vary, tail: run, ...fields, separator };
}

/**
 * The document at `p` read by `t` (see {@link Template}), undefined when
 * it does not match: then it is read line by line.
 */
function byTemplate(
  text: string,
  p: number,
  t: Template,
  items: boolean,
): { secret: DecodedSecret; end: number; separator: boolean } | undefined {
  let q = p;
  let name = t.name, namespace = t.namespace, type = t.type;
  let data: Record<string, string> | undefined;
  const vary = t.vary;
  for (let i = 0; i < vary.length; i++) {
    const v = vary[i]!;
    const head = v.head;
    // (A slice compared is faster than startsWith, which compares code unit by code unit.)
    if (text.slice(q, q + head.length) !== head) return undefined;
    const start = q + head.length;
    // The value: readLine's, which is never empty.
    const eol = text.indexOf("\n", start);
    if (eol <= start) return undefined;
    const what = v.what;
    const value = what === DATA_ENTRY ? dataAt(text, start, eol) : stringAt(text, start, eol);
    if (value === undefined) return undefined;
    q = eol + 1;
    if (what === NAME) name = value;
    else if (what === NAMESPACE) namespace = value;
    else if (what === TYPE) type = value;
    else {
      data ??= { ...t.data };
      data[v.key] = value;
    }
  }
  const tail = t.tail;
  if (tail !== "") {
    if (text.slice(q, q + tail.length) !== tail) return undefined;
    q += tail.length;
  }
  let separator = t.separator;
  if (items) {
    // The document ends where the next item or the end of the items starts.
    const next = q < text.length ? text.charCodeAt(q) : NL;
    if (next === SPACE) return undefined;
    separator = next === DASH;
  }
  const secret = { name, namespace, type: type || "Opaque", data: data ?? { ...t.data } };
  return { secret, end: q, separator };
}
