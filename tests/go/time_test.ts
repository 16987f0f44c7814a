import assert from "node:assert/strict";
import {
  compareToDate,
  formatRfc3339,
  parseGoTime,
  parseRfc3339,
  toDate,
  tryParseRfc3339,
} from "../../lib/go/time.ts";

interface GoRow {
  input: string;
  ok: boolean;
  unix?: number;
  nanos?: number;
  error?: string;
}

const fixture = JSON.parse(
  Deno.readTextFileSync(new URL("../fixtures/time/rfc3339-go.json", import.meta.url)),
) as { rows: GoRow[] };

Deno.test("parseGoTime() agrees with Go's time.Parse(time.RFC3339) on every fixture row", () => {
  assert.ok(fixture.rows.length > 900);
  for (const row of fixture.rows) {
    const got = parseGoTime(row.input);
    if (row.ok) {
      assert.ok(got.ok, `${JSON.stringify(row.input)}: ${!got.ok && got.error}`);
      assert.equal(got.time.unix, row.unix, JSON.stringify(row.input));
      assert.equal(got.time.nanos, row.nanos, JSON.stringify(row.input));
    } else {
      assert.ok(!got.ok, `${JSON.stringify(row.input)} accepted, Go: ${row.error}`);
      assert.equal(got.error, row.error);
    }
  }
});

Deno.test("parseGoTime() accepts vector 34, Go's fallback laxities included", () => {
  const cases: [string, string, number][] = [
    ["2021-09-29T16:04:33.000000001Z", "2021-09-29T16:04:33Z", 1],
    ["2021-09-29T16:04:33.0123456789Z", "2021-09-29T16:04:33Z", 12345678], // truncated
    ["2021-09-29T16:04:33.9999999999999999Z", "2021-09-29T16:04:33Z", 999999999],
    ["2008-09-17T20:04:26Z", "2008-09-17T20:04:26Z", 0],
    ["1994-09-17T20:04:26-05:00", "1994-09-18T01:04:26Z", 0],
    ["2000-12-26T01:15:06+04:20", "2000-12-25T20:55:06Z", 0],
    ["2006-01-02T5:04:05Z", "2006-01-02T05:04:05Z", 0], // one-digit hour
    ["2006-01-02T15:04:05,5Z", "2006-01-02T15:04:05Z", 500000000], // comma
    ["2006-01-02T15:04:05+24:00", "2006-01-01T15:04:05Z", 0], // offset hour 24
    ["2006-01-02T15:04:05-23:60", "2006-01-03T15:04:05Z", 0], // offset minute 60
    ["0000-01-01T00:00:00Z", "0000-01-01T00:00:00Z", 0],
    ["9999-12-31T23:59:59Z", "9999-12-31T23:59:59Z", 0],
  ];
  for (const [text, utc, nanos] of cases) {
    const r = parseGoTime(text);
    assert.ok(r.ok, text);
    assert.equal(formatRfc3339(toDate(r.time)), utc, text);
    assert.equal(r.time.nanos, nanos, text);
  }
});

Deno.test("parseGoTime() refuses with Go's exact ParseError text (vector 35)", () => {
  const L = '"2006-01-02T15:04:05Z07:00"';
  const cases: [string, string][] = [
    [
      "2006-01-02T15:04:05Z07:00",
      'parsing time "2006-01-02T15:04:05Z07:00": extra text: "07:00"',
    ],
    [
      "2006-01-02T15:04_abc",
      `parsing time "2006-01-02T15:04_abc" as ${L}: cannot parse "_abc" as ":"`,
    ],
    [
      "2006-01-02T15:04:05_abc",
      `parsing time "2006-01-02T15:04:05_abc" as ${L}: cannot parse "_abc" as "Z07:00"`,
    ],
    [
      "2006-01-02T15:04:05Z_abc",
      'parsing time "2006-01-02T15:04:05Z_abc": extra text: "_abc"',
    ],
    [
      "2010-02-04T21:00:67.012345678-08:00",
      'parsing time "2010-02-04T21:00:67.012345678-08:00": second out of range',
    ],
    [
      "0000-01-01T00:00:.0+00:00",
      `parsing time "0000-01-01T00:00:.0+00:00" as ${L}: cannot parse ".0+00:00" as "05"`,
    ],
    [
      "0000-01-01T00:00:00+00:+0",
      `parsing time "0000-01-01T00:00:00+00:+0" as ${L}: cannot parse "+00:+0" as "Z07:00"`,
    ],
    [
      "0000-01-01T00:00:00+-0:00",
      `parsing time "0000-01-01T00:00:00+-0:00" as ${L}: cannot parse "+-0:00" as "Z07:00"`,
    ],
    ['"', `parsing time "\\"" as ${L}: cannot parse "\\"" as "2006"`],
    ["2023-02-29T00:00:00Z", 'parsing time "2023-02-29T00:00:00Z": day out of range'],
    ["2024-01-01T24:00:00Z", 'parsing time "2024-01-01T24:00:00Z": hour out of range'],
    [
      "2024-01-01T00:00:00+25:00",
      'parsing time "2024-01-01T00:00:00+25:00": time zone offset hour out of range',
    ],
    [
      "2024-01-01T00:00:00Z\n",
      'parsing time "2024-01-01T00:00:00Z\\x0a": extra text: "\\x0a"',
    ],
  ];
  for (const [text, error] of cases) assert.deepEqual(parseGoTime(text), { ok: false, error });
});

Deno.test("parseGoTime() refuses what neither Go path takes", () => {
  for (
    const text of [
      "",
      "2030-01-01t05:00:00z",
      "2030-01-01 05:00:00Z",
      "2030-01-01T05:00:00",
      "2030-01-01T05:00:00+0530",
      "2030-01-01T05:00:00+05",
      " 2030-01-01T05:00:00Z",
      "2030-01-01T05:00:00Z ",
      "203-01-01T05:00:00Z",
      "20300-01-01T05:00:00Z",
      "2030-1-01T05:00:00Z",
      "2030-01-1T05:00:00Z",
      "2030-01-01T05:0:00Z",
      "2030-01-01T05:00:0Z",
      "2030-01-01T23:59:60Z",
      "2030-04-31T00:00:00Z",
      "2030-01-01T05:00:00.Z",
    ]
  ) {
    assert.equal(parseGoTime(text).ok, false, text);
    assert.equal(tryParseRfc3339(text), undefined, text);
  }
});

Deno.test("parseGoTime() keeps error messages bounded on huge values", () => {
  const r = parseGoTime("2030-01-01T05:00:00Z" + "x".repeat(300_000));
  assert.ok(!r.ok);
  assert.ok(r.error.length < 400, String(r.error.length));
  assert.match(r.error, /^parsing time "2030-01-01T05:00:00Zx+"… \(300020 chars\): extra text: /);
  const t0 = performance.now();
  parseGoTime("9".repeat(1_000_000));
  parseGoTime("2030-01-01T05:00:00." + "1".repeat(1_000_000) + "Z");
  assert.ok(performance.now() - t0 < 2000);
});

Deno.test("parseGoTime() escapes bytes as Go's time.quote does", () => {
  const r = parseGoTime("2030-01-01T05:00:00\u00e9");
  assert.ok(!r.ok);
  assert.equal(
    r.error,
    'parsing time "2030-01-01T05:00:00\\xc3\\xa9" as "2006-01-02T15:04:05Z07:00": cannot parse "\\xc3\\xa9" as "Z07:00"',
  );
});

Deno.test("compareToDate() judges sub-millisecond instants as Go's t.Sub(now)", () => {
  const now = new Date("2030-01-01T05:00:00.000Z");
  const at = (s: string) => {
    const r = parseGoTime(s);
    assert.ok(r.ok);
    return r.time;
  };
  assert.equal(compareToDate(at("2030-01-01T05:00:00Z"), now), 0);
  assert.equal(compareToDate(at("2030-01-01T05:00:00.0000001Z"), now), 1);
  assert.equal(compareToDate(at("2030-01-01T05:00:00.000999999Z"), now), 1);
  assert.equal(compareToDate(at("2030-01-01T04:59:59.999999999Z"), now), -1);
  assert.equal(compareToDate(at("2030-01-01T05:00:00.001Z"), now), 1);
});

Deno.test("tryParseRfc3339() truncates to the millisecond", () => {
  assert.equal(
    tryParseRfc3339("2026-11-22T10:00:00.9999999Z")?.toISOString(),
    "2026-11-22T10:00:00.999Z",
  );
  assert.equal(tryParseRfc3339("0000-03-01T00:00:00Z")?.getUTCFullYear(), 0);
});

Deno.test("parseRfc3339() names the flag and gives Go's reason", () => {
  assert.throws(
    () => parseRfc3339("yesterday", "--now"),
    {
      message: 'invalid --now "yesterday": parsing time "yesterday" as ' +
        '"2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
    },
  );
});

Deno.test("formatRfc3339() writes whole seconds in UTC, as Go's time.RFC3339", () => {
  assert.equal(formatRfc3339(new Date(3_661_000)), "1970-01-01T01:01:01Z");
  assert.equal(formatRfc3339(new Date("2026-11-22T10:00:00.999Z")), "2026-11-22T10:00:00Z");
});
