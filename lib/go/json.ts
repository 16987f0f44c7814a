/**
 * Go's `encoding/json` output, where joinkit prints what a Go program prints
 * (kubeadm's `-o json`). kubectl's JSON (keys sorted) is `toJson` in
 * `k8s/manifest.ts`.
 *
 * @module
 */

/**
 * Serialises as Go's `json.MarshalIndent(v, "", "    ")` plus a newline,
 * keeping key order and escaping `<`, `>`, `&`, U+2028 and U+2029 as Go does.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { goJsonIndent } from "./json.ts";
 * assert.equal(goJsonIndent({ a: "<" }), '{\n    "a": "\\u003c"\n}\n');
 * ```
 */
export function goJsonIndent(value: unknown): string {
  return JSON.stringify(value, null, 4).replace(
    /[<>&\u2028\u2029]/g,
    (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"),
  ) + "\n";
}
