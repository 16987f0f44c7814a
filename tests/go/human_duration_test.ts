import assert from "node:assert/strict";
import { shortHumanDuration } from "../../lib/go/human_duration.ts";

const S = 1000, M = 60 * S, H = 60 * M, D = 24 * H;

Deno.test("shortHumanDuration() matches apimachinery's ShortHumanDuration", () => {
  const cases: [number, string][] = [
    [-2 * S, "<invalid>"],
    [-1999, "0s"],
    [-S, "0s"],
    [-1, "0s"],
    [0, "0s"],
    [999, "0s"],
    [59 * S + 999, "59s"],
    [60 * S, "1m"],
    [59 * M + 59 * S, "59m"],
    [H, "1h"],
    [23 * H + 54 * M + 17 * S, "23h"],
    [D, "1d"],
    [364 * D + 23 * H, "364d"],
    [365 * D, "1y"],
    [3 * 365 * D - 1, "2y"],
  ];
  for (const [ms, want] of cases) assert.equal(shortHumanDuration(ms), want, String(ms));
});

Deno.test("shortHumanDuration() agrees at the unit boundaries cert inspect shows", () => {
  const s = 1000, m = 60 * s, h = 60 * m, d = 24 * h;
  assert.equal(shortHumanDuration(-5 * s), "<invalid>");
  assert.equal(shortHumanDuration(-500), "0s");
  assert.equal(shortHumanDuration(59 * s), "59s");
  assert.equal(shortHumanDuration(59 * m), "59m");
  assert.equal(shortHumanDuration(23 * h + 59 * m), "23h");
  assert.equal(shortHumanDuration(364 * d + 23 * h), "364d");
  assert.equal(shortHumanDuration(365 * d), "1y");
  assert.equal(shortHumanDuration(3649 * d), "9y");
});
