/**
 * Reading and writing Kubernetes manifests: YAML streams, JSON objects and
 * `List`s in, YAML streams or JSON out, with the quoting and key order
 * kubectl uses so GitOps diffs stay quiet.
 *
 * YAML follows the 1.1 rules Kubernetes' own parser (go-yaml v2) applies, so
 * a string such as `yes` or `0123` is quoted on output and read back the way
 * kube-apiserver would read it.
 *
 * Map keys follow go-yaml v2's `keyList.Less`, which is not transitive (see
 * {@link sortKeysGoYaml}); where it cycles, joinkit picks one deterministic
 * order, the same whatever the input order and on every rendering path.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { loadAll, Schema, timestampTag, YAML11_SCHEMA, YAMLException } from "js-yaml";
import { Document, type Pair, type Scalar, type Tags, visit, type YAMLMap } from "yaml";
import { InputError } from "../base/errors.ts";
import { MAX_INPUT_BYTES, MAX_OBJECTS } from "../base/limits.ts";
import { isObject } from "../base/object.ts";
import { goYamlScalar } from "./goyaml_scalar.ts";
import { simpleDocuments } from "./simple_yaml.ts";

/** A Kubernetes object as parsed from JSON or YAML. */
export type KubeObject = Record<string, unknown> & {
  apiVersion?: unknown;
  kind?: unknown;
  metadata?: unknown;
};

/** Output formats for manifests. */
export type ManifestFormat = "yaml" | "json";

/** Deepest nesting of maps and lists accepted in an input (Kubernetes objects stay far below). */
export const MAX_DEPTH = 256;

/**
 * Parses YAML (one or many documents) or JSON into objects, flattening any
 * `List` (`kind: List` or `kind: <Thing>List` with `items`). Empty documents
 * are skipped. `source` names the input in errors.
 *
 * @example
 * ```ts
 * parseManifests("kind: Secret\n---\nkind: ConfigMap\n", "in.yaml").length; // 2
 * ```
 */
export function parseManifests(text: string, source = "input"): KubeObject[] {
  return parseManifestText(text, source, undefined);
}

/**
 * One chunk of an input read in pieces: whole YAML documents, in order. An
 * input read in one piece has one chunk (`index` 0, `last`).
 */
export interface ManifestChunk {
  /** The input's name, for messages. */
  source: string;
  /** Whole documents of the input (a chunk never cuts a document). */
  text: string;
  /** 0 for an input's first chunk. */
  index: number;
  /** Whether this is the input's last chunk. */
  last: boolean;
  /**
   * Set when the chunk is part of one `List` document too long for a piece,
   * read item by item: `text` is then `kind: List` and some of its `items`
   * (or, with `end`, the List's other fields, to check it is a List).
   */
  list?: {
    /** The List's document number in the input. */
    document: number;
    /** Items in the List's earlier chunks. */
    itemsBefore: number;
    /** The List's fields other than `items` (its last chunk). */
    end: boolean;
    /**
     * A JSON List's part (lib/k8s/json_stream.ts): parsed as JSON only, its
     * brackets already counted over the whole input.
     */
    json?: boolean;
  };
}

/** What {@link parseManifestChunk} counts across the chunks of one input. */
export interface ChunkCounts {
  /** Documents in the input's earlier chunks. */
  documents: number;
  /** Objects in the input's earlier chunks. */
  objects: number;
}

/**
 * {@link parseManifests} for one chunk of an input read in pieces. The bounds
 * hold per input as for a whole one (documents and objects counted across its
 * chunks; nesting and aliases per document) and messages number documents
 * within the whole input. `counts` carries the numbering from chunk to chunk
 * (reset at each input's first chunk). An input in one chunk parses exactly
 * as {@link parseManifests} parses it.
 *
 * @example
 * ```ts
 * import { parseManifestChunk } from "./manifest.ts";
 * const counts = { documents: 0, objects: 0 };
 * parseManifestChunk({ source: "s.yaml", text: "kind: A\n", index: 0, last: false }, counts);
 * parseManifestChunk({ source: "s.yaml", text: "---\nkind: B\n", index: 1, last: true }, counts)[0]!.kind; // "B"
 * ```
 */
export function parseManifestChunk(chunk: ManifestChunk, counts: ChunkCounts): KubeObject[] {
  if (chunk.index === 0) {
    counts.documents = 0;
    counts.objects = 0;
  }
  if (chunk.list) return parseListPart(chunk, chunk.list, counts);
  if (chunk.index === 0 && chunk.last) {
    return parseManifestText(chunk.text, chunk.source, undefined);
  }
  return parseManifestText(chunk.text, chunk.source, counts);
}

/** A part of a List read item by item (see {@link ManifestChunk.list}). */
function parseListPart(
  chunk: ManifestChunk,
  list: NonNullable<ManifestChunk["list"]>,
  counts: ChunkCounts,
): KubeObject[] {
  // The List's own fields (its last part) are one object that is not one of its items.
  const own = { documents: list.document - 1, objects: list.end ? 0 : counts.objects };
  const objects = parseManifestText(
    chunk.text,
    chunk.source,
    own,
    list.itemsBefore,
    list.json === true ? list.document : 0,
  );
  if (!list.end) {
    counts.objects = own.objects;
    return objects;
  }
  const head = objects[0];
  const kind = head?.kind;
  if (
    objects.length !== 1 || typeof kind !== "string" || !kind.endsWith("List") ||
    head!.items !== undefined
  ) {
    throw new InputError(
      `${chunk.source}: document ${list.document} larger than ${MAX_INPUT_BYTES} bytes (and not a List read item by item)`,
    );
  }
  counts.documents = list.document;
  return [];
}

function parseManifestText(
  text: string,
  source: string,
  counts: ChunkCounts | undefined,
  itemsBefore = 0,
  jsonDocument = 0,
): KubeObject[] {
  if (text.length > MAX_INPUT_BYTES) {
    throw new InputError(`${source}: input larger than ${MAX_INPUT_BYTES} bytes`);
  }
  const docsBefore = counts?.documents ?? 0;
  const objectsBefore = counts?.objects ?? 0;
  const clean = text.replace(/^\uFEFF/, "");
  // A JSON List's part: its brackets were counted over the whole input (json_stream.ts).
  if (jsonDocument === 0) checkBracketDepth(clean, source);
  let docs: unknown[];
  const trimmed = clean.trimStart();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      docs = [JSON.parse(clean)];
    } catch {
      // A JSON List's part is JSON only (JSON.parse's message quotes input: not repeated).
      if (jsonDocument > 0) {
        throw new InputError(`${source}: document ${jsonDocument} is not valid JSON`);
      }
      docs = parseYaml(clean, source, docsBefore);
    }
  } else {
    docs = parseYaml(clean, source, docsBefore);
  }
  const out: KubeObject[] = [];
  const shallow = SHALLOW.has(docs);
  const add = (doc: unknown, where: string, depth: number) => {
    if (doc === null || doc === undefined) return;
    if (Array.isArray(doc)) {
      if (depth > 8) throw new InputError(`${source}: ${where} nests lists too deeply`);
      doc.forEach((d, i) => add(d, `${where}[${i}]`, depth + 1));
      return;
    }
    if (!isObject(doc)) {
      throw new InputError(`${source}: ${where} is not an object`);
    }
    if (typeof doc.kind === "string" && doc.kind.endsWith("List") && Array.isArray(doc.items)) {
      if (depth > 8) throw new InputError(`${source}: ${where} nests lists too deeply`);
      const offset = depth === 0 ? itemsBefore : 0;
      doc.items.forEach((d, i) => add(d, `${where}items[${i + offset}]`, depth + 1));
      return;
    }
    if (objectsBefore + out.length >= MAX_OBJECTS) {
      throw new InputError(`${source}: more than ${MAX_OBJECTS} objects`);
    }
    if (!shallow) checkDepth(doc, `${source}: ${where}`);
    out.push(doc as KubeObject);
  };
  const numbered = counts !== undefined || docs.length > 1;
  docs.forEach((d, i) => add(d, numbered ? `document ${docsBefore + i + 1}` : "document", 0));
  if (counts) {
    counts.documents += docs.length;
    counts.objects += out.length;
  }
  return out;
}

/**
 * Refuses flow collections (`[`/`{`) nested beyond {@link MAX_DEPTH}, before
 * any parser sees them: the YAML parser's time grows badly with such input.
 * Brackets inside strings count too; no real manifest comes near the bound.
 */
function checkBracketDepth(text: string, source: string): void {
  let depth = 0;
  // From bracket to bracket (a JSON input is mostly other characters).
  BRACKET.lastIndex = 0;
  while (BRACKET.test(text)) {
    const c = text.charCodeAt(BRACKET.lastIndex - 1);
    if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_DEPTH) {
        throw new InputError(`${source}: nested more than ${MAX_DEPTH} levels deep`);
      }
    } else if (depth > 0) depth--;
  }
}

const BRACKET = /[[\]{}]/g;

/** Refuses a parsed value nested beyond {@link MAX_DEPTH} (checked without recursion). */
function checkDepth(value: unknown, where: string): void {
  // Maps and lists only, each with its depth (scalars end no path deeper).
  const stack: object[] = [], depths: number[] = [];
  if (typeof value === "object" && value !== null) {
    stack.push(value);
    depths.push(0);
  }
  while (stack.length > 0) {
    const v = stack.pop()!, d = depths.pop()!;
    if (d > MAX_DEPTH) {
      throw new InputError(`${where} is nested more than ${MAX_DEPTH} levels deep`);
    }
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === "object" && child !== null) {
        stack.push(child);
        depths.push(d + 1);
      }
    }
  }
}

/** Documents read by {@link simpleDocuments}: nested less than MAX_DEPTH, never checked again. */
const SHALLOW = new WeakSet<unknown[]>();

// Kubernetes reads YAML with go-yaml v2's 1.1 rules (`yes` is a bool, `0123`
// octal, `<<` merges) but keeps timestamps as strings.
const K8S_YAML_SCHEMA = new Schema(YAML11_SCHEMA.tags.filter((t) => t !== timestampTag));

/**
 * Parses a YAML stream with js-yaml (several times faster than `yaml`'s
 * parser on large streams, which matters for fleets of Secrets and CSRs),
 * stopping at the first error, which is reported with its position.
 */
function parseYaml(text: string, source: string, docsBefore = 0): unknown[] {
  const simple = simpleDocuments(text, MAX_DEPTH);
  if (simple !== undefined) {
    SHALLOW.add(simple);
    if (docsBefore + simple.length > MAX_OBJECTS) {
      throw new InputError(`${source}: more than ${MAX_OBJECTS} documents`);
    }
    return simple;
  }
  let docs: unknown[];
  try {
    docs = loadAll(text, { schema: K8S_YAML_SCHEMA, maxDepth: MAX_DEPTH });
  } catch (err) {
    const mark = err instanceof YAMLException ? err.mark : undefined;
    // The reason may quote input (an alias or tag name, which can sit where a secret value goes:
    // `password: *hunter2`): what it quotes is withheld; the line and column say where.
    const reason = firstLine(err instanceof YAMLException ? new Error(err.reason) : err)
      .replace(/"[^"]*"/g, '"<withheld>"').replace(/!<[^>]*>/g, "!<withheld>");
    const where = mark ? ` at line ${mark.line + 1}, column ${mark.column + 1}` : "";
    const doc = docsBefore + (mark ? documentNumber(text, mark.position) : 1);
    throw new InputError(`${source}: document ${doc} is not valid YAML: ${reason}${where}`);
  }
  if (docsBefore + docs.length > MAX_OBJECTS) {
    throw new InputError(`${source}: more than ${MAX_OBJECTS} documents`);
  }
  // js-yaml shares an aliased value instead of copying it, so an alias bomb
  // parses quickly but would explode in any later walk. Every value takes at
  // least one byte of input unless an alias repeats it: count them, bounded.
  let left = 2 * text.length + 1000;
  docs.forEach((doc, i) => {
    const stack: unknown[] = [doc];
    while (stack.length > 0) {
      const v = stack.pop();
      if (--left < 0) {
        throw new InputError(
          `${source}: document ${
            docsBefore + i + 1
          }: too many values once YAML aliases are expanded`,
        );
      }
      if (typeof v === "object" && v !== null) {
        for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push(child);
      }
    }
  });
  return docs;
}

/** Which document of a stream an offset falls in (1-based), counting `---` lines. */
function documentNumber(text: string, offset: number): number {
  const before = text.slice(0, Math.max(0, offset));
  const separators = before.match(/^---(?:[ \t].*)?$/gm)?.length ?? 0;
  return before.trimStart().startsWith("---") ? Math.max(1, separators) : separators + 1;
}

function firstLine(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  const line = (msg.split(/\r?\n/)[0] ?? "").trim();
  // The parser quotes input (alias names, keys) in its messages: keep them short.
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/**
 * Serialises one value as YAML the way kubectl prints it (go-yaml v2 through
 * sigs.k8s.io/yaml): keys sorted, sequences not indented, strings in
 * go-yaml's own styles, escapes and folding at column 80
 * ({@link goYamlScalar}): multi-line strings as literal blocks, strings that
 * YAML 1.1 would read as another type, or that hold control characters,
 * double-quoted, other strings plain or, where plain is not allowed,
 * single-quoted.
 *
 * @example
 * ```ts
 * toYaml({ b: 1, a: "yes" }); // 'a: "yes"\nb: 1\n'
 * ```
 */
export function toYaml(value: unknown): string {
  return fastYaml(value) ?? toYamlByLibrary(value);
}

/**
 * {@link toYaml} through the `yaml` library alone, for any value: the
 * reference its fast path is held to.
 */
export function toYamlByLibrary(value: unknown): string {
  // Every string but a document's root goes through a placeholder the library
  // writes plain; the placeholders are then replaced by go-yaml's rendering of
  // the string at the column and indent the library put it (see goyaml_scalar).
  const strings: string[] = [];
  const keys: boolean[] = [];
  // No anchors: a value seen twice (from a YAML alias) is written out twice, as
  // kubectl does; with sorted keys an alias could otherwise precede its anchor.
  const doc = new Document(value, {
    version: "1.1",
    customTags: quotingByGoRulesOnly,
    sortMapEntries: false,
    aliasDuplicateObjects: false,
  });
  visit(doc, {
    Scalar(key, node: Scalar) {
      if (typeof node.value === "string" && key !== null) strings.push(node.value);
    },
  });
  let mark = "zjkph";
  while (strings.some((s) => s.includes(mark))) mark += "q";
  strings.length = 0;
  visit(doc, {
    Map(_key, node: YAMLMap) {
      // The same key order as the fast path, whatever order the pairs came in.
      node.items = sortByGoYaml(node.items, pairKey);
    },
    Scalar(key, node: Scalar) {
      if (typeof node.value !== "string") return;
      if (key === null) {
        // A document that is one string (never a Kubernetes object).
        if (goResolvesNonString(node.value)) node.type = "QUOTE_DOUBLE";
        return;
      }
      node.value = `${mark}${strings.push(node.value) - 1}x`;
      keys.push(key === "key");
      node.type = "PLAIN";
    },
  });
  let text = doc.toString({ indentSeq: false, lineWidth: 0, singleQuote: true });
  if (strings.length === 0) return text;
  const complex = new Set<number>();
  strings.forEach((s, i) => {
    if (keys[i] && !simpleKey(s)) {
      complex.add(i);
      keys[i] = false; // written after `? ` as a value is after `: `
    }
  });
  if (complex.size > 0) text = complexKeys(text, mark, complex);
  let out = "";
  let last = 0;
  for (const m of text.matchAll(new RegExp(`${mark}(\\d+)x`, "g"))) {
    const i = Number(m[1]);
    out += text.slice(last, m.index);
    last = m.index + m[0].length;
    // A literal block may end a line with a raw LS or PS, line breaks to go-yaml.
    let lineStart = out.lastIndexOf("\n") + 1;
    const tail = out.slice(lineStart);
    lineStart += Math.max(tail.lastIndexOf("\u2028"), tail.lastIndexOf("\u2029")) + 1;
    if (keys[i]) {
      out += goYamlScalar(strings[i]!, out.length - lineStart, 0, true).text;
      continue;
    }
    // `key: ` or `- ` precedes the value: go-yaml writes its own space.
    out = out.slice(0, -1);
    const before = out.slice(lineStart);
    const container = before.endsWith("-")
      ? before.length - 1
      : (/^(?: *[-:] )* */.exec(before)?.[0].length ?? 0);
    const r = goYamlScalar(strings[i]!, before.length, container);
    out += r.text;
    if (r.endsLine && text[last] === "\n") last++;
  }
  return out + text.slice(last);
}

/** go-yaml writes `key: value` only for a one-line key of at most 128 bytes. */
function simpleKey(key: string): boolean {
  return !/[\n\r\u0085\u2028\u2029]/.test(key) && Buffer.byteLength(key, "utf8") <= MAX_SIMPLE_KEY;
}

/**
 * The library's `PH: value` lines for complex keys turned into go-yaml's
 * `? PH` and `: value`, a block value's first line joined to the `: ` (a
 * sequence, which the library does not indent under a key, indented by 2).
 */
function complexKeys(text: string, mark: string, complex: ReadonlySet<number>): string {
  const lines = text.split("\n");
  const keyAt = new RegExp(`^((?: *[-:] )* *)(${mark}(\\d+)x):(.*)$`);
  for (let n = 0; n < lines.length; n++) {
    const m = keyAt.exec(lines[n]!);
    if (!m || !complex.has(Number(m[3]))) continue;
    const col = m[1]!.length;
    const pad = " ".repeat(col);
    if (m[4] !== "") {
      lines.splice(n, 1, `${m[1]}? ${m[2]}`, `${pad}:${m[4]}`);
      n++;
      continue;
    }
    lines[n] = `${m[1]}? ${m[2]}`;
    if (lines[n + 1]!.startsWith(pad + "- ")) {
      for (let k = n + 1; k < lines.length; k++) {
        const l = lines[k]!;
        if (!l.startsWith(pad + "- ") && !l.startsWith(pad + " ")) break;
        lines[k] = "  " + l;
      }
    }
    lines[n + 1] = `${pad}: ${lines[n + 1]!.slice(col + 2)}`;
  }
  return lines.join("\n");
}

// ---------------------------------------------------------------------------
// The fast path: plain data (maps, lists, one-line strings, integers,
// booleans, null) written directly, byte for byte what `toYamlByLibrary` writes.
// Strings that are not trivially plain are rendered once by `toYamlByLibrary` and
// cached; any other shape (multi-line strings, fractions, lists in lists,
// unusual keys) gives up, and the caller takes the slow path for the value.

// Starts with a letter, no YAML indicator, single spaces only between words,
// no `: ` or ` #`, no trailing colon: plain for the yaml library and a string
// for Go's resolver unless it is a keyword or a bare exponent.
const PLAIN = /^[A-Za-z](?:[A-Za-z0-9._/+=@-]|:(?=[^ ]))*(?: (?:[A-Za-z0-9._/+=@-]|:(?=[^ ]))+)*$/;
const PLAIN_KEY = /^[A-Za-z][A-Za-z0-9._/+=-]*$/;
/** The longest key go-yaml writes as `key: value` (`yaml_emitter_check_simple_key`: 128 bytes). */
const MAX_SIMPLE_KEY = 128;
/** PLAIN without spaces or colons (what base64 matches): a simpler pattern, several times faster. */
const PLAIN_WORD = /^[A-Za-z][A-Za-z0-9._/+=@-]*$/;
const KEYWORDS = new Set(["y", "n", "yes", "no", "on", "off", "true", "false", "null"]);
const EXPONENT = /^[eE][-+]?[0-9]+$/;

/** EXPONENT.test(s), without running the pattern on a string that starts otherwise. */
function isExponent(s: string): boolean {
  const c = s.charCodeAt(0);
  return (c === 101 || c === 69) && EXPONENT.test(s);
}

const scalarCache = new Map<string, string>();

/**
 * A string scalar as it follows an indicator (`key:` or `-`) that ends at
 * `column` in a container at `indent`: its text from the space after the
 * indicator to the end of its last line, newline included.
 */
function yamlScalar(value: string, column: number, indent: number): string {
  if (
    (PLAIN_WORD.test(value) ||
      // Spaces: go-yaml folds at a space past column 80.
      (column + value.length <= 80 && PLAIN.test(value))) &&
    (value.length > 5 || !KEYWORDS.has(value.toLowerCase())) &&
    !isExponent(value)
  ) {
    return " " + value + "\n";
  }
  const id = column + "," + indent + "," + value;
  let out = scalarCache.get(id);
  if (out === undefined) {
    const r = goYamlScalar(value, column, indent);
    out = r.endsLine ? r.text : r.text + "\n";
    if (scalarCache.size >= 10_000) scalarCache.clear();
    scalarCache.set(id, out);
  }
  return out;
}

const keyOrderCache = new Map<string, string[] | null>();

/** The map's keys in go-yaml's order, or null when one is not a plain key. */
function orderedKeys(map: Record<string, unknown>): string[] | null {
  const own = Object.keys(map);
  const sig = own.join("\n");
  let keys = keyOrderCache.get(sig);
  if (keys === undefined) {
    const ok = own.every((k) =>
      PLAIN_KEY.test(k) && (k.length > 5 || !KEYWORDS.has(k.toLowerCase())) && !isExponent(k)
    );
    keys = ok ? sortKeysGoYaml(own) : null;
    if (keyOrderCache.size >= 1000) keyOrderCache.clear();
    keyOrderCache.set(sig, keys);
  }
  return keys;
}

/**
 * A leaf value as it follows an indicator ending at `column` in a container
 * at `indent` (from the space to its last newline); undefined for a
 * non-empty collection, null to give up.
 */
function yamlLeaf(v: unknown, column: number, indent: number): string | null | undefined {
  if (typeof v === "string") return yamlScalar(v, column, indent);
  if (typeof v === "number") {
    return Number.isSafeInteger(v) && !Object.is(v, -0) ? " " + v + "\n" : null;
  }
  if (typeof v === "boolean") return v ? " true\n" : " false\n";
  if (v === null) return " null\n";
  if (Array.isArray(v)) return v.length === 0 ? " []\n" : undefined;
  // Plain objects only: a Date, Map, Uint8Array … is the library's to render.
  const proto = isObject(v) ? Object.getPrototypeOf(v) : undefined;
  if (proto === Object.prototype || proto === null) {
    return Object.keys(v as object).length === 0 ? " {}\n" : undefined;
  }
  return null;
}

/** A non-empty map's lines, each key at `indent`; null to give up. */
function yamlMap(map: Record<string, unknown>, indent: string): string | null {
  const keys = orderedKeys(map);
  if (keys === null) return null;
  let out = "";
  for (const key of keys) {
    const v = map[key];
    if (v === undefined) return null;
    if (key.length > MAX_SIMPLE_KEY) {
      // go-yaml writes a key over 128 bytes as a complex key: `? key`, then `: value`.
      const leaf = yamlLeaf(v, indent.length + 1, indent.length);
      if (leaf === null) return null;
      out += indent + "? " + key + "\n" + indent + ":";
      if (leaf !== undefined) {
        out += leaf;
        continue;
      }
      const inner = Array.isArray(v)
        ? yamlSeq(v, indent + "  ")
        : yamlMap(v as Record<string, unknown>, indent + "  ");
      if (inner === null) return null;
      out += " " + inner.slice(indent.length + 2);
      continue;
    }
    const leaf = yamlLeaf(v, indent.length + key.length + 1, indent.length);
    if (leaf === null) return null;
    if (leaf !== undefined) {
      out += indent + key + ":" + leaf;
      continue;
    }
    const inner = Array.isArray(v)
      ? yamlSeq(v, indent)
      : yamlMap(v as Record<string, unknown>, indent + "  ");
    if (inner === null) return null;
    out += indent + key + ":\n" + inner;
  }
  return out;
}

/** A non-empty list's lines, dashes at `indent` (sequences not indented); null to give up. */
function yamlSeq(list: readonly unknown[], indent: string): string | null {
  let out = "";
  for (const v of list) {
    const leaf = yamlLeaf(v, indent.length + 1, indent.length);
    if (leaf === null) return null;
    if (leaf !== undefined) {
      out += indent + "-" + leaf;
      continue;
    }
    if (Array.isArray(v)) return null;
    const inner = yamlMap(v as Record<string, unknown>, indent + "  ");
    if (inner === null) return null;
    out += indent + "- " + inner.slice(indent.length + 2);
  }
  return out;
}

/** {@link toYaml} for plain data, or null when the value needs the yaml library. */
function fastYaml(value: unknown): string | null {
  // A scalar or an empty collection on its own is a document of its own kind: left to the library.
  if (yamlLeaf(value, 0, 0) !== undefined) return null;
  return Array.isArray(value) ? yamlSeq(value, "") : yamlMap(value as Record<string, unknown>, "");
}

// YAML 1.1's own tests would quote e.g. `1e1000`; quoting must follow Go's resolver alone.
const quotingByGoRulesOnly = (tags: Tags): Tags =>
  tags.map((t) =>
    typeof t === "object" && t.tag !== "tag:yaml.org,2002:str" && "test" in t
      ? { ...t, test: undefined } as typeof t
      : t
  );

/** A map entry's key as go-yaml compares it. */
function pairKey(p: Pair): string {
  return String((p.key as Scalar | null)?.value ?? p.key);
}

/**
 * Keys in go-yaml v2's order (digit runs by value, non-letters before
 * letters), the same for any input order of the same keys.
 *
 * go-yaml's `keyList.Less` is not transitive: `jws-kubeconfig-01k5uj` <
 * `jws-kubeconfig-0tpkrp` < `jws-kubeconfig-1b7hcz` < `jws-kubeconfig-01k5uj`.
 * Go sorts `reflect.MapKeys()` (random order), so kubectl itself prints such
 * keys in a random order. joinkit picks one: the keys sorted by code units
 * first, then sorted stably with go-yaml's `Less` (insertion sort, as Go's
 * `sort.Sort` does for up to 12 items; merge sort beyond). Wherever `Less`
 * is a consistent order on the keys, the result is exactly go-yaml's.
 *
 * @example
 * ```ts
 * sortKeysGoYaml(["a10", "b", "a9", "_x"]); // ["_x", "a9", "a10", "b"]
 * ```
 */
export function sortKeysGoYaml(keys: readonly string[]): string[] {
  // Strings in code-unit order are their own stable code-unit order (equal ones are alike).
  return sortByGoYaml(keys.slice().sort(), (k) => k, true);
}

function sortByGoYaml<T>(
  items: readonly T[],
  keyOf: (item: T) => string,
  inCodeUnitOrder = false,
): T[] {
  const n = items.length;
  const keys = items.map(keyOf);
  // Code-unit order first (stable), so the outcome never depends on the input order.
  const order = inCodeUnitOrder ? identityOrder(n) : codeUnitOrder(keys);
  // go-yaml's Less on the keys by index (see lessAt).
  lessKeys = keys;
  lessAscii = new Uint8Array(n);
  lessShared = new Int32Array(n);
  const pivot = n > 0 ? keys[order[n >> 1]!]! : "";
  // Most keys of a large map start as the pivot does but for its last few characters.
  const head = pivot.slice(0, Math.max(0, pivot.length - 6));
  for (let k = 0; k < n; k++) {
    const key = keys[k]!;
    lessAscii[k] = ASCII.test(key) ? 1 : 0;
    const m = Math.min(key.length, pivot.length);
    let p = head.length > 0 && key.startsWith(head) ? head.length : 0;
    while (p < m && key.charCodeAt(p) === pivot.charCodeAt(p)) p++;
    lessShared[k] = p;
  }
  try {
    if (n <= 12) {
      for (let i = 1; i < n; i++) {
        for (let j = i; j > 0 && lessAt(order[j]!, order[j - 1]!); j--) {
          const t = order[j - 1]!;
          order[j - 1] = order[j]!;
          order[j] = t;
        }
      }
    } else {
      mergeSort(order, new Int32Array(n), 0, n);
    }
  } finally {
    lessKeys = [];
  }
  const out: T[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = items[order[i]!]!;
  return out;
}

function identityOrder(n: number): Int32Array {
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  return order;
}

/** The indices of `keys` in code-unit order of the keys (stable). */
function codeUnitOrder(keys: readonly string[]): Int32Array {
  const n = keys.length;
  const order = new Int32Array(n);
  // Distinct keys (a map's) are sorted natively and found again by key.
  const sorted = keys.slice().sort();
  const at = new Map<string, number>();
  for (let i = 0; i < n; i++) at.set(keys[i]!, i);
  if (at.size === n) {
    for (let i = 0; i < n; i++) order[i] = at.get(sorted[i]!)!;
    return order;
  }
  for (let i = 0; i < n; i++) order[i] = i;
  return order.sort((x, y) => {
    const a = keys[x]!, b = keys[y]!;
    return a < b ? -1 : a > b ? 1 : x - y;
  });
}

// What lessAt compares, set by sortByGoYaml for one sort: the keys, whether each is ASCII,
// and how long a prefix each shares with one of them (two keys share at least the shorter
// of their two, which is skipped: a fleet's keys share a long one, `jws-kubeconfig-`).
// Small top-level functions: a sort runs once per map, so compiling it must be cheap too.
let lessKeys: readonly string[] = [];
let lessAscii = new Uint8Array(0);
let lessShared = new Int32Array(0);

/** {@link goYamlLess} of the keys at `x` and `y` (false for equal keys, as goYamlLess). */
function lessAt(x: number, y: number): boolean {
  const a = lessKeys[x]!, b = lessKeys[y]!;
  if ((lessAscii[x]! & lessAscii[y]!) === 0) return goYamlLess(a, b);
  // goYamlLessAscii's steps up to the first difference, where they decide without
  // looking back unless both characters are non-letters.
  const sx = lessShared[x]!, sy = lessShared[y]!;
  const m = a.length < b.length ? a.length : b.length;
  let i = sx < sy ? sx : sy;
  while (i < m && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === m) return a.length < b.length;
  const ac = a.charCodeAt(i), bc = b.charCodeAt(i);
  const al = asciiLetter(ac), bl = asciiLetter(bc);
  if (al && bl) return ac < bc;
  if (al || bl) return bl;
  return goYamlLessAsciiRuns(a, b, i);
}

/**
 * A stable top-down merge sort of `a[lo, hi)` in place (halves split at the middle, a
 * later item moving ahead only when strictly {@link lessAt}): as go-yaml's Less is not
 * transitive, the exact splits and merges are part of the outcome.
 */
function mergeSort(a: Int32Array, tmp: Int32Array, lo: number, hi: number): void {
  if (hi - lo <= 1) return;
  const mid = lo + ((hi - lo) >> 1);
  mergeSort(a, tmp, lo, mid);
  mergeSort(a, tmp, mid, hi);
  for (let q = lo; q < mid; q++) tmp[q] = a[q]!;
  let i = lo, j = mid, k = lo;
  while (i < mid && j < hi) {
    if (lessAt(a[j]!, tmp[i]!)) a[k++] = a[j++]!;
    else a[k++] = tmp[i++]!;
  }
  while (i < mid) a[k++] = tmp[i++]!;
}

/**
 * True when go-yaml's order equals plain code-unit order for `a` and `b`:
 * one is a prefix of the other, or at their first difference both
 * characters are ASCII letters (digit runs and non-letters take Go's path).
 */
function orderIsCodePoint(a: string, b: string): boolean {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return true; // one is a prefix of the other: the shorter sorts first
  const x = a.charCodeAt(i), y = b.charCodeAt(i);
  const letter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
  return letter(x) && letter(y);
}

const isLetter = (c: string) => /\p{L}/u.test(c);
const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";

/** go-yaml v2 `keyList.Less` for two string keys. */
export function goYamlLess(a: string, b: string): boolean {
  // Fast path for the usual keys, which first differ at a letter.
  if (orderIsCodePoint(a, b)) return a < b;
  if (ASCII.test(a) && ASCII.test(b)) return goYamlLessAscii(a, b);
  const ar = [...a], br = [...b];
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const ac = ar[i]!, bc = br[i]!;
    if (ac === bc) continue;
    const al = isLetter(ac), bl = isLetter(bc);
    if (al && bl) return ac < bc;
    if (al || bl) return bl;
    let an = 0, bn = 0;
    if (ac === "0" || bc === "0") {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]); j--) {
        if (ar[j] !== "0") {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    let ai = i, bi = i;
    for (; ai < ar.length && isDigit(ar[ai]); ai++) an = an * 10 + Number(ar[ai]);
    for (; bi < br.length && isDigit(br[bi]); bi++) bn = bn * 10 + Number(br[bi]);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ac < bc;
  }
  return ar.length < br.length;
}

// deno-lint-ignore no-control-regex
const ASCII = /^[\x00-\x7f]*$/;
const asciiLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const asciiDigit = (c: number) => c >= 48 && c <= 57;

/** {@link goYamlLess} for ASCII keys, on char codes (the same steps, no arrays). */
function goYamlLessAscii(a: string, b: string): boolean {
  for (let i = 0; i < a.length && i < b.length; i++) {
    const ac = a.charCodeAt(i), bc = b.charCodeAt(i);
    if (ac === bc) continue;
    const al = asciiLetter(ac), bl = asciiLetter(bc);
    if (al && bl) return ac < bc;
    if (al || bl) return bl;
    return goYamlLessAsciiRuns(a, b, i);
  }
  return a.length < b.length;
}

/**
 * {@link goYamlLessAscii}'s last steps, at the first difference `i` of `a`
 * and `b`, where neither character is a letter: digit runs by value.
 */
function goYamlLessAsciiRuns(a: string, b: string, i: number): boolean {
  const ac = a.charCodeAt(i), bc = b.charCodeAt(i);
  let an = 0, bn = 0;
  if (ac === 48 || bc === 48) {
    for (let j = i - 1; j >= 0 && asciiDigit(a.charCodeAt(j)); j--) {
      if (a.charCodeAt(j) !== 48) {
        an = 1;
        bn = 1;
        break;
      }
    }
  }
  let ai = i, bi = i;
  for (; ai < a.length && asciiDigit(a.charCodeAt(ai)); ai++) {
    an = an * 10 + a.charCodeAt(ai) - 48;
  }
  for (; bi < b.length && asciiDigit(b.charCodeAt(bi)); bi++) {
    bn = bn * 10 + b.charCodeAt(bi) - 48;
  }
  if (an !== bn) return an < bn;
  if (ai !== bi) return ai < bi;
  return ac < bc;
}

const GO_NON_STRINGS = new Set([
  ...["y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE"],
  ...["n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE"],
  ...["", "~", "null", "Null", "NULL", ".nan", ".NaN", ".NAN"],
  ...[".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF"],
]);
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
const TIMESTAMP =
  /^\d{4}-\d{1,2}-\d{1,2}(?:(?:[Tt]\d{1,2}:\d{1,2}:\d{1,2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}))|(?: \d{1,2}:\d{1,2}:\d{1,2}(?:\.\d+)?))?$/;
const GO_INT = /^[-+]?(?:0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/;

/** Go's `strconv.ParseFloat` succeeds (no range error) for a YAML-style float. */
const goFloatOk = (s: string): boolean => Number.isFinite(Number(s));

/**
 * Whether go-yaml v2's `resolve` reads the plain scalar `s` as something
 * other than a string (so its encoder double-quotes it).
 *
 * @example
 * ```ts
 * goResolvesNonString("yes"); // true
 * goResolvesNonString("1e1000"); // false: ParseFloat's range error leaves it a string
 * ```
 */
export function goResolvesNonString(s: string): boolean {
  if (GO_NON_STRINGS.has(s)) return true;
  if (BASE60_FLOAT.test(s)) return true;
  const c = s[0];
  if (c === ".") return YAML_STYLE_FLOAT.test(s) && goFloatOk(s);
  if (c === undefined || !/[-+0-9]/.test(c)) return false;
  if (TIMESTAMP.test(s)) return true;
  const plain = s.replace(/_/g, "");
  if (GO_INT.test(plain)) return true; // int64 or uint64 (overflow falls through to float)
  return YAML_STYLE_FLOAT.test(plain) && goFloatOk(plain);
}

/**
 * Serialises one value as JSON the way kubectl prints it: keys sorted, four
 * spaces of indent, trailing newline.
 *
 * @example
 * ```ts
 * toJson({ b: 1, a: 2 }); // '{\n    "a": 2,\n    "b": 1\n}\n'
 * ```
 */
export function toJson(value: unknown): string {
  return JSON.stringify(sortKeys(value), null, 4) + "\n";
}

/** A deep copy of `value` with every object's keys in sorted order. */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      if (value[key] !== undefined) out[key] = sortKeys(value[key]);
    }
    return out;
  }
  return value;
}

/**
 * Renders objects for `kubectl apply -f -`: YAML documents separated by
 * `---`, or JSON (one object, or a `v1` `List` for several).
 *
 * @example
 * ```ts ignore
 * renderObjects([secret], "yaml");
 * ```
 */
export function renderObjects(objects: readonly unknown[], format: ManifestFormat): string {
  if (format === "json") {
    if (objects.length === 1) return toJson(objects[0]);
    return toJson({ apiVersion: "v1", items: objects, kind: "List", metadata: {} });
  }
  return objects.map(toYaml).join("---\n");
}

/**
 * Objects written back in the shape they were read in: the `v1` `List` that
 * `kubectl get … -o yaml|json` prints (`metadata.resourceVersion: ""`) when
 * the input was one, else as {@link renderObjects} writes a stream.
 *
 * @example
 * ```ts ignore
 * renderInInputShape(csrs, true, "yaml"); // apiVersion: v1, items: [...], kind: List
 * ```
 */
export function renderInInputShape(
  objects: readonly unknown[],
  wasList: boolean,
  format: ManifestFormat,
): string {
  if (!wasList) return renderObjects(objects, format);
  const list = {
    apiVersion: "v1",
    items: objects,
    kind: "List",
    metadata: { resourceVersion: "" },
  };
  return format === "json" ? toJson(list) : toYaml(list);
}
