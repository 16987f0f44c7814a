import assert from "node:assert/strict";
import { formatDuration, parseDuration } from "../../lib/go/duration.ts";
import { InputError } from "../../lib/base/errors.ts";

// Cases from Go's time.ParseDuration tests (src/time/time_test.go, parseDurationTests).
const valid: [string, number][] = [
  ["0", 0],
  ["5s", 5000],
  ["30s", 30_000],
  ["1478s", 1_478_000],
  ["-5s", -5000],
  ["+5s", 5000],
  ["-0", 0],
  ["+0", 0],
  ["5.0s", 5000],
  ["5.6s", 5600],
  ["5.s", 5000],
  [".5s", 500],
  ["1.0s", 1000],
  ["1.004s", 1004],
  ["100.00100s", 100_001],
  ["13ms", 13],
  ["14s", 14_000],
  ["15m", 900_000],
  ["16h", 57_600_000],
  ["3h30m", 12_600_000],
  ["10.5s4m", 250_500],
  ["-2m3.4s", -123_400],
  ["39h9m14.425s", 140_954_425],
  ["24h", 86_400_000],
  ["1h30m", 5_400_000],
  ["90s", 90_000],
  ["87600h", 315_360_000_000],
];

Deno.test("parseDuration() accepts Go's duration syntax", () => {
  for (const [text, ms] of valid) assert.equal(parseDuration(text), ms, text);
  assert.ok(Math.abs(parseDuration("11us") - 0.011) < 1e-12);
  assert.ok(Math.abs(parseDuration("12µs") - 0.012) < 1e-12);
  assert.ok(Math.abs(parseDuration("12μs") - 0.012) < 1e-12);
  assert.ok(Math.abs(parseDuration("10ns") - 0.00001) < 1e-12);
});

Deno.test("parseDuration() rejects what Go rejects", () => {
  for (
    const text of [
      "",
      "3",
      "-",
      "s",
      ".",
      "-.",
      ".s",
      "+.s",
      "1d",
      "1 h",
      "h1",
      "1h-5m",
      "3000000h",
      "1e3s",
    ]
  ) {
    assert.throws(() => parseDuration(text), InputError, text);
  }
});

Deno.test("parseDuration() error names the value and, for units, the unit", () => {
  assert.throws(() => parseDuration("5d"), /invalid duration "5d": unknown unit "d"/);
  assert.throws(() => parseDuration("abc"), /invalid duration "abc"/);
});

Deno.test("formatDuration() prints as Go's Duration.String", () => {
  const cases: [number, string][] = [
    [0, "0s"],
    [86_400_000, "24h0m0s"],
    [90_000, "1m30s"],
    [5_400_000, "1h30m0s"],
    [1500, "1.5s"],
    [-5000, "-5s"],
    [13, "13ms"],
  ];
  for (const [ms, text] of cases) assert.equal(formatDuration(ms), text);
});
