/**
 * The token table's shortcuts against the plain algorithm: kubeadm's new
 * tabwriter per token (the header only with the first), each row joined and
 * tab-written on its own; and the name sort against `sort()` of the names.
 */

import assert from "node:assert/strict";
import type { ParsedBootstrapToken } from "../../lib/tokens/bootstrap_token.ts";
import {
  COLUMNS,
  formatTokenRow,
  formatTokenTable,
  sortTokensByName,
  writeTokenTable,
} from "../../lib/tokens/token_list.ts";
import { tabwrite } from "../../lib/go/tabwriter.ts";

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CHARS = "0123456789abcdefghijklmnopqrstuvwxyz";
const DESCRIPTIONS = [
  "",
  "",
  "a fleet token",
  "tab\there",
  "two\nlines",
  "wide 日本語",
  "🙂 emoji",
  "v\vt",
  "f\ff",
];
const USAGES = [[], ["signing"], ["authentication", "signing"], ["authentication", "signing"], [
  "x\ty",
]];
const GROUPS = [[], ["system:bootstrappers:kubeadm:default-node-token"], [
  "system:bootstrappers:a",
  "system:bootstrappers:b",
]];
const EXPIRES = [
  undefined,
  { date: new Date("2026-01-02T00:00:00Z"), offsetMinutes: 0 },
  { date: new Date("2026-01-02T00:00:00Z"), offsetMinutes: 0 },
  { date: new Date("2026-01-01T10:00:00Z"), offsetMinutes: 120 },
  { date: new Date("2025-12-01T00:00:00Z"), offsetMinutes: 0 },
];

function randomTokens(r: () => number, n: number): ParsedBootstrapToken[] {
  const pick = <T>(a: readonly T[]) => a[Math.floor(r() * a.length)]!;
  const word = (k: number) => Array.from({ length: k }, () => CHARS[Math.floor(r() * 36)]).join("");
  const out: ParsedBootstrapToken[] = [];
  for (let i = 0; i < n; i++) {
    const id = word(6);
    const expires = pick(EXPIRES);
    out.push({
      name: "bootstrap-token-" + id,
      token: { id, secret: word(16) },
      description: pick(DESCRIPTIONS),
      usages: [...pick(USAGES)],
      groups: [...pick(GROUPS)],
      ...(expires ? { expires } : {}),
    });
  }
  return out;
}

/** kubeadm's printer: a new tabwriter per token, the header with the first. */
function plainTable(tokens: readonly ParsedBootstrapToken[], now: Date): string {
  const opts = { minwidth: 10, padding: 3 };
  return tokens.map((t, i) =>
    tabwrite((i === 0 ? COLUMNS.join("\t") + "\n" : "") + formatTokenRow(t, now), opts)
  ).join("");
}

Deno.test("formatTokenTable() writes what a tabwriter per row writes, on 3,000 random tables", () => {
  const r = rng(77);
  const now = new Date("2026-01-01T12:00:00Z");
  for (let n = 0; n < 3000; n++) {
    const tokens = randomTokens(r, Math.floor(r() * 6));
    const expected = plainTable(tokens, now);
    assert.equal(formatTokenTable(tokens, now), expected, JSON.stringify(tokens));
  }
});

Deno.test("writeTokenTable() hands out pieces that make formatTokenTable()'s text", () => {
  const tokens = randomTokens(rng(5), 3000);
  const now = new Date("2026-01-01T12:00:00Z");
  const pieces: string[] = [];
  writeTokenTable(tokens, now, (t) => pieces.push(t));
  assert.ok(pieces.length > 1, `${pieces.length} pieces`);
  assert.equal(pieces.join(""), plainTable(tokens, now));
  writeTokenTable([], now, (t) => pieces.push(`unexpected ${t}`));
  assert.ok(!pieces.some((p) => p.startsWith("unexpected")));
});

Deno.test("sortTokensByName() orders as sort() orders the names, valid or not", () => {
  const r = rng(11);
  const odd = [
    "bootstrap-token-ABCDEF",
    "bootstrap-token-abc",
    "bootstrap-token-abcdefg",
    "a",
    "",
    "bootstrap-token-é12345",
    "bootstrap-tokem-abcdef",
    "bootstrap-token-abc.ef",
  ];
  for (let n = 0; n < 500; n++) {
    const tokens = randomTokens(r, Math.floor(r() * 40));
    // Equal names too, and sometimes names of no valid token.
    if (tokens.length > 2 && r() < 0.3) tokens.push({ ...tokens[0]!, description: "second" });
    if (r() < 0.3) {
      tokens.push({
        ...tokens[0] ?? randomTokens(r, 1)[0]!,
        name: odd[Math.floor(r() * odd.length)]!,
      });
    }
    const expected = [...tokens].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    assert.deepStrictEqual(sortTokensByName(tokens), expected);
    assert.deepStrictEqual(
      sortTokensByName(tokens).map((t) => t.name),
      tokens.map((t) => t.name).sort(),
    );
  }
});
