/**
 * A fast YAML emitter for many small manifests of fixed shape (maps of
 * strings, as Secrets are), byte-identical to `renderObjects(objects, "yaml")`:
 * scalars that are trivially plain are written directly, every other scalar
 * is rendered once by go-yaml's rules (`k8s/goyaml_scalar`) and cached, and
 * any object with another shape (arrays, numbers, empty maps) goes through
 * `toYaml` whole.
 *
 * @module
 */

import { goYamlScalar } from "../k8s/goyaml_scalar.ts";
import { toYaml } from "../k8s/manifest.ts";
import { isObject } from "../base/object.ts";

// Starts with a letter and has no YAML indicator: always plain, never a number.
const SAFE = /^[A-Za-z][A-Za-z0-9._/+=-]*$/;
const KEYWORDS = new Set(["y", "n", "yes", "no", "on", "off", "true", "false", "null"]);
// The one number a letter can start (YAML 1.1 float without digits before the exponent).
const EXPONENT = /^[eE][-+]?[0-9]+$/;
// Lower-case alphanumerics (token IDs and secrets) with a letter that cannot
// occur in a YAML 1.1 number (not a-f, b, o, x, e): plain too.
const ALNUM = /^[a-z0-9]+$/;
const NON_NUMERIC_LETTER = /[g-np-wyz]/;

/** Renders scalars, caching go-yaml's rendering of the unusual ones. */
class ScalarCache {
  #cache = new Map<string, string>();

  /**
   * The scalar as it follows `key:` ending at `column` in a map at `indent`:
   * from its space to its last newline.
   */
  render(value: string, column: number, indent: number): string {
    if (SAFE.test(value) || (ALNUM.test(value) && NON_NUMERIC_LETTER.test(value))) {
      if (!KEYWORDS.has(value.toLowerCase()) && !EXPONENT.test(value)) return " " + value + "\n";
    }
    const id = column + "," + indent + "," + value;
    let out = this.#cache.get(id);
    if (out === undefined) {
      const r = goYamlScalar(value, column, indent);
      out = r.endsLine ? r.text : r.text + "\n";
      if (this.#cache.size < 100_000) this.#cache.set(id, out);
    }
    return out;
  }
}

// Sorted, checked key lists by the maps' own key order: Secrets share a few shapes.
const keyCache = new Map<string, string[] | null>();

// The last few key lists seen (a Secret's three maps take turns), compared key by key: most maps
// are answered without joining their keys into a text.
const recent: { own: string[]; keys: string[] | null }[] = [];

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sortedKeys(map: Record<string, unknown>): string[] | null {
  const own = Object.keys(map);
  for (const r of recent) if (sameKeys(r.own, own)) return r.keys;
  const sig = own.join("\n");
  let keys = keyCache.get(sig);
  if (keys === undefined) {
    keys = own.slice().sort((a, b) => a < b ? -1 : a > b ? 1 : 0);
    const ok = keys.length > 0 &&
      keys.every((k) =>
        // Over 128 bytes go-yaml writes a complex key (`? key`): left to toYaml.
        k.length <= 128 && SAFE.test(k) && !KEYWORDS.has(k.toLowerCase()) && !EXPONENT.test(k)
      );
    if (!ok) keys = null;
    if (keyCache.size < 1000) keyCache.set(sig, keys);
  }
  recent.unshift({ own, keys });
  if (recent.length > 4) recent.pop();
  return keys;
}

function emitMap(map: Record<string, unknown>, indent: string, cache: ScalarCache): string | null {
  const keys = sortedKeys(map);
  if (keys === null) return null;
  let out = "";
  for (const key of keys) {
    const value = map[key];
    if (typeof value === "string") {
      out += indent + key + ":" +
        cache.render(value, indent.length + key.length + 1, indent.length);
    } else if (isObject(value)) {
      const inner = emitMap(value, indent + "  ", cache);
      if (inner === null) return null;
      out += indent + key + ":\n" + inner;
    } else {
      return null;
    }
  }
  return out;
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
  let out = "";
  writeYamlStream(objects, (text) => out += text);
  return out;
}

/**
 * {@link renderYamlStream} handed to `write` in pieces of about 1 MiB, so a
 * stream of any length is never one string in memory.
 *
 * @example
 * ```ts
 * import { writeYamlStream } from "./token_yaml.ts";
 * let out = "";
 * writeYamlStream([{ kind: "Secret" }, { kind: "Secret" }], (t) => out += t);
 * out; // "kind: Secret\n---\nkind: Secret\n"
 * ```
 */
export function writeYamlStream(objects: readonly unknown[], write: (text: string) => void): void {
  const cache = new ScalarCache();
  let out = "";
  for (let i = 0; i < objects.length; i++) {
    const obj = objects[i];
    const text = isObject(obj) ? emitMap(obj, "", cache) : null;
    out += (i > 0 ? "---\n" : "") + (text ?? toYaml(obj));
    if (out.length >= 1 << 20) {
      write(out);
      out = "";
    }
  }
  if (out !== "") write(out);
}
