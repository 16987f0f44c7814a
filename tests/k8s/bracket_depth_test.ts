/**
 * parseManifests() refuses flow brackets nested beyond 256 levels before any
 * parser runs, counting brackets in strings too. The count now jumps from
 * bracket to bracket; held here to the character-by-character count it
 * replaced (below) on random texts around the bound.
 */

import assert from "node:assert/strict";
import { MAX_DEPTH, parseManifests } from "../../lib/k8s/manifest.ts";
import { mulberry32 as rng } from "../_fuzz.ts";

/** The count as first written: whether `text` nests brackets beyond MAX_DEPTH. */
function tooDeep(text: string): boolean {
  let depth = 0;
  const first = text.search(/[[{]/);
  if (first < 0) return false;
  for (let i = first; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_DEPTH) return true;
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) depth--;
  }
  return false;
}

const NESTED = /nested more than 256 levels deep/;

Deno.test("parseManifests() refuses bracket nesting beyond the bound exactly where the character count does", () => {
  const r = rng(256);
  let deep = 0, shallow = 0;
  for (let n = 0; n < 2000; n++) {
    // Opening brackets a little more often than closing ones, near the bound, with other text.
    const target = MAX_DEPTH - 20 + Math.floor(r() * 40);
    let text = r() < 0.5 ? "{" : "a: ";
    let depth = 0;
    while (depth < target && text.length < 5000) {
      const x = r();
      if (x < 0.45) {
        text += r() < 0.5 ? "[" : "{";
        depth++;
      } else if (x < 0.6) {
        text += r() < 0.5 ? "]" : "}";
        if (depth > 0) depth--;
      } else text += ["a", '"', "\n", " ", ",", ":", "x1", "'"][Math.floor(r() * 8)]!;
    }
    if (r() < 0.3) text = "]}" + text;
    const want = tooDeep(text);
    let got = false;
    try {
      parseManifests(text, "b.yaml");
    } catch (e) {
      got = NESTED.test(String((e as Error).message));
    }
    assert.equal(got, want, JSON.stringify(text.slice(0, 80)));
    if (want) deep++;
    else shallow++;
  }
  assert.ok(deep > 200 && shallow > 200, JSON.stringify({ deep, shallow }));
});

Deno.test("parseManifests() refuses a value nested beyond the bound through YAML aliases, at the bound exactly", () => {
  for (let chain = 252; chain <= 258; chain++) {
    // a0 is a map; each a<i> holds a<i-1>: a<chain>'s maps reach depth chain + 1. (A long
    // comment raises the bound on values walked once aliases are expanded.)
    let text = `# ${"x".repeat(100_000)}\na0: &a0\n  x: 1\n`;
    for (let i = 1; i <= chain; i++) text += `a${i}: &a${i}\n  y: *a${i - 1}\n`;
    let refused = "";
    try {
      parseManifests(text, "alias.yaml");
    } catch (e) {
      refused = (e as Error).message;
    }
    const want = chain + 1 > MAX_DEPTH
      ? "alias.yaml: document is nested more than 256 levels deep"
      : "";
    assert.equal(refused, want, `chain ${chain}`);
  }
});
