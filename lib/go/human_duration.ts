/**
 * apimachinery's `duration.ShortHumanDuration`, the age/TTL column of
 * kubeadm's and kubectl's tables.
 *
 * @module
 */

/**
 * `ShortHumanDuration`: `<invalid>` below -1 s, `0s` just below zero, then
 * whole seconds, minutes, hours, days (under 365 days) or years, truncated.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { shortHumanDuration } from "./human_duration.ts";
 * assert.equal(shortHumanDuration(23.5 * 3_600_000), "23h");
 * assert.equal(shortHumanDuration(-5_000), "<invalid>");
 * ```
 */
export function shortHumanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.trunc(ms / 60_000);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.trunc(ms / 3_600_000);
  if (hours < 24) return `${hours}h`;
  if (hours < 24 * 365) return `${Math.trunc(hours / 24)}d`;
  return `${Math.trunc(ms / 3_600_000 / 24 / 365)}y`;
}
