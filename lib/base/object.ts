/**
 * Small helpers for values read from JSON or YAML.
 *
 * @module
 */

/**
 * Whether a parsed value is a map (a plain object, not an array or `null`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isObject } from "./object.ts";
 * assert.equal(isObject({ kind: "Secret" }), true);
 * assert.equal(isObject([1]), false);
 * ```
 */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
