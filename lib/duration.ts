/**
 * Go `time.Duration` syntax, as kubeadm's flags use it (`24h`, `1h30m`, `90s`, `0`).
 *
 * @module
 */

import { InputError } from "./errors.ts";

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  "µs": 1e-3, // U+00B5 micro sign
  "μs": 1e-3, // U+03BC greek mu
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Largest duration Go can represent (int64 nanoseconds), in milliseconds. */
const MAX_MS = 9_223_372_036_854.775;

/**
 * Parses a Go duration string into milliseconds (may be fractional below 1 ms).
 *
 * Accepts what Go's `time.ParseDuration` accepts: an optional sign, then one or
 * more `<number><unit>` pairs; a bare `0` is zero.
 *
 * @example
 * ```ts
 * parseDuration("1h30m"); // 5_400_000
 * ```
 */
export function parseDuration(text: string): number {
  const orig = text;
  const fail = () => new InputError(`invalid duration ${JSON.stringify(orig)}`);
  let s = text;
  let sign = 1;
  if (s.startsWith("-") || s.startsWith("+")) {
    if (s[0] === "-") sign = -1;
    s = s.slice(1);
  }
  if (s === "0") return 0;
  if (s === "") throw fail();
  let total = 0;
  const re = /^(\d*)(?:\.(\d*))?([a-zµμ]+)/;
  while (s !== "") {
    const m = re.exec(s);
    if (!m) throw fail();
    const [whole, intPart = "", fracPart, unit = ""] = m;
    if (intPart === "" && (fracPart === undefined || fracPart === "")) throw fail();
    const perUnit = UNIT_MS[unit];
    if (perUnit === undefined) {
      throw new InputError(
        `invalid duration ${JSON.stringify(orig)}: unknown unit ${JSON.stringify(unit)}`,
      );
    }
    const value = Number(`${intPart || "0"}.${fracPart ?? ""}0`);
    total += value * perUnit;
    if (!Number.isFinite(total) || total > MAX_MS) throw fail();
    s = s.slice(whole.length);
  }
  return sign * total;
}

/**
 * Formats milliseconds the way Go's `Duration.String` does: `24h0m0s`, `1m30s`, `0s`.
 * Sub-second parts are kept to millisecond precision.
 *
 * @example
 * ```ts
 * formatDuration(86_400_000); // "24h0m0s"
 * ```
 */
export function formatDuration(ms: number): string {
  if (ms === 0) return "0s";
  const neg = ms < 0;
  let rest = Math.abs(ms);
  if (rest < 1000) {
    const text = Number.isInteger(rest) ? `${rest}ms` : `${rest * 1000}µs`;
    return (neg ? "-" : "") + text;
  }
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const secs = rest / 1000;
  let out = "";
  if (h > 0) out += `${h}h`;
  if (h > 0 || m > 0) out += `${m}m`;
  out += `${Number(secs.toFixed(3))}s`;
  return (neg ? "-" : "") + out;
}
