/**
 * Constant-time comparison of secrets and signatures, kept in its own module
 * so that commands which never compare secrets do not load `node:crypto`.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { timingSafeEqual } from "node:crypto";

/**
 * Compares two strings in constant time for equal lengths (unequal lengths
 * are unequal at once, as Go's `subtle.ConstantTimeCompare`): for token
 * secrets and signatures.
 *
 * @example
 * ```ts
 * constantTimeEqual("abc", "abc"); // true
 * ```
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  if (x.length !== y.length) return false;
  return timingSafeEqual(x, y);
}
