/**
 * commands/_list_output.ts: reports written one by one are the bytes
 * renderData gives all of them; output is held until it passes the hold
 * size, and nothing is written for a run that does not end.
 */

import assert from "node:assert/strict";
import { dataListWriter, HeldOutput, ShapeWriter } from "../../commands/_list_output.ts";
import { renderData } from "../../commands/_flags.ts";

/** A seeded PRNG (mulberry32). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A report-like value: nested maps and lists, strings that need quoting or blocks. */
function report(rnd: () => number, depth = 0): unknown {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const leaf = () =>
    pick<unknown>([
      "ok",
      "yes",
      "",
      "a: b",
      "line1\nline2\n",
      "x\ty",
      "0123",
      "CN=system:node:w1,O=system:nodes",
      true,
      false,
      null,
      42,
      -1.5,
      "\u00e9",
      "# not a comment",
    ]);
  if (depth > 2 || rnd() < 0.3) return leaf();
  if (rnd() < 0.3) {
    return Array.from({ length: Math.floor(rnd() * 3) }, () => report(rnd, depth + 1));
  }
  const out: Record<string, unknown> = {};
  for (const k of ["source", "checks", "b", "Zed", "a10", "a9", "ok"]) {
    if (rnd() < 0.5) out[k] = report(rnd, depth + 1);
  }
  return out;
}

Deno.test("DataListWriter() writes what renderData writes for 0, 1 and many values, JSON and YAML", async () => {
  for (let seed = 1; seed <= 400; seed++) {
    const rnd = prng(seed);
    const n = seed % 4 === 0 ? 0 : seed % 4 === 1 ? 1 : 2 + Math.floor(rnd() * 6);
    const values = Array.from({ length: n }, () => {
      const r = report(rnd);
      return typeof r === "object" && r !== null && !Array.isArray(r) ? r : { v: r };
    });
    for (const format of ["json", "yaml"] as const) {
      for (const oneAlone of [false, true]) {
        let got = "";
        const out = new HeldOutput((t) => got += t, 64);
        const w = await dataListWriter(format, out, oneAlone);
        for (const v of values) w.add(v);
        w.end();
        const want = await renderData(oneAlone && n === 1 ? values[0] : values, format);
        assert.equal(got, want, `seed ${seed} ${format} oneAlone=${oneAlone}`);
      }
    }
  }
});

Deno.test("HeldOutput() holds output up to its size, then writes through; nothing without end()", () => {
  const writes: string[] = [];
  const out = new HeldOutput((t) => writes.push(t), 10);
  out.write("abc");
  out.write("def");
  assert.deepEqual(writes, []);
  out.write("ghijk"); // 11 > 10: what was held goes out in one piece
  assert.deepEqual(writes, ["abcdefghijk"]);
  out.write("l");
  assert.deepEqual(writes, ["abcdefghijk", "l"]);
  out.end();
  assert.deepEqual(writes, ["abcdefghijk", "l"]);
  const none: string[] = [];
  const failed = new HeldOutput((t) => none.push(t), 10);
  failed.write("partial");
  assert.deepEqual(none, []); // a run that throws before end() prints nothing
  const small: string[] = [];
  const ok = new HeldOutput((t) => small.push(t), 10);
  ok.write("a");
  ok.write("");
  ok.write("b");
  ok.end();
  assert.deepEqual(small, ["ab"]);
});

Deno.test("ShapeWriter() writes what renderInInputShape writes: Lists, streams, JSON, one object alone", async () => {
  const m = await import("../../lib/k8s/manifest.ts");
  for (let seed = 1; seed <= 300; seed++) {
    const rnd = prng(seed);
    const n = 1 + (seed % 3 === 0 ? 0 : Math.floor(rnd() * 6));
    const objects = Array.from({ length: n }, (_, i) => {
      const r = report(rnd);
      return { kind: "CertificateSigningRequest", metadata: { name: `csr-${i}` }, spec: r };
    });
    for (const format of ["json", "yaml"] as const) {
      for (const wasList of [false, true]) {
        let got = "";
        const w = new ShapeWriter(m, format, wasList, (t) => got += t);
        for (const o of objects) w.add(o);
        w.end();
        assert.equal(
          got,
          m.renderInInputShape(objects, wasList, format),
          `seed ${seed} ${format} wasList=${wasList}`,
        );
      }
    }
  }
});

Deno.test("DataListWriter() keeps strings holding raw U+2028/U+2029 (JSON.stringify leaves them raw; only \\n starts a line)", async () => {
  const values = [{ file: "a\u2028b.crt", note: "x\u2029y" }, { file: "c.crt", note: "" }];
  let got = "";
  const out = new HeldOutput((t) => got += t, 64);
  const w = await dataListWriter("json", out, false);
  for (const v of values) w.add(v);
  w.end();
  assert.equal(got, await renderData(values, "json"));
  assert.deepEqual(JSON.parse(got), values);
});
