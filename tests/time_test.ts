import assert from "node:assert/strict";
import { formatRfc3339, parseRfc3339, tryParseRfc3339 } from "../lib/time.ts";

Deno.test("tryParseRfc3339() reads RFC 3339 with offsets and fractions", () => {
  const cases: [string, string][] = [
    ["1970-01-01T01:01:01Z", "1970-01-01T01:01:01.000Z"],
    ["2026-11-22T10:00:00+02:00", "2026-11-22T08:00:00.000Z"],
    ["2026-11-22T10:00:00-01:30", "2026-11-22T11:30:00.000Z"],
    ["2026-11-22T10:00:00.5Z", "2026-11-22T10:00:00.500Z"],
    ["2024-02-29T00:00:00z", "2024-02-29T00:00:00.000Z"],
  ];
  for (const [text, iso] of cases) assert.equal(tryParseRfc3339(text)?.toISOString(), iso, text);
});

Deno.test("tryParseRfc3339() refuses non-RFC 3339 and impossible dates", () => {
  for (
    const text of [
      "",
      "2026-11-22",
      "2026-11-22 10:00:00Z",
      "2026-11-22T10:00:00",
      "2023-02-29T00:00:00Z",
      "2026-13-01T00:00:00Z",
      "2026-11-22T24:00:00Z",
      "2026-11-22T10:00:00+25:00",
      "Sun, 22 Nov 2026 10:00:00 GMT",
    ]
  ) {
    assert.equal(tryParseRfc3339(text), undefined, text);
  }
});

Deno.test("parseRfc3339() names the flag in its error", () => {
  assert.throws(() => parseRfc3339("yesterday", "--now"), /invalid --now "yesterday"/);
});

Deno.test("formatRfc3339() writes whole seconds in UTC, as Go's time.RFC3339", () => {
  assert.equal(formatRfc3339(new Date(3_661_000)), "1970-01-01T01:01:01Z");
  assert.equal(formatRfc3339(new Date("2026-11-22T10:00:00.999Z")), "2026-11-22T10:00:00Z");
});
