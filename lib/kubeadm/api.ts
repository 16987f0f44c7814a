/**
 * kubeadm's configuration API (`kubeadm.k8s.io`): which versions exist,
 * apimachinery's field-error texts, and a strict reader for decoding one
 * document the way kubeadm's codec does (types checked, unknown fields
 * reported as kubeadm's strict-decoding warnings).
 *
 * @module
 */

import { InputError } from "../base/errors.ts";
import { isObject } from "../base/object.ts";
import { goQuote } from "../go/quote.ts";
import { parseGoTime } from "../go/time.ts";

/** The API group of kubeadm's configuration types. */
export const KUBEADM_GROUP = "kubeadm.k8s.io";

/** The versions joinkit reads and writes, newest first. */
export const KUBEADM_VERSIONS = ["v1beta4", "v1beta3"] as const;

/** A kubeadm configuration API version. */
export type KubeadmVersion = typeof KUBEADM_VERSIONS[number];

/** The version written unless another is asked for (kubeadm v1.31+). */
export const DEFAULT_KUBEADM_VERSION: KubeadmVersion = "v1beta4";

/** `validateSupportedVersion`'s old versions and the last kubeadm that read each. */
const OLD_VERSIONS: Record<string, string> = {
  v1alpha1: "v1.11",
  v1alpha2: "v1.12",
  v1alpha3: "v1.14",
  v1beta1: "v1.15",
  v1beta2: "v1.22",
};

/**
 * The kubeadm version of a document's `apiVersion`, for `kind`; an old,
 * unknown or foreign apiVersion is bad input (kubeadm's text for old ones).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { kubeadmVersionOf } from "./api.ts";
 * assert.equal(kubeadmVersionOf("kubeadm.k8s.io/v1beta3", "JoinConfiguration", "f"), "v1beta3");
 * ```
 */
export function kubeadmVersionOf(
  apiVersion: unknown,
  kind: string,
  source: string,
): KubeadmVersion {
  const gv = typeof apiVersion === "string" ? apiVersion : "";
  const [group, version = ""] = gv.split("/", 2);
  if (group === KUBEADM_GROUP && (KUBEADM_VERSIONS as readonly string[]).includes(version)) {
    return version as KubeadmVersion;
  }
  if (group === KUBEADM_GROUP && OLD_VERSIONS[version]) {
    throw new InputError(
      `${source}: your configuration file uses an old API spec: ${
        goQuote(gv)
      }. Please use kubeadm ${
        OLD_VERSIONS[version]
      } instead and run 'kubeadm config migrate --old-config old.yaml --new-config new.yaml', which will write the new, similar spec using a newer API version.`,
    );
  }
  throw new InputError(
    `${source}: unknown configuration API ${goQuote(gv)} for kind ${
      goQuote(kind)
    }: joinkit reads ${KUBEADM_GROUP}/${KUBEADM_VERSIONS.join(" and ")}`,
  );
}

// ---------------------------------------------------------------------------
// apimachinery field errors (k8s.io/apimachinery/pkg/util/validation/field).

/** `field.Invalid(path, value, detail).Error()`: strings with `%q`, numbers as is. */
export function fieldInvalid(path: string, value: string | number, detail: string): string {
  return `${path}: Invalid value: ${typeof value === "string" ? goQuote(value) : value}: ${detail}`;
}

/** `field.Required(path, detail).Error()`. */
export function fieldRequired(path: string, detail: string): string {
  return detail ? `${path}: Required value: ${detail}` : `${path}: Required value`;
}

/** What a secret value is shown as in a field error: kubeadm quotes it, joinkit does not. */
export const WITHHELD = "<value withheld>";

// ---------------------------------------------------------------------------
// Strict decoding.

/**
 * Reads one decoded document field by field, checking JSON types as Go's
 * decoder does (`json: cannot unmarshal …`, shortened) and collecting the
 * fields the type does not have as kubeadm's strict-decoding warnings.
 */
export class DocReader {
  /** `strict decoding error: unknown field "…"` lines, in document order. */
  readonly warnings: string[] = [];
  constructor(readonly source: string) {}

  private fail(path: string, want: string, got: unknown): never {
    const kind = got === null
      ? "null"
      : Array.isArray(got)
      ? "array"
      : typeof got === "object"
      ? "object"
      : typeof got;
    throw new InputError(`${this.source}: ${path}: cannot unmarshal ${kind} into ${want}`);
  }

  /** The object at `path` (absent or null → undefined), its unknown keys reported. */
  object(
    v: unknown,
    path: string,
    known: readonly string[],
  ): Record<string, unknown> | undefined {
    if (v === undefined || v === null) return undefined;
    if (!isObject(v)) this.fail(path, "an object", v);
    for (const k of Object.keys(v)) {
      if (!known.includes(k)) {
        this.warnings.push(
          `strict decoding error: unknown field ${goQuote(path ? `${path}.${k}` : k)}`,
        );
      }
    }
    return v;
  }

  /** A string field (absent or null → undefined). */
  string(v: unknown, path: string): string | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "string") this.fail(path, "a string", v);
    return v;
  }

  /** A bool field (absent or null → undefined). */
  bool(v: unknown, path: string): boolean | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "boolean") this.fail(path, "a bool", v);
    return v;
  }

  /** An int32 field (absent or null → undefined). */
  int32(v: unknown, path: string): number | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "number" || !Number.isInteger(v) || v < -(2 ** 31) || v >= 2 ** 31) {
      this.fail(path, "an int32", v);
    }
    return v;
  }

  /**
   * A `metav1.Time` field (absent or null → undefined): a JSON string that
   * Go's `time.Parse(time.RFC3339, …)` accepts; an empty string is refused
   * too, as `metav1.Time.UnmarshalJSON` refuses it.
   */
  time(v: unknown, path: string): string | undefined {
    const s = this.string(v, path);
    if (s === undefined) return undefined;
    const t = parseGoTime(s);
    if (!t.ok) throw new InputError(`${this.source}: ${path}: ${t.error}`);
    return s;
  }

  /** A `[]string` field: absent → undefined, `null` → undefined, `[]` → []. */
  strings(v: unknown, path: string): string[] | undefined {
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v)) this.fail(path, "a list of strings", v);
    return v.map((s, i) => this.string(s, `${path}[${i}]`) ?? "");
  }

  /** A list field: absent → undefined, `null` → null, else the items. */
  list(v: unknown, path: string): unknown[] | null | undefined {
    if (v === undefined) return undefined;
    if (v === null) return null;
    if (!Array.isArray(v)) this.fail(path, "a list", v);
    return v;
  }
}

// ---------------------------------------------------------------------------
// The document split.

/** Whether a piece of a stream holds no document: blank, comments, `---` lines, or a YAML null/`{}`. */
function holdsNoDocument(lines: readonly string[]): boolean {
  const content = lines
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#") && !/^---(?:\s|#|$)/.test(l));
  if (content.length === 0) return true;
  const only = content.join(" ").replace(/\s+#.*$/, "");
  return ["null", "Null", "NULL", "~", "{}"].includes(only);
}

/**
 * The first key repeated within one object of a JSON text, with its line
 * (1-based), or undefined. Keys compare decoded (`"kin\u0064"` is `kind`).
 * Only called on text that parsed as JSON, so the scan may trust its shape.
 */
function jsonDuplicateKey(text: string): { key: string; line: number } | undefined {
  const stack: (Set<string> | null)[] = []; // a Set per open object, null per open array
  let expectKey = false;
  let line = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\n") line++;
    else if (c === "{") {
      stack.push(new Set());
      expectKey = true;
    } else if (c === "[") {
      stack.push(null);
      expectKey = false;
    } else if (c === "}" || c === "]") {
      stack.pop();
      expectKey = false;
    } else if (c === ",") expectKey = stack[stack.length - 1] instanceof Set;
    else if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      const top = stack[stack.length - 1];
      if (expectKey && top) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (top.has(key)) return { key, line };
        top.add(key);
      }
      expectKey = false;
      i = j;
    }
  }
  return undefined;
}

/**
 * kubeadm's split of a config file into documents (`SplitYAMLDocuments`
 * over apimachinery's `YAMLReader`), for the two refusals the YAML reader
 * does not make: a line starting with `---` followed by anything but blanks
 * or a comment (`invalid Yaml document separator: …`), and a piece between
 * separators that holds no document (only blanks or comments, such as
 * `---` then a comment at the end of the file, or blank lines before a
 * first `---`), which kubeadm reads as a document without apiVersion and
 * kind. A `---` that ends a document is consumed with it; one met before
 * any content starts the next piece, so a leading `---` is fine but two in
 * a row are not. A piece that starts with `{` is JSON to kubeadm: it must
 * parse as JSON (a YAML flow mapping there is refused), and its `bindPort`
 * must be an integer literal. A JSON document with a key repeated in one
 * object is refused too (kubeadm's strict decoder does; `JSON.parse` would
 * keep the last). Throws an {@link InputError} (exit 1, as kubeadm's).
 *
 * @example
 * ```ts
 * import { checkKubeadmDocumentSplit } from "./api.ts";
 * checkKubeadmDocumentSplit("---\nkind: A\n---\n", "f"); // fine
 * // checkKubeadmDocumentSplit("kind: A\n---\n# end\n", "f") throws
 * ```
 */
export function checkKubeadmDocumentSplit(text: string, source: string): void {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  let piece: string[] = [];
  const pieces: string[][] = [];
  for (const line of lines) {
    if (line.startsWith("---")) {
      const rest = line.slice(3).trim();
      if (rest !== "" && !rest.startsWith("#")) {
        throw new InputError(`${source}: invalid Yaml document separator: ${rest}`);
      }
      if (piece.length) {
        pieces.push(piece);
        piece = [];
        continue;
      }
    }
    piece.push(line);
  }
  if (piece.length) pieces.push(piece);
  // A file with no piece at all is judged by the reader (kubeadm defaults an empty file).
  if (pieces.some(holdsNoDocument)) {
    throw new InputError(
      `${source}: invalid configuration for GroupVersionKind /, Kind=: kind and apiVersion is mandatory information that must be specified`,
    );
  }
  // A JSON document: JSON.parse keeps the last of a repeated key; kubeadm's strict decoder
  // (go-yaml) refuses it, as joinkit's YAML reader does for YAML.
  for (const piece of pieces) {
    // apimachinery's IsJSONBuffer: a piece whose first byte after spaces, tabs and line ends is
    // `{` is decoded as JSON, strictly (a YAML flow mapping there is a JSON parse error; after a
    // comment, a `---` or a BOM it is YAML). Go's encoding/json puts no fraction or exponent
    // into an int32: bindPort is kubeadm's one integer field.
    const raw = piece.join("\n");
    if (/^[ \t\r\n]*\{/.test(raw)) {
      try {
        JSON.parse(raw);
      } catch (e) {
        throw new InputError(
          `${source}: couldn't get version/kind; json parse error: ${(e as Error).message}`,
        );
      }
      // go-yaml reads the piece first (TypeMeta) and refuses any \uD800-\uDFFF escape, even a pair.
      if (/(?<!\\)(?:\\\\)*\\u[dD][89a-fA-F][0-9a-fA-F]{2}/.test(raw)) {
        throw new InputError(
          `${source}: could not interpret GroupVersionKind; unmarshal error: error converting YAML to JSON: yaml: found invalid Unicode character escape code`,
        );
      }
      const port = /"bindPort"\s*:\s*(-?\d+(?:\.\d*)?[eE.][-+\d]*)/.exec(raw);
      if (port) {
        throw new InputError(
          `${source}: json: cannot unmarshal number ${
            port[1]
          } into Go struct field APIEndpoint.bindPort of type int32`,
        );
      }
    }
    const body = piece.filter((l) => !/^\s*(?:#.*|---.*)?$/.test(l)).join("\n");
    if (!body.trimStart().startsWith("{")) continue;
    try {
      JSON.parse(body);
    } catch {
      continue; // not JSON: YAML flow style, judged by the YAML reader
    }
    const dup = jsonDuplicateKey(body);
    if (dup) {
      throw new InputError(
        `${source}: line ${dup.line}: key ${goQuote(dup.key)} already set in map`,
      );
    }
  }
}
