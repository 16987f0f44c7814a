/**
 * YAML as client-go's `clientcmd.Write` serialises kubeconfigs (the bytes
 * kubectl and kubeadm write).
 *
 * Quoting follows go-yaml v2 (what `sigs.k8s.io/yaml` uses): a string that
 * Go would read back as a bool, number, null or timestamp is double-quoted;
 * one that cannot be plain for syntax reasons is single-quoted; anything else
 * is plain. Keys are sorted and sequences are not indented, as in kubectl.
 *
 * @module
 */

import { Scalar, stringify, type Tags } from "yaml";
import { isObject, toJson } from "./manifest.ts";

const GO_RESOLVE_MAP = new Set([
  "y",
  "Y",
  "yes",
  "Yes",
  "YES",
  "on",
  "On",
  "ON",
  "true",
  "True",
  "TRUE",
  "n",
  "N",
  "no",
  "No",
  "NO",
  "off",
  "Off",
  "OFF",
  "false",
  "False",
  "FALSE",
  "",
  "~",
  "null",
  "Null",
  "NULL",
  ".nan",
  ".NaN",
  ".NAN",
  ".inf",
  ".Inf",
  ".INF",
  "+.inf",
  "+.Inf",
  "+.INF",
  "-.inf",
  "-.Inf",
  "-.INF",
]);
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
const TIMESTAMP =
  /^\d{4}-\d{1,2}-\d{1,2}(?:(?:[Tt]\d{1,2}:\d{1,2}:\d{1,2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}))|(?: \d{1,2}:\d{1,2}:\d{1,2}(?:\.\d+)?))?$/;
const GO_INT = /^[-+]?(?:0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/;

/** Go's `strconv.ParseFloat` success for a string already matching YAML_STYLE_FLOAT. */
function goFloatOk(s: string): boolean {
  return Number.isFinite(Number(s));
}

/**
 * Whether go-yaml v2's `resolve` reads the plain scalar `s` as something
 * other than a string (so its encoder double-quotes it).
 */
export function goResolvesNonString(s: string): boolean {
  if (GO_RESOLVE_MAP.has(s)) return true;
  if (BASE60_FLOAT.test(s)) return true;
  const c = s[0];
  if (c === ".") return YAML_STYLE_FLOAT.test(s) && goFloatOk(s);
  if (c === undefined || !/[-+0-9]/.test(c)) return false;
  if (TIMESTAMP.test(s)) return true;
  const plain = s.replace(/_/g, "");
  if (GO_INT.test(plain)) return true; // int64 or uint64 (overflow falls through to float)
  if (YAML_STYLE_FLOAT.test(plain) && goFloatOk(plain)) return true;
  return false;
}

// Keep the YAML 1.1 tags for identifying values (null, booleans, numbers), but take
// quoting decisions from Go's rules only.
const noImplicitTests = (tags: Tags): Tags =>
  tags.map((t) =>
    typeof t === "object" && t.tag !== "tag:yaml.org,2002:str" && "test" in t
      ? { ...t, test: undefined } as typeof t
      : t
  );

const OPTIONS = {
  version: "1.1",
  customTags: noImplicitTests,
  indentSeq: false,
  lineWidth: 0,
  sortMapEntries: true,
  singleQuote: true,
} as const;

/**
 * Serialises a kubeconfig (or any JSON-like value) byte-for-byte as
 * client-go's `clientcmd.Write` / `sigs.k8s.io/yaml` does.
 *
 * @example
 * ```ts
 * kubeconfigYaml({ kind: "Config", apiVersion: "v1" }); // "apiVersion: v1\nkind: Config\n"
 * ```
 */
export function kubeconfigYaml(value: unknown): string {
  const quoteTyped = (v: unknown): unknown => {
    if (typeof v === "string") {
      let type: Scalar.Type | undefined;
      if (goResolvesNonString(v)) {
        type = Scalar.QUOTE_DOUBLE;
      } else if (
        // deno-lint-ignore no-control-regex
        v.includes("'") && !/[\x00-\x1f\x7f-\x9f]/.test(v) &&
        stringify(v, OPTIONS).startsWith('"')
      ) {
        // go-yaml single-quotes (doubling the quote) what cannot be plain; yaml switches to
        // double quotes when the text holds a single quote.
        type = Scalar.QUOTE_SINGLE;
      }
      if (type === undefined) return v;
      const s = new Scalar(v);
      s.type = type;
      return s;
    }
    if (Array.isArray(v)) return v.map(quoteTyped);
    if (isObject(v)) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = quoteTyped(x);
      return out;
    }
    return v;
  };
  return stringify(quoteTyped(value), OPTIONS);
}

/** Renders a kubeconfig as YAML (`clientcmd.Write` bytes) or sorted JSON. */
export function renderKubeconfig(
  config: Record<string, unknown>,
  format: "yaml" | "json",
): string {
  return format === "json" ? toJson(config) : kubeconfigYaml(config);
}
