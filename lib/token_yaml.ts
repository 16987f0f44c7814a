/**
 * A fast YAML emitter for many small manifests of fixed shape (maps of
 * strings, as Secrets are), byte-identical to `renderObjects(objects, "yaml")`:
 * scalars that are trivially plain are written directly, every other scalar
 * is rendered once by `toYaml` and cached, and any object with another shape
 * (arrays, numbers, multi-line text, empty maps) goes through `toYaml` whole.
 *
 * @module
 */

import { toYaml } from "./manifest.ts";

// Starts with a letter and has no YAML indicator: always plain, never a number.
const SAFE = /^[A-Za-z][A-Za-z0-9._/+=-]*$/;
const KEYWORDS = new Set(["y", "n", "yes", "no", "on", "off", "true", "false", "null"]);
// The one number a letter can start (YAML 1.1 float without digits before the exponent).
const EXPONENT = /^[eE][-+]?[0-9]+$/;
// Lower-case alphanumerics (token IDs and secrets) with a letter that cannot
// occur in a YAML 1.1 number (not a-f, b, o, x, e): plain too.
const ALNUM = /^[a-z0-9]+$/;
const NON_NUMERIC_LETTER = /[g-np-wyz]/;

/** Renders scalars, caching what `toYaml` says about the unusual ones. */
class ScalarCache {
  #cache = new Map<string, string | null>();

  /** The scalar as it appears after `key: `, or `null` if not single-line. */
  render(value: string): string | null {
    if (SAFE.test(value) || (ALNUM.test(value) && NON_NUMERIC_LETTER.test(value))) {
      if (!KEYWORDS.has(value.toLowerCase()) && !EXPONENT.test(value)) return value;
    }
    let out = this.#cache.get(value);
    if (out === undefined) {
      const text = toYaml({ k: value });
      const body = text.slice(3, -1);
      out = text.startsWith("k: ") && text.endsWith("\n") && !body.includes("\n") ? body : null;
      if (this.#cache.size < 100_000) this.#cache.set(value, out);
    }
    return out;
  }
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function emitMap(
  map: Record<string, unknown>,
  indent: string,
  cache: ScalarCache,
  out: string[],
): boolean {
  const keys = Object.keys(map).filter((k) => map[k] !== undefined).sort((a, b) =>
    a < b ? -1 : a > b ? 1 : 0
  );
  if (keys.length === 0) return false;
  for (const key of keys) {
    if (!SAFE.test(key) || KEYWORDS.has(key.toLowerCase()) || EXPONENT.test(key)) return false;
    const value = map[key];
    if (typeof value === "string") {
      const text = cache.render(value);
      if (text === null) return false;
      out.push(`${indent}${key}: ${text}\n`);
    } else if (isMap(value)) {
      out.push(`${indent}${key}:\n`);
      if (!emitMap(value, indent + "  ", cache, out)) return false;
    } else {
      return false;
    }
  }
  return true;
}

/**
 * Renders objects as a `---`-separated YAML stream, byte for byte what
 * `renderObjects(objects, "yaml")` gives, much faster for many Secrets.
 *
 * @example
 * ```ts
 * renderYamlStream([{ apiVersion: "v1", kind: "Secret" }]); // "apiVersion: v1\nkind: Secret\n"
 * ```
 */
export function renderYamlStream(objects: readonly unknown[]): string {
  const cache = new ScalarCache();
  const docs: string[] = [];
  for (const obj of objects) {
    const out: string[] = [];
    docs.push(isMap(obj) && emitMap(obj, "", cache, out) ? out.join("") : toYaml(obj));
  }
  return docs.join("---\n");
}
