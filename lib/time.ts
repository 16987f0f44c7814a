/**
 * RFC 3339 timestamps as Go's `time.RFC3339` reads and writes them.
 *
 * @module
 */

import { InputError, quote } from "./errors.ts";

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2}))$/;

/**
 * Parses an RFC 3339 timestamp (`2026-01-02T15:04:05Z`, optional fraction and
 * offset). Returns `undefined` when the text is not one.
 *
 * @example
 * ```ts
 * tryParseRfc3339("1970-01-01T01:01:01Z")?.getTime(); // 3661000
 * ```
 */
export function tryParseRfc3339(text: string): Date | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, , sign, oh, om] = m;
  const year = Number(y), month = Number(mo), day = Number(d);
  const hour = Number(h), minute = Number(mi), second = Number(s);
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth) return undefined;
  let ms = Date.UTC(year, month - 1, day, hour, minute, second);
  if (year < 100) ms = new Date(ms).setUTCFullYear(year);
  if (frac) ms += Math.floor(Number(`0${frac}`) * 1000);
  if (sign) {
    if (Number(oh) > 23 || Number(om) > 59) return undefined;
    const offset = (Number(oh) * 60 + Number(om)) * 60_000;
    ms += sign === "+" ? -offset : offset;
  }
  return new Date(ms);
}

/**
 * Parses an RFC 3339 timestamp or throws an {@link InputError} naming `what`.
 *
 * @example
 * ```ts
 * parseRfc3339("2026-11-22T00:00:00Z", "--now");
 * ```
 */
export function parseRfc3339(text: string, what = "time"): Date {
  const date = tryParseRfc3339(text);
  if (!date || Number.isNaN(date.getTime())) {
    throw new InputError(
      `invalid ${what} ${quote(text)}: want RFC 3339, e.g. 2026-01-02T15:04:05Z`,
    );
  }
  return date;
}

/**
 * Formats a date as Go's `time.RFC3339` does for a UTC time: whole seconds, `Z`.
 * Years past 9999 are written as Go writes them (`10292-04-09T23:00:00Z`,
 * not JavaScript's `+010292-…`); a date beyond JavaScript's range is an
 * {@link InputError}, not a `RangeError`.
 *
 * @example
 * ```ts
 * formatRfc3339(new Date(3661000)); // "1970-01-01T01:01:01Z"
 * ```
 */
export function formatRfc3339(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new InputError("time out of range");
  const iso = date.toISOString().replace(/\.\d{3}Z$/, "Z");
  const m = /^([+-])(\d{6})(-.*)$/.exec(iso);
  if (!m) return iso;
  const year = Number(m[2]);
  return `${m[1] === "-" ? "-" + String(year).padStart(4, "0") : String(year)}${m[3]}`;
}
