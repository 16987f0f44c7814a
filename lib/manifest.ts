/**
 * Reading and writing Kubernetes manifests: YAML streams, JSON objects and
 * `List`s in, YAML streams or JSON out, with the quoting and key order
 * kubectl uses so GitOps diffs stay quiet.
 *
 * YAML follows the 1.1 rules Kubernetes' own parser (go-yaml v2) applies, so
 * a string such as `yes` or `0123` is quoted on output and read back the way
 * kube-apiserver would read it.
 *
 * @module
 */

import { parseAllDocuments, stringify, type Tags } from "yaml";
import { InputError } from "./errors.ts";

/** A Kubernetes object as parsed from JSON or YAML. */
export type KubeObject = Record<string, unknown> & {
  apiVersion?: unknown;
  kind?: unknown;
  metadata?: unknown;
};

/** Output formats for manifests. */
export type ManifestFormat = "yaml" | "json";

/** Largest input joinkit reads, in bytes. */
export const MAX_INPUT_BYTES = 16 * 1024 * 1024;

/** Most objects one input may hold. */
export const MAX_OBJECTS = 100_000;

// go-yaml v2 keeps timestamps as strings when decoding into untyped values.
const withoutTimestamps = (tags: Tags): Tags =>
  tags.filter((t) => typeof t !== "object" || t.tag !== "tag:yaml.org,2002:timestamp");

/** Whether `value` is a plain (non-array) object. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

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
  if (text.length > MAX_INPUT_BYTES) {
    throw new InputError(`${source}: input larger than ${MAX_INPUT_BYTES} bytes`);
  }
  const clean = text.replace(/^\uFEFF/, "");
  let docs: unknown[];
  const trimmed = clean.trimStart();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      docs = [JSON.parse(clean)];
    } catch {
      docs = parseYaml(clean, source);
    }
  } else {
    docs = parseYaml(clean, source);
  }
  const out: KubeObject[] = [];
  const add = (doc: unknown, where: string) => {
    if (doc === null || doc === undefined) return;
    if (Array.isArray(doc)) {
      doc.forEach((d, i) => add(d, `${where}[${i}]`));
      return;
    }
    if (!isObject(doc)) {
      throw new InputError(`${source}: ${where} is not an object`);
    }
    if (typeof doc.kind === "string" && doc.kind.endsWith("List") && Array.isArray(doc.items)) {
      doc.items.forEach((d, i) => add(d, `${where}items[${i}]`));
      return;
    }
    if (out.length >= MAX_OBJECTS) {
      throw new InputError(`${source}: more than ${MAX_OBJECTS} objects`);
    }
    out.push(doc as KubeObject);
  };
  docs.forEach((d, i) => add(d, docs.length > 1 ? `document ${i + 1}` : "document"));
  return out;
}

function parseYaml(text: string, source: string): unknown[] {
  let docs;
  try {
    docs = parseAllDocuments(text, {
      version: "1.1",
      customTags: withoutTimestamps,
      uniqueKeys: true,
    });
  } catch (err) {
    throw new InputError(`${source}: not YAML or JSON: ${firstLine(err)}`);
  }
  if (!Array.isArray(docs)) docs = [docs];
  return docs.map((doc, i) => {
    const err = doc.errors[0];
    if (err) {
      throw new InputError(
        `${source}: document ${i + 1} is not valid YAML: ${firstLine(err)}`,
      );
    }
    try {
      return doc.toJS({ maxAliasCount: 100 });
    } catch (e) {
      throw new InputError(`${source}: document ${i + 1}: ${firstLine(e)}`);
    }
  });
}

function firstLine(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return (msg.split(/\r?\n/)[0] ?? "").trim();
}

/**
 * Serialises one value as YAML the way kubectl prints it: keys sorted,
 * sequences not indented, no line folding, YAML 1.1-safe quoting.
 *
 * @example
 * ```ts
 * toYaml({ b: 1, a: "yes" }); // 'a: "yes"\nb: 1\n'
 * ```
 */
export function toYaml(value: unknown): string {
  return stringify(value, {
    version: "1.1",
    indentSeq: false,
    lineWidth: 0,
    sortMapEntries: true,
  });
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
 * ```ts
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
