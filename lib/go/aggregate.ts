/**
 * apimachinery's `utilerrors.Aggregate`: several errors as one message.
 *
 * @module
 */

/**
 * Joins errors as `utilerrors.NewAggregate(...).Error()`: one message alone,
 * several deduplicated inside `[a, b]`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { aggregateErrors } from "./aggregate.ts";
 * assert.equal(aggregateErrors(["a", "b", "a"]), "[a, b]");
 * assert.equal(aggregateErrors(["a"]), "a");
 * ```
 */
export function aggregateErrors(errs: readonly string[]): string {
  const unique = [...new Set(errs)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(", ")}]`;
}
