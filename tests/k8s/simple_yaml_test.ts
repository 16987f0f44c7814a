/**
 * parseManifests()'s direct reading of simple YAML streams against js-yaml's
 * (the parser it otherwise uses): the same documents, or the same refusal.
 */

import assert from "node:assert/strict";
import { loadAll, Schema, timestampTag, YAML11_SCHEMA } from "js-yaml";
import { parseManifestChunk, parseManifests } from "../../lib/k8s/manifest.ts";

const SCHEMA = new Schema(YAML11_SCHEMA.tags.filter((t) => t !== timestampTag));

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

const KEYS = ["apiVersion", "kind", "metadata", "name", "data", "a", "b", "constructor", "x-y.z/w"];
const VALUES = [
  "v1",
  "Secret",
  "dHJ1ZQ==",
  "Yes",
  "NO",
  "on",
  "y",
  "Null",
  "true",
  "abc+/=",
  "e5",
  "a:b",
  "0123",
  "12",
  "kube-system",
  "bootstrap.kubernetes.io/token",
  "x y",
  "'q'",
  "~",
  "",
];
const PREFIX = ["", "", "", "", "  ", "  ", "    ", " ", "\t"];

function randomStream(r: () => number): string {
  const pick = <T>(a: readonly T[]) => a[Math.floor(r() * a.length)]!;
  if (r() < 0.5) return simpleStream(r);
  const lines: string[] = [];
  const n = 1 + Math.floor(r() * 12);
  const clean = r() < 0.5;
  const prefix = clean ? ["", "", "  ", "  ", "    "] : PREFIX;
  const values = clean ? VALUES.slice(0, 12) : VALUES;
  for (let i = 0; i < n; i++) {
    const x = r();
    if (x < 0.1) lines.push("---");
    else if (x < 0.12 && !clean) lines.push(pick(["", "# c", "--- ", "...", "-"]));
    else if (x < 0.45) lines.push(`${pick(prefix)}${pick(KEYS)}:`);
    else lines.push(`${pick(prefix)}${pick(KEYS)}: ${pick(values)}`);
  }
  return lines.join("\n") + (r() < 0.8 ? "\n" : "");
}

/** parseManifests's flattening: nested lists opened, nulls skipped, other scalars refused. */
function flatten(docs: unknown[]): unknown[] {
  const out: unknown[] = [];
  const add = (d: unknown) => {
    if (d === null || d === undefined) return;
    if (Array.isArray(d)) d.forEach(add);
    else if (typeof d === "object") out.push(d);
    else throw new Error("not an object");
  };
  docs.forEach(add);
  return out;
}

const SIMPLE_VALUES = [
  "v1",
  "Secret",
  "dHJ1ZQ==",
  "a:b",
  "system:nodes",
  "digital signature",
  "x=y+z/w@v",
  '""',
  '"2026-01-01T00:00:00Z"',
  '"a b # c"',
  "0",
  "12",
  "86400",
  "true",
  "false",
];
const EDGE_VALUES = [
  "Yes",
  "NO",
  "on",
  "y",
  "Null",
  "True",
  "e5",
  "0123",
  "1_0",
  "1e3",
  "-1",
  "'q'",
  '"a\\"',
  '"x"y"',
  "a: b",
  "a #b",
  "a:",
  "x  y",
  " x",
  "x ",
  "~",
  "[]",
  "{}",
  "&a x",
  "*a",
  "!t x",
  "123456789012345678",
  "- x",
  "a\r",
];

/** A stream in (or, now and then, just outside) the simple form: maps, lists, scalars. */
function simpleStream(r: () => number): string {
  const pick = <T>(a: readonly T[]) => a[Math.floor(r() * a.length)]!;
  const value = () => (r() < 0.97 ? pick(SIMPLE_VALUES) : pick(EDGE_VALUES));
  const lines: string[] = [];
  const map = (indent: string, depth: number, first?: string) => {
    const keys = KEYS.filter(() => r() < 0.4);
    if (keys.length === 0) keys.push("a");
    keys.forEach((k, n) => {
      const lead = n === 0 && first !== undefined ? first : indent;
      const x = r();
      if (depth < 3 && x < 0.2) {
        lines.push(`${lead}${k}:`);
        map(indent + "  ", depth + 1);
      } else if (depth < 3 && x < 0.35) {
        lines.push(`${lead}${k}:`);
        const items = 1 + Math.floor(r() * 3);
        for (let j = 0; j < items; j++) {
          if (r() < 0.5) lines.push(`${indent}- ${value()}`);
          else map(indent + "  ", depth + 1, `${indent}- `);
        }
      } else lines.push(`${lead}${k}: ${value()}`);
    });
  };
  const docs = 1 + Math.floor(r() * 4);
  for (let d = 0; d < docs; d++) {
    if (d > 0 || r() < 0.2) lines.push("---");
    map("", 0);
  }
  if (r() < 0.05) lines.splice(Math.floor(r() * lines.length), 1);
  if (r() < 0.05) lines.splice(Math.floor(r() * lines.length), 0, pick(["", "# c", "  x", "-"]));
  return lines.join("\n") + "\n";
}

function outcome(f: () => unknown): string {
  try {
    return JSON.stringify(f());
  } catch {
    return "refused";
  }
}

Deno.test("parseManifests() reads simple YAML streams as js-yaml does (20,000 random streams)", () => {
  const r = rng(7);
  let direct = 0;
  for (let i = 0; i < 20_000; i++) {
    const text = randomStream(r);
    const want = outcome(() => flatten(loadAll(text, { schema: SCHEMA })));
    const got = outcome(() => parseManifests(text, "s.yaml"));
    if (want !== "refused" && want !== "[]") direct++;
    assert.equal(got, want, JSON.stringify(text));
  }
  assert.ok(direct > 1000, `only ${direct} streams parsed`);
});

Deno.test("parseManifestChunk() numbers documents across chunks and bounds them per input", () => {
  const counts = { documents: 0, objects: 0 };
  const a = parseManifestChunk(
    { source: "s.yaml", text: "kind: A\n---\nkind: B\n", index: 0, last: false },
    counts,
  );
  assert.equal(a.length, 2);
  assert.throws(
    () =>
      parseManifestChunk(
        { source: "s.yaml", text: "---\nkind: C\n---\n- 1\n", index: 1, last: true },
        counts,
      ),
    /^InputError: s\.yaml: document 4\[0\] is not an object$/,
  );
  assert.throws(
    () =>
      parseManifestChunk(
        { source: "s.yaml", text: "---\na: [\n", index: 1, last: true },
        { documents: 2, objects: 2 },
      ),
    /s\.yaml: document 3 is not valid YAML/,
  );
  assert.throws(
    () =>
      parseManifestChunk(
        { source: "s.yaml", text: "---\nkind: C\n", index: 1, last: true },
        { documents: 100_000, objects: 100_000 },
      ),
    /s\.yaml: more than 100000 documents/,
  );
});

Deno.test("parseManifests() leaves deeply indented simple YAML to the parser, which refuses it", () => {
  const deep = Array.from({ length: 3000 }, (_, i) => `${"  ".repeat(i)}k${i}:`).join("\n") +
    `\n${"  ".repeat(3000)}v: x\n`;
  assert.throws(() => parseManifests(deep, "deep.yaml"), /deep\.yaml: .*nest/);
});
