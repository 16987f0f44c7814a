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
 * import { isObject } from "./object.ts";
 * isObject({ kind: "Secret" }); // true
 * isObject([1]); // false
 * ```
 */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
