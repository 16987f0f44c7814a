/**
 * RFC 3339 timestamps as Go's `time.Parse(time.RFC3339, …)` reads them and
 * `time.RFC3339` writes them.
 *
 * Reading is a port of Go 1.20+'s `Parse` for that layout: the strict fast
 * path (`parseRFC3339`) and, when it fails, the general layout parser, so the
 * accepted set is the union of both (golang/go#54580: a one-digit hour, a
 * comma before the fraction, zone offsets up to 24:60). Errors are Go's
 * `ParseError.Error()` texts. Go works on bytes, so the port does too (the
 * text is taken as UTF-8), which keeps every length check and every `\x`
 * escape in a message where Go has it.
 *
 * Precision: Go keeps nanoseconds; a JavaScript `Date` keeps milliseconds.
 * {@link parseGoTime} returns the full instant (whole seconds plus
 * nanoseconds); the `Date` helpers truncate to the millisecond, and callers
 * that compare an instant with "now" (token expiry) use {@link GoInstant}
 * so a sub-millisecond difference is judged as Go judges it.
 *
 * @module
 */

import { InputError, quote } from "../base/errors.ts";

/** Go's `time.RFC3339` layout, as it appears in parse errors. */
export const RFC3339_LAYOUT = "2006-01-02T15:04:05Z07:00";

/** An instant as Go's `time.Time` holds it, with the offset it was written in. */
export interface GoInstant {
  /** Whole seconds since the Unix epoch (Go's `t.Unix()`). */
  unix: number;
  /** Nanoseconds within that second, 0–999,999,999 (Go's `t.Nanosecond()`). */
  nanos: number;
  /** The zone offset written in the text, in seconds east of UTC (`Z` = 0). */
  offsetSeconds: number;
}

/** {@link parseGoTime}'s answer: the instant, or Go's error text. */
export type GoTimeResult = { ok: true; time: GoInstant } | { ok: false; error: string };

// Longest value (in bytes) quoted whole in an error; past it the quote is cut, as
// `quote()` in errors.ts cuts, so a huge value cannot make a huge message.
const MAX_QUOTED_BYTES = 64;

/**
 * Go's `time` package `quote`: bytes below space or above 0x7f as `\xNN`,
 * `"` and `\` escaped. `bytes` is a byte string (one char per byte). Cut
 * after {@link MAX_QUOTED_BYTES} bytes, or earlier when escapes make the
 * quote long, marked as `quote()` marks its cuts.
 */
function timeQuote(bytes: string): string {
  let out = '"';
  let i = 0;
  for (; i < bytes.length && i < MAX_QUOTED_BYTES && out.length < 2 * MAX_QUOTED_BYTES; i++) {
    const c = bytes.charCodeAt(i);
    if (c < 0x20 || c >= 0x80) out += "\\x" + c.toString(16).padStart(2, "0");
    else if (c === 0x22 || c === 0x5c) out += "\\" + bytes[i];
    else out += bytes[i];
  }
  out += '"';
  return i < bytes.length ? `${out}… (${bytes.length} chars)` : out;
}

function syntaxError(value: string, valueElem: string, layoutElem: string): string {
  return `parsing time ${timeQuote(value)} as ${timeQuote(RFC3339_LAYOUT)}: cannot parse ${
    timeQuote(valueElem)
  } as ${timeQuote(layoutElem)}`;
}

function messageError(value: string, message: string): string {
  return `parsing time ${timeQuote(value)}${message}`;
}

const isDigitAt = (s: string, i: number) => i < s.length && s[i]! >= "0" && s[i]! <= "9";

const isLeap = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);

function daysIn(month: number, year: number): number {
  if (month === 2) return isLeap(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

// Days from 1970-01-01 to the given proleptic Gregorian date (year 0 included).
function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function instant(
  f: { year: number; month: number; day: number; hour: number; min: number; sec: number },
  nanos: number,
  offsetSeconds: number,
): GoInstant {
  const unix = daysFromCivil(f.year, f.month, f.day) * 86400 + f.hour * 3600 + f.min * 60 +
    f.sec - offsetSeconds;
  return { unix, nanos, offsetSeconds };
}

// Go's parseNanoseconds for a separator plus `n - 1` digits: the first nine
// digits count, the rest are truncated.
function nanosOf(s: string, n: number): number {
  const digits = s.slice(1, Math.min(n, 10));
  return Number(digits) * 10 ** (9 - digits.length);
}

/** Go's `parseRFC3339` (format_rfc3339.go): the strict fixed-position fast path. */
function parseStrict(s: string): GoInstant | undefined {
  let ok = true;
  const parseUint = (t: string, min: number, max: number): number => {
    let x = 0;
    for (const c of t) {
      if (c < "0" || c > "9") {
        ok = false;
        return min;
      }
      x = x * 10 + (c.charCodeAt(0) - 48);
    }
    if (x < min || max < x) {
      ok = false;
      return min;
    }
    return x;
  };
  if (s.length < 19) return undefined;
  const year = parseUint(s.slice(0, 4), 0, 9999);
  const month = parseUint(s.slice(5, 7), 1, 12);
  const day = parseUint(s.slice(8, 10), 1, daysIn(month, year));
  const hour = parseUint(s.slice(11, 13), 0, 23);
  const min = parseUint(s.slice(14, 16), 0, 59);
  const sec = parseUint(s.slice(17, 19), 0, 59);
  if (
    !ok || !(s[4] === "-" && s[7] === "-" && s[10] === "T" && s[13] === ":" && s[16] === ":")
  ) {
    return undefined;
  }
  let rest = s.slice(19);
  let nanos = 0;
  if (rest.length >= 2 && rest[0] === "." && isDigitAt(rest, 1)) {
    let n = 2;
    while (n < rest.length && isDigitAt(rest, n)) n++;
    nanos = nanosOf(rest, n);
    rest = rest.slice(n);
  }
  const fields = { year, month, day, hour, min, sec };
  if (rest === "Z") return instant(fields, nanos, 0);
  if (rest.length !== 6) return undefined;
  const hr = parseUint(rest.slice(1, 3), 0, 23);
  const mm = parseUint(rest.slice(4, 6), 0, 59);
  if (!ok || !((rest[0] === "-" || rest[0] === "+") && rest[3] === ":")) return undefined;
  const offset = (hr * 60 + mm) * 60 * (rest[0] === "-" ? -1 : 1);
  return instant(fields, nanos, offset);
}

// Go's getnum: one or two digits (`fixed` forces two).
function getnum(s: string, fixed: boolean): { n: number; rest: string } | undefined {
  if (!isDigitAt(s, 0)) return undefined;
  if (!isDigitAt(s, 1)) {
    if (fixed) return undefined;
    return { n: s.charCodeAt(0) - 48, rest: s.slice(1) };
  }
  return { n: (s.charCodeAt(0) - 48) * 10 + s.charCodeAt(1) - 48, rest: s.slice(2) };
}

/**
 * Go's general `parse` specialised to the RFC 3339 layout, element by element:
 * `2006` `-` `01` `-` `02` `T` `15` `:` `04` `:` `05` (plus an unannounced
 * fraction) `Z07:00`.
 */
function parseLayout(value: string): GoTimeResult {
  const fail = (error: string): GoTimeResult => ({ ok: false, error });
  let v = value;
  const skip = (prefix: string): boolean => {
    if (!v.startsWith(prefix)) return false;
    v = v.slice(prefix.length);
    return true;
  };
  // 2006: exactly four characters, the first a digit, all digits.
  if (v.length < 4 || !isDigitAt(v, 0) || !/^\d{4}$/.test(v.slice(0, 4))) {
    return fail(syntaxError(value, v, "2006"));
  }
  const year = Number(v.slice(0, 4));
  v = v.slice(4);
  const fixed2 = (elem: string): number | string => {
    const r = getnum(v, true);
    if (!r) return syntaxError(value, v, elem);
    v = r.rest;
    return r.n;
  };
  if (!skip("-")) return fail(syntaxError(value, v, "-"));
  const month = fixed2("01");
  if (typeof month === "string") return fail(month);
  if (month <= 0 || month > 12) return fail(messageError(value, ": month out of range"));
  if (!skip("-")) return fail(syntaxError(value, v, "-"));
  const day = fixed2("02");
  if (typeof day === "string") return fail(day);
  if (!skip("T")) return fail(syntaxError(value, v, "T"));
  const h = getnum(v, false);
  if (!h) return fail(syntaxError(value, v, "15"));
  if (h.n >= 24) return fail(messageError(value, ": hour out of range"));
  v = h.rest;
  if (!skip(":")) return fail(syntaxError(value, v, ":"));
  const min = fixed2("04");
  if (typeof min === "string") return fail(min);
  if (min >= 60) return fail(messageError(value, ": minute out of range"));
  if (!skip(":")) return fail(syntaxError(value, v, ":"));
  const sec = fixed2("05");
  if (typeof sec === "string") return fail(sec);
  if (sec >= 60) return fail(messageError(value, ": second out of range"));
  let nanos = 0;
  if (v.length >= 2 && (v[0] === "." || v[0] === ",") && isDigitAt(v, 1)) {
    let n = 2;
    while (n < v.length && isDigitAt(v, n)) n++;
    nanos = nanosOf(v, n);
    v = v.slice(n);
  }
  // Z07:00
  let offset = 0;
  if (v.length >= 1 && v[0] === "Z") {
    v = v.slice(1);
  } else {
    const hold = v;
    if (v.length < 6 || v[3] !== ":") return fail(syntaxError(value, hold, "Z07:00"));
    const sign = v[0];
    const hr = getnum(v.slice(1, 3), true);
    const mm = hr ? getnum(v.slice(4, 6), true) : undefined;
    v = v.slice(6);
    // Go's range tests use > (offsets of 24 hours or 60 minutes are written by some), and
    // the minute message wins when both are out of range.
    if (mm && mm.n > 60) return fail(messageError(value, ": time zone offset minute out of range"));
    if (hr && hr.n > 24) return fail(messageError(value, ": time zone offset hour out of range"));
    if (!hr || !mm || (sign !== "+" && sign !== "-")) {
      return fail(syntaxError(value, hold, "Z07:00"));
    }
    offset = (hr.n * 60 + mm.n) * 60 * (sign === "-" ? -1 : 1);
  }
  if (v.length !== 0) return fail(messageError(value, `: extra text: ${timeQuote(v)}`));
  if (day < 1 || day > daysIn(month, year)) return fail(messageError(value, ": day out of range"));
  return { ok: true, time: instant({ year, month, day, hour: h.n, min, sec }, nanos, offset) };
}

// The text as Go sees it: its UTF-8 bytes, one char per byte.
function byteString(text: string): string {
  // deno-lint-ignore no-control-regex
  if (/^[\x00-\x7f]*$/.test(text)) return text;
  let out = "";
  for (const b of new TextEncoder().encode(text)) out += String.fromCharCode(b);
  return out;
}

/**
 * Go's `time.Parse(time.RFC3339, text)`: the instant with nanoseconds, or
 * Go's exact error text (values longer than 64 bytes are cut in it).
 *
 * @example
 * ```ts
 * parseGoTime("2006-01-02T5:04:05,5+24:00"); // ok (Go's fallback parser accepts it)
 * parseGoTime("2006-01-02t15:04:05z").ok; // false
 * ```
 */
export function parseGoTime(text: string): GoTimeResult {
  const s = byteString(text);
  const fast = parseStrict(s);
  if (fast) return { ok: true, time: fast };
  return parseLayout(s);
}

/**
 * The `Date` of an instant, truncated to the millisecond.
 *
 * @example
 * ```ts
 * toDate({ unix: 1, nanos: 999_999, offsetSeconds: 0 }).getTime(); // 1000
 * ```
 */
export function toDate(t: GoInstant): Date {
  return new Date(t.unix * 1000 + Math.floor(t.nanos / 1e6));
}

/**
 * `t.Sub(now)` as a sign: negative, zero or positive. `now` is a `Date`
 * (millisecond resolution); `t` keeps its nanoseconds, so an instant 0.5 ms
 * after `now` is after it, as in Go.
 */
export function compareToDate(t: GoInstant, now: Date): number {
  const ms = t.unix * 1000 + Math.floor(t.nanos / 1e6);
  const diff = ms - now.getTime();
  if (diff !== 0) return Math.sign(diff);
  return t.nanos % 1e6 === 0 ? 0 : 1;
}

/**
 * Parses an RFC 3339 timestamp as Go's `time.Parse(time.RFC3339, …)` does,
 * truncated to the millisecond. Returns `undefined` when Go refuses it.
 *
 * @example
 * ```ts
 * tryParseRfc3339("1970-01-01T01:01:01Z")?.getTime(); // 3661000
 * ```
 */
export function tryParseRfc3339(text: string): Date | undefined {
  const r = parseGoTime(text);
  return r.ok ? toDate(r.time) : undefined;
}

/**
 * Parses an RFC 3339 timestamp or throws an {@link InputError} naming `what`
 * with Go's parse error.
 *
 * @example
 * ```ts
 * parseRfc3339("2026-11-22T00:00:00Z", "--now");
 * ```
 */
export function parseRfc3339(text: string, what = "time"): Date {
  const r = parseGoTime(text);
  if (!r.ok) throw new InputError(`invalid ${what} ${quote(text)}: ${r.error}`);
  return toDate(r.time);
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

/** A time as Go's `time.Parse(time.RFC3339, …)` keeps it: the instant and its UTC offset. */
export interface GoTime {
  /** The instant, truncated to the millisecond. */
  date: Date;
  /** The offset it was written with, in minutes east of UTC. */
  offsetMinutes: number;
  /** The full instant (nanoseconds kept), when it was parsed from text. */
  instant?: GoInstant;
}

/** A {@link GoTime} of a parsed instant. */
export function goTimeOf(instant: GoInstant): GoTime {
  return { date: toDate(instant), offsetMinutes: instant.offsetSeconds / 60, instant };
}

/**
 * Parses RFC 3339 as Go's `time.Parse(time.RFC3339, s)` does (see
 * {@link parseGoTime}), keeping the offset; `undefined` where Go returns an error.
 *
 * @example
 * ```ts
 * parseGoRfc3339("2030-01-01T02:00:00+02:00")?.offsetMinutes; // 120
 * ```
 */
export function parseGoRfc3339(text: string): GoTime | undefined {
  const r = parseGoTime(text);
  return r.ok ? goTimeOf(r.time) : undefined;
}

/**
 * Formats as Go's `t.Format(time.RFC3339)` in the time's own offset: whole
 * seconds, `Z` for a zero offset, else `±hh:mm`.
 *
 * @example
 * ```ts
 * formatGoRfc3339({ date: new Date(0), offsetMinutes: 60 }); // "1970-01-01T01:00:00+01:00"
 * ```
 */
export function formatGoRfc3339(t: GoTime): string {
  const local = new Date(t.date.getTime() + t.offsetMinutes * 60_000);
  const base = formatRfc3339(local).slice(0, -1);
  if (t.offsetMinutes === 0) return base + "Z";
  const abs = Math.abs(t.offsetMinutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, "0");
  const mm = String(abs % 60).padStart(2, "0");
  return `${base}${t.offsetMinutes < 0 ? "-" : "+"}${hh}:${mm}`;
}
