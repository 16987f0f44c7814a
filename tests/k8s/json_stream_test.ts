/**
 * lib/k8s/json_stream.ts: a JSON List read item by item gives what
 * parseManifests gives the same text read whole (on random Lists, fed in
 * random blocks, cut into small parts), and refuses what it cannot stream.
 */

import assert from "node:assert/strict";
import { JsonListReader } from "../../lib/k8s/json_stream.ts";
import { type KubeObject, parseManifestChunk, parseManifests } from "../../lib/k8s/manifest.ts";

/** A seeded PRNG (mulberry32), so a failure can be replayed. */
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

/** Reads `text` through the reader (blocks of random size) and parseManifestChunk. */
function streamed(
  text: string,
  rnd: () => number,
  piece: number,
): KubeObject[] | string {
  try {
    const r = new JsonListReader("in.json", 1, piece);
    const parts = [];
    for (let i = 0; i < text.length;) {
      const n = 1 + Math.floor(rnd() * 40);
      parts.push(...r.push(text.slice(i, i + n)));
      i += n;
    }
    parts.push(...r.finish());
    const counts = { documents: 0, objects: 0 };
    const out: KubeObject[] = [];
    parts.forEach((p, index) => {
      out.push(
        ...parseManifestChunk(
          { source: "in.json", text: p.text, index, last: false, list: p.list },
          counts,
        ),
      );
    });
    out.push(
      ...parseManifestChunk(
        { source: "in.json", text: "", index: parts.length, last: true },
        counts,
      ),
    );
    return out;
  } catch (e) {
    return (e as Error).message;
  }
}

function whole(text: string): KubeObject[] | string {
  try {
    return parseManifests(text, "in.json");
  } catch (e) {
    return (e as Error).message;
  }
}

const SPACES = ["", " ", "\n", "\t", "\r\n", "  \n  "];

/** JSON text for a random value (keys may repeat; strings carry escapes, brackets, Unicode). */
function value(rnd: () => number, depth: number): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const ws = () => (rnd() < 0.3 ? pick(SPACES) : "");
  const r = rnd();
  if (depth > 4 || r < 0.45) {
    return pick([
      () => JSON.stringify(pick(["a", "", "x]y", "{[", "\u00e9\u4e2d", 'q"\\', "\n\t", "}}]]"])),
      () => '"\\u0041\\/\\"' + pick(["[", "]", "{", "}", ","]) + '"',
      () => String(Math.floor(rnd() * 2000) - 1000),
      () => pick(["1.5", "-0", "1e3", "0.25E-2"]),
      () => pick(["true", "false", "null"]),
    ])();
  }
  if (r < 0.7) {
    const n = Math.floor(rnd() * 4);
    return "[" + ws() +
      Array.from({ length: n }, () => ws() + value(rnd, depth + 1) + ws()).join(",") + "]";
  }
  const n = Math.floor(rnd() * 5);
  const keys = ["a", "b", "kind", "items", "x\\u0041", "data", "\u00e9"];
  return "{" + ws() +
    Array.from(
      { length: n },
      () =>
        ws() + JSON.stringify(pick(keys)).replace("A", "\\u0041") + ws() + ":" + ws() +
        value(rnd, depth + 1) + ws(),
    ).join(",") + "}";
}

/** A random List: items (objects, some Lists themselves, sometimes not objects), other fields. */
function list(rnd: () => number): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const ws = () => (rnd() < 0.4 ? pick(SPACES) : "");
  const item = (): string => {
    const r = rnd();
    if (r < 0.02) return value(rnd, 3); // maybe not an object: refused either way
    if (r < 0.08) {
      return `{"kind":"SecretList","items":[${
        Array.from({ length: Math.floor(rnd() * 3) }, item).join(",")
      }]}`;
    }
    const fields = [`"kind":${JSON.stringify(pick(["Secret", "ConfigMap", "X"]))}`];
    for (let i = Math.floor(rnd() * 4); i > 0; i--) {
      fields.push(
        `${ws()}${JSON.stringify(pick(["a", "b", "kind", "data"]))}${ws()}:${ws()}${value(rnd, 1)}`,
      );
    }
    return "{" + fields.join(",") + ws() + "}";
  };
  const items = `"items"${ws()}:${ws()}[${ws()}${
    Array.from({ length: Math.floor(rnd() * 12) }, () => ws() + item() + ws()).join(",")
  }]`;
  const others = [
    `"apiVersion":"v1"`,
    `"kind":${JSON.stringify(pick(["List", "SecretList", "List"]))}`,
    `"metadata":${value(rnd, 2)}`,
  ];
  if (rnd() < 0.3) others.push(`"kind":"List"`); // a repeated key: the last wins
  if (rnd() < 0.2) others.push(`"apiVersion":${value(rnd, 3)}`);
  const fields = [...others];
  fields.splice(Math.floor(rnd() * (fields.length + 1)), 0, items);
  return (rnd() < 0.1 ? "\ufeff" : "") + ws() + "{" + ws() + fields.join("," + ws()) + ws() + "}" +
    ws();
}

/** Whole reads number a single document's items `documentitems[…]`, parts `document 1items[…]`. */
const sameMessage = (s: string) => s.replace("document 1items[", "documentitems[");

Deno.test("JsonListReader() gives parseManifests' objects and errors on 3,000 random Lists", () => {
  let objects = 0, errors = 0;
  for (let seed = 1; seed <= 3000; seed++) {
    const rnd = prng(seed);
    const text = list(rnd);
    const want = whole(text);
    const got = streamed(text, rnd, 1 + Math.floor(rnd() * 200));
    if (typeof want === "string") {
      errors++;
      assert.equal(typeof got, "string", `seed ${seed}: ${text}`);
      assert.equal(sameMessage(got as string), want, `seed ${seed}: ${text}`);
    } else {
      objects += want.length;
      assert.deepEqual(got, want, `seed ${seed}: ${text}`);
    }
  }
  // Both outcomes were exercised.
  assert.ok(objects > 5000 && errors > 50, `${objects} objects, ${errors} errors`);
});

Deno.test("JsonListReader() hands out items in parts of about the piece size, verbatim", () => {
  const items = Array.from({ length: 50 }, (_, i) => `{"kind":"Secret","n":${i},"s":" ]}\\""}`);
  const text = `{"apiVersion":"v1","items":[${items.join(", ")}],"kind":"List","metadata":{}}`;
  const r = new JsonListReader("in.json", 1, 100);
  const parts = [...r.push(text), ...r.finish()];
  const body = parts.slice(0, -1).map((p) => {
    assert.ok(p.text.startsWith('{"kind":"List","items":['));
    return JSON.parse(p.text).items.map((x: unknown) => JSON.stringify(x));
  });
  assert.ok(body.length >= 10, `${body.length} parts`);
  assert.deepEqual(body.flat(), items.map((x) => JSON.stringify(JSON.parse(x))));
  assert.deepEqual(parts.map((p) => p.list.itemsBefore).slice(0, 3), [
    0,
    body[0]!.length,
    body[0]!.length + body[1]!.length,
  ]);
  assert.equal(parts.at(-1)!.text, '{"apiVersion":"v1","kind":"List","metadata":{}}');
  assert.ok(parts.at(-1)!.list.end);
});

Deno.test("JsonListReader() refuses what it cannot read item by item", () => {
  const cases: [string, RegExp][] = [
    ['[{"kind":"Secret"}]', /in\.json: JSON document larger than 16777216 bytes/],
    ['{"kind":"List","items":{"a":1}}', /JSON document larger than/],
    ['{"items":[],"kind":"List","items":[]}', /JSON document larger than/],
    ['{"kind":"List","metadata":{}}', /JSON document larger than/],
    ['{"kind":"List","items":[{"a":1}]', /in\.json: document 1 is not valid JSON/],
    ['{"kind":"List","items":[{"a":1}]} x', /document 1 is not valid JSON/],
    ['{"kind":"List" "items":[]}', /document 1 is not valid JSON/],
    ["{kind:1}", /document 1 is not valid JSON/],
    ['{"kind":"List","items":[{"a":1},]}', /document 1 is not valid JSON/],
    ["[".repeat(300), /in\.json: nested more than 256 levels deep/],
  ];
  for (const [text, want] of cases) {
    assert.throws(
      () => {
        const r = new JsonListReader("in.json", 1, 10);
        const parts = [...r.push(text), ...r.finish()];
        const counts = { documents: 0, objects: 0 };
        parts.forEach((p, index) =>
          parseManifestChunk(
            { source: "in.json", text: p.text, index, last: false, list: p.list },
            counts,
          )
        );
      },
      want,
      text,
    );
  }
});

Deno.test("JsonListReader() counts brackets over the whole text, strings included, as parseManifests does", () => {
  // 200 brackets opened inside a string, then an item nested 60 deep: 2 + 200 + 60 > 256.
  const deep = "[".repeat(60) + "]".repeat(60);
  const text = `{"kind":"List","items":[{"s":"${"[".repeat(200)}"},{"d":${deep}}]}`;
  assert.throws(() => parseManifests(text, "in.json"), /nested more than 256 levels deep/);
  const r = new JsonListReader("in.json", 1, 10);
  assert.throws(
    () => [...r.push(text), ...r.finish()],
    /in\.json: nested more than 256 levels deep/,
  );
});
