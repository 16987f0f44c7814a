/**
 * Typed access to parsed flags, with joinkit's usage errors.
 *
 * @module
 */

import { UsageError } from "../lib/base/errors.ts";
import type { Context, Flags } from "./_command.ts";

/** A string flag, or `undefined` when absent. */
export function flagString(flags: Flags, name: string): string | undefined {
  const v = flags[name];
  if (Array.isArray(v)) return v.length ? String(v[v.length - 1]) : undefined;
  return typeof v === "string" ? v : undefined;
}

/** A string flag that must be present. */
export function requireString(flags: Flags, name: string): string {
  const v = flagString(flags, name);
  if (v === undefined) throw new UsageError(`missing required flag --${name}`);
  return v;
}

/** A repeatable string flag; each value may also hold a comma-separated list when `split`. */
export function flagList(flags: Flags, name: string, split = false): string[] {
  const v = flags[name];
  const raw = v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)];
  return split ? raw.flatMap((s) => s.split(",")) : raw;
}

/** A boolean flag. */
export function flagBool(flags: Flags, name: string): boolean {
  return flags[name] === true;
}

/** A non-negative integer flag within `[min, max]`, or `fallback` when absent. */
export function flagInt(
  flags: Flags,
  name: string,
  fallback: number,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const v = flagString(flags, name);
  if (v === undefined) return fallback;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
    throw new UsageError(
      `--${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(v)}`,
    );
  }
  return Number(v);
}

/** One of a fixed set of values (e.g. `-o yaml|json`). */
export function flagChoice<T extends string>(
  flags: Flags,
  name: string,
  choices: readonly T[],
  fallback: T,
): T {
  const v = flagString(flags, name);
  if (v === undefined) return fallback;
  if (!(choices as readonly string[]).includes(v)) {
    throw new UsageError(`--${name} must be one of ${choices.join("|")}, got ${JSON.stringify(v)}`);
  }
  return v as T;
}

/** Checks the number of positional arguments. */
export function expectArgs(ctx: Context, min: number, max: number, what: string): void {
  if (ctx.args.length < min) throw new UsageError(`missing argument: ${what}`);
  if (ctx.args.length > max) {
    throw new UsageError(`unexpected argument ${JSON.stringify(ctx.args[max])}`);
  }
}
