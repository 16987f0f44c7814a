/**
 * Go `time.Duration` syntax, as kubeadm's flags use it (`24h`, `1h30m`, `90s`, `0`).
 *
 * @module
 */

import { InputError, quote } from "../base/errors.ts";

const UNIT_NS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  "µs": 1_000n, // U+00B5 micro sign
  "μs": 1_000n, // U+03BC greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/** Largest duration Go can represent: int64 nanoseconds. */
const MAX_NS = (1n << 63n) - 1n;

/**
 * Parses a Go duration string into milliseconds (may be fractional below 1 ms).
 *
 * Accepts what Go's `time.ParseDuration` accepts: an optional sign, then one or
 * more `<number><unit>` pairs; a bare `0` is zero. Arithmetic is in integer
 * nanoseconds, truncating fractions as Go does, so `14.425s` is exact.
 *
 * @example
 * ```ts
 * parseDuration("1h30m"); // 5_400_000
 * ```
 */
export function parseDuration(text: string): number {
  const fail = () => new InputError(`invalid duration ${quote(text)}`);
  let s = text;
  let negative = false;
  if (s.startsWith("-") || s.startsWith("+")) {
    negative = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return 0;
  if (s === "") throw fail();
  let total = 0n;
  const re = /^(\d*)(?:\.(\d*))?([a-zµμ]+)/;
  while (s !== "") {
    const m = re.exec(s);
    if (!m) throw fail();
    const [whole, intPart = "", fracPart = "", unitName = ""] = m;
    if (intPart === "" && fracPart === "") throw fail();
    const unit = UNIT_NS[unitName];
    if (unit === undefined) {
      throw new InputError(
        `invalid duration ${quote(text)}: unknown unit ${quote(unitName)}`,
      );
    }
    if (intPart.length > 20) throw fail();
    let value = BigInt(intPart || "0") * unit;
    if (fracPart !== "") {
      const digits = fracPart.slice(0, 30);
      value += (BigInt(digits) * unit) / 10n ** BigInt(digits.length);
    }
    total += value;
    if (total > MAX_NS) throw fail();
    s = s.slice(whole.length);
  }
  const ms = Number(total) / 1e6;
  return negative ? -ms : ms;
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
