/**
 * lib/k8s/json_stream.ts's fast ways (items found from quote to quote or by
 * a template, a block scanned as it comes, brackets counted per template,
 * Secrets read straight from the items by lib/k8s/json_items.ts) held to
 * the general ones on random and mutated token-Secret fleets: the reader
 * gives the parts the character-by-character reader gives (kept in
 * _json_list_reference.ts), in the same blocks, and the same errors at the
 * same block; the Secrets `jsonListSecrets` gives for a part are those
 * `parseManifestChunk` and `decodeSecret` give for it, keys in the same
 * order, with the same counts.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { JsonListReader, jsonListSecrets } from "../../lib/k8s/json_stream.ts";
import { decodeItem, learnItem, matchItem } from "../../lib/k8s/json_items.ts";
import {
  type ChunkCounts,
  type ManifestChunk,
  parseManifestChunk,
  parseManifests,
} from "../../lib/k8s/manifest.ts";
import { type DecodedSecret, decodeSecret, isSecretObject } from "../../lib/k8s/secret.ts";
import { bytesToText, DICTIONARY, mutateBytes, Rng } from "../_fuzz.ts";
import { ReferenceJsonListReader } from "./_json_list_reference.ts";

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

/** One token Secret as an object, with the oddities a fleet (or an attacker) may have. */
function secretObject(rng: Rng, i: number, vary: number): Record<string, unknown> {
  const id = (i * 7919 % 2176782336).toString(36).padStart(6, "0").slice(-6);
  const data: Record<string, unknown> = {
    "auth-extra-groups": b64("system:bootstrappers:kubeadm:default-node-token"),
    expiration: b64(rng.chance(0.9) ? "2026-11-27T00:00:00Z" : `2026-11-2${rng.int(9)}T00:00:00Z`),
    "token-id": b64(id),
    "token-secret": b64(`${id}0123456789ab`.slice(0, 16)),
    "usage-bootstrap-authentication": b64("true"),
    "usage-bootstrap-signing": b64("true"),
  };
  const meta: Record<string, unknown> = {
    name: `bootstrap-token-${id}`,
    namespace: "kube-system",
  };
  const obj: Record<string, unknown> = {
    apiVersion: "v1",
    data,
    kind: "Secret",
    metadata: meta,
    type: "bootstrap.kubernetes.io/token",
  };
  // Fields every item of a fleet has, with values that vary from item to item.
  if (vary & 1) meta.deletionTimestamp = `2026-11-2${rng.int(9)}T11:00:00Z`;
  if (vary & 2) meta.namespace = rng.pick(["kube-system", "kube-system", "default", ""]);
  if (vary & 4) obj.type = rng.pick(["bootstrap.kubernetes.io/token", "Opaque", ""]);
  if (vary & 8) obj.kind = rng.chance(0.7) ? "Secret" : "ConfigMap";
  if (vary & 16) obj.apiVersion = rng.chance(0.7) ? "v1" : "v2";
  if (vary & 32) obj.stringData = { "token-secret": `s${rng.int(1e6)}`, x: rng.pick(["a", "b"]) };
  if (vary & 64) data["token-id"] = rng.chance(0.9) ? b64(id) : rng.pick(["!!", "YQ"]);
  if (vary & 128) data["token-secret"] = b64(`caf\u00e9-${rng.int(1e6)}`);
  if (vary & 256) meta.uid = `${rng.int(1e9)}`;
  if (rng.chance(0.3)) {
    // What `kubectl get -o json` adds.
    meta.creationTimestamp = "2026-11-25T10:00:00Z";
    meta.resourceVersion = String(1000 + i);
    meta.uid = `8f0e2c1a-${i.toString(16).padStart(4, "0")}-4b1e-9d3c-0242ac120002`;
  }
  if (rng.chance(0.04)) {
    const odd = rng.int(22);
    switch (odd) {
      case 0:
        data["token-secret"] = "not base64!";
        break;
      case 1:
        data.description = null;
        break;
      case 2:
        data.description = 7;
        break;
      case 3:
        data.description = b64("caf\u00e9 \u4e2d");
        break;
      case 4:
        data.description = b64("x".repeat(200)); // longer than the short-value path
        break;
      case 5:
        obj.kind = rng.pick(["ConfigMap", "SecretList", "secret"]);
        break;
      case 6:
        obj.apiVersion = rng.pick(["v2", null, 1]);
        break;
      case 7:
        delete obj.apiVersion;
        break;
      case 8:
        obj.type = rng.pick(["", null, "Opaque", 5]);
        break;
      case 9:
        meta.deletionTimestamp = rng.pick(["2026-11-25T11:00:00Z", null, 3]);
        break;
      case 10:
        obj.stringData = { "token-secret": "ffffffffffffffff", "x\u00e9": "y" };
        break;
      case 11:
        meta.annotations = { note: 'a "quoted" <b> & [bracketed] {braced} \\ value' };
        break;
      case 12:
        meta.labels = { app: "x", tier: "[]{}" };
        break;
      case 13:
        obj.metadata = rng.pick([null, "m", []]);
        break;
      case 14:
        obj.data = rng.pick([null, [], "d"]);
        break;
      case 15:
        meta.name = rng.pick([7, null, "bootstrap-token-\u0000x"]);
        break;
      case 16:
        data["__proto__"] = b64("proto");
        break;
      case 17:
        data["1"] = b64("one");
        break;
      case 18:
        meta.namespace = rng.pick(["default", "", null]);
        break;
      case 19:
        obj.nested = { a: [[[{ b: [] }]]] };
        break;
      case 20:
        data["token-secret"] = b64(`${id}0123456789ab`.slice(0, 16)) + "\r\n";
        break;
      default:
        delete obj.data;
    }
  }
  return obj;
}

/** `obj`, with labels when `labelled` (another shape of item). */
function shaped(obj: Record<string, unknown>, labelled: boolean): Record<string, unknown> {
  if (labelled) obj.metadata = { ...(obj.metadata as object), labels: { app: "x" } };
  return obj;
}

/** JSON text of a value in one of a few layouts (kubectl's 4-space indent most often). */
function layout(rng: Rng, value: unknown, style: number): string {
  switch (style) {
    case 0:
      return JSON.stringify(value, null, 4);
    case 1:
      return JSON.stringify(value);
    case 2:
      return JSON.stringify(value, null, "\t").replace(/\n/g, "\r\n");
    default:
      return JSON.stringify(value, null, 2).replace(/: /g, rng.chance(0.5) ? " : " : ":");
  }
}

/** Hand edits JSON.stringify never makes: escapes, duplicate keys, raw control characters… */
function edit(rng: Rng, item: string): string {
  switch (rng.int(12)) {
    case 0:
      return item.replace('"bootstrap-token-', '"\\u0062ootstrap-token-');
    case 1:
      return item.replace('"kube-system"', '"kube\\/system"');
    case 2:
      return item.replace('"kind"', '"kind": "ConfigMap", "kind"');
    case 3:
      return item.replace('"Secret"', '"Secret", "kind": "ConfigMap"');
    case 4:
      return item.replace('"token-id"', '"token-id": "YWJjZGVm", "token-id"');
    case 5:
      return item.replace("kube-system", "kube\u0001system");
    case 6:
      return item.replace("kube-system", "kube\\x");
    case 7:
      return item.replace("kube-system", "kube\\ud800");
    case 8:
      return item.replace('"v1"', "1e999");
    case 9:
      return item.replace(/}\s*$/, "}}");
    case 10:
      return item.replace("{", "{" + "[".repeat(rng.int(300)));
    default:
      return item.replace('"type"', '"type\\u0000"');
  }
}

/** A random List of token Secrets (kubectl-like, sometimes edited), as text. */
function fleet(rng: Rng): string {
  const style = rng.chance(0.6) ? 0 : rng.int(4);
  const n = rng.int(45);
  const vary = rng.chance(0.5) ? 0 : rng.int(512);
  // Two shapes in turn, two items each (token Secrets among others).
  const alternate = rng.chance(0.2);
  const items: string[] = [];
  for (let i = 0; i < n; i++) {
    let item = rng.chance(0.01) ? rng.pick(["null", "7", "[]", '"s"', "{}"]) : layout(
      rng,
      shaped(secretObject(rng, i, vary), alternate && (i >> 1) % 2 === 1),
      style,
    );
    if (rng.chance(0.03)) item = edit(rng, item);
    items.push(style === 0 ? item.replace(/\n/g, "\n        ") : item);
  }
  const sep = style === 0 ? ",\n        " : style === 1 ? "," : rng.pick([",", " , ", ",\n"]);
  const body = style === 0 ? "\n        " + items.join(sep) + "\n    " : items.join(sep);
  const head = rng.chance(0.9) ? '"apiVersion": "v1",' : '"apiVersion": "v1", "kind": "X",';
  const meta = rng.chance(0.5) ? '"metadata": {"resourceVersion": ""}' : '"metadata": {}';
  let text = `{${head} "items": [${body}], "kind": "${
    rng.chance(0.95) ? "List" : "Thing"
  }", ${meta}}`;
  if (rng.chance(0.05)) text += rng.pick([" x", "{}", "]", "\n\n"]);
  if (rng.chance(0.03)) text = "\ufeff" + text;
  return text;
}

/** `text` cut into blocks: tiny, mixed or large, so parts and tokens straddle blocks. */
function blocks(rng: Rng, text: string): string[] {
  const out: string[] = [];
  // (Tiny blocks for short texts only: a long token is joined again at each block, by both.)
  const mode = text.length < 20000 ? rng.int(3) : 1 + rng.int(2);
  for (let i = 0; i < text.length;) {
    const n = mode === 0
      ? 1 + rng.int(40)
      : mode === 1
      ? 1 + rng.int(rng.chance(0.5) ? 300 : 9000)
      : 1 + rng.int(70000);
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

type Part = { text: string; list: ManifestChunk["list"] & object };
type Outcome = { parts: Part[] } | { error: string };

function outcome(f: () => Part[]): Outcome {
  try {
    return { parts: f() };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return "not JSON";
  }
}

/** What the general path makes of a chunk: the Secrets decodeSecret gives, or the error. */
function general(chunk: ManifestChunk, counts: ChunkCounts): unknown {
  try {
    const objects = parseManifestChunk(chunk, counts);
    return objects.map((o) => {
      if (!isSecretObject(o)) return { notSecret: o };
      try {
        return withKeyOrder(decodeSecret(o, chunk.source));
      } catch (e) {
        return { refused: (e as Error).message };
      }
    });
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** A Secret with the order of its data keys made visible to deepEqual. */
const withKeyOrder = (s: DecodedSecret) => ({ ...s, keys: Object.keys(s.data) });

interface Stats {
  lists: number;
  errors: number;
  parts: number;
  fast: number;
}

/** Runs one text through both readers in the same blocks; checks every part. */
function check(rng: Rng, text: string, what: string, stats: Stats): void {
  const piece = rng.chance(0.5) ? 1 + rng.int(3000) : 1 + rng.int(200000);
  const reference = new ReferenceJsonListReader("in.json", 1, piece);
  const reader = new JsonListReader("in.json", 1, piece);
  const cut = blocks(rng, text);
  const countsGeneral = { documents: 0, objects: 0 };
  const countsFast = { documents: 0, objects: 0 };
  let index = 0;
  stats.lists++;
  for (let b = 0; b <= cut.length; b++) {
    const last = b === cut.length;
    const want = outcome(() => last ? reference.finish() : reference.push(cut[b]!));
    const got = outcome(() => last ? reader.finish() : reader.push(cut[b]!));
    if ("error" in want) {
      assert.deepEqual(got, want, `${what}: block ${b} of ${cut.length}`);
      stats.errors++;
      return;
    }
    assert.ok("parts" in got, `${what}: block ${b}: ${"error" in got ? got.error : ""}`);
    assert.equal(got.parts.length, want.parts.length, `${what}: block ${b}: parts`);
    for (let k = 0; k < want.parts.length; k++) {
      const w: Part = want.parts[k]!, g: Part = got.parts[k]!;
      assert.deepEqual(g.list, w.list, `${what}: block ${b}, part ${k}`);
      // The same List (the new reader keeps what separates the items in the input).
      assert.deepEqual(parsed(g.text), parsed(w.text), `${what}: block ${b}, part ${k}`);
      const chunk = (p: Part) => ({
        source: "in.json",
        text: p.text,
        index,
        last: false,
        list: p.list,
      });
      const expected = general(chunk(w), countsGeneral);
      const fast = jsonListSecrets(chunk(g), countsFast);
      stats.parts++;
      if (fast === undefined) {
        assert.deepEqual(general(chunk(g), countsFast), expected, `${what}: part ${index}`);
      } else {
        stats.fast++;
        assert.deepEqual(fast.map(withKeyOrder), expected, `${what}: part ${index} (by template)`);
      }
      assert.deepEqual(countsFast, countsGeneral, `${what}: counts after part ${index}`);
      index++;
    }
  }
}

Deno.test("JsonListReader() gives the character-by-character reader's parts and errors, block for block, on 2,500 random fleets", () => {
  const stats = { lists: 0, errors: 0, parts: 0, fast: 0 };
  for (let seed = 1; seed <= 2500; seed++) {
    const rng = new Rng(0x4a534f4e + seed);
    check(rng, fleet(rng), `seed ${seed}`, stats);
  }
  // Both readers' outcomes were exercised, and most parts were read by template.
  assert.ok(stats.errors > 100, JSON.stringify(stats));
  assert.ok(stats.fast > 1000 && stats.fast < stats.parts, JSON.stringify(stats));
});

Deno.test("JsonListReader() gives the character-by-character reader's parts and errors on 2,000 mutated fleets", () => {
  const stats = { lists: 0, errors: 0, parts: 0, fast: 0 };
  const pool = [
    ...DICTIONARY,
    ...['\\"', "\\u0000", "\\ud800", "[[[", "]}", '","'].map((s) => new TextEncoder().encode(s)),
  ];
  for (let seed = 1; seed <= 2000; seed++) {
    const rng = new Rng(0x6d757461 + seed);
    const bytes = new TextEncoder().encode(fleet(rng));
    const m = mutateBytes(rng, bytes, pool);
    check(rng, bytesToText(rng, m.bytes), `seed ${seed} (${m.how})`, stats);
  }
  assert.ok(stats.errors > 300 && stats.fast > 300, JSON.stringify(stats));
});

Deno.test("JsonListReader() counts brackets as parseManifests does when items come by template", () => {
  const item = (extra: string) =>
    `{"kind": "Secret", "metadata": {"name": "s"}, "data": {"a": "Yg=="}${extra}}`;
  let nested = 0;
  // The List, its items and the item are 3 levels: 253 more inside an item is the bound.
  for (const depth of [252, 253, 254]) {
    const deep = "[".repeat(depth) + "]".repeat(depth);
    // Brackets in a string count too (as parseManifests counts them), down to 0 at most.
    for (const brackets of ["", "[", "{{", "]", "]]]]]"]) {
      const items = [
        item(""),
        item(""),
        item(`, "s": "${brackets}"`),
        item(""),
        item(`, "d": ${deep}`),
      ];
      const text = `{"kind": "List", "items": [${items.join(", ")}, ${item("")}]}`;
      let want = 0;
      try {
        parseManifests(text, "in.json");
      } catch (e) {
        assert.match((e as Error).message, /nested more than 256 levels deep/);
        want = 1;
      }
      nested += want;
      for (const size of [1, 7, 50, 100000]) {
        const rng = new Rng(size + depth);
        const stats = { lists: 0, errors: 0, parts: 0, fast: 0 };
        check(rng, text, `depth ${depth}, ${JSON.stringify(brackets)}, blocks of ${size}`, stats);
        assert.equal(stats.errors, want, `depth ${depth} ${brackets}`);
      }
    }
  }
  assert.ok(nested > 3 && nested < 12, `${nested}`);
});

Deno.test("jsonListSecrets() leaves parts to the general path when it has no Secrets of its own for them", () => {
  const counts = { documents: 0, objects: 0 };
  const text = '{"kind":"List","items":[{"kind":"Secret"}]}';
  const list = { document: 1, itemsBefore: 0, end: false, json: true };
  // A part the reader did not hand out, and one it handed out that holds a ConfigMap.
  assert.equal(
    jsonListSecrets({ source: "a", text, index: 0, last: false, list }, counts),
    undefined,
  );
  const r = new JsonListReader("in.json", 1, 1);
  const parts = r.push('{"kind":"List","items":[{"kind":"Secret"},{"kind":"ConfigMap"}]}');
  assert.equal(parts.length, 2);
  const chunk = (i: number) => ({
    source: "in.json",
    text: parts[i]!.text,
    index: i,
    last: false,
    list: parts[i]!.list,
  });
  assert.deepEqual(jsonListSecrets(chunk(0), counts), [
    { name: "", namespace: "", type: "Opaque", data: {} },
  ]);
  assert.deepEqual(counts, { documents: 0, objects: 1 });
  assert.equal(jsonListSecrets(chunk(1), counts), undefined);
  assert.deepEqual(counts, { documents: 0, objects: 1 });
  // Each part's Secrets are handed out once.
  assert.equal(jsonListSecrets(chunk(0), counts), undefined);
});

/** Items against a template learnt from another: matchItem + decodeItem vs JSON.parse + decodeSecret. */
Deno.test("matchItem() and decodeItem() read an item as JSON.parse and decodeSecret do, or not at all", () => {
  const base =
    '{"apiVersion": "v1", "data": {"a": "Yg==", "b": null}, "kind": "Secret", "metadata": {"name": "n", "namespace": "ns"}, "type": "t"}';
  const t = learnItem(base)!;
  assert.ok(t.secret !== undefined);
  const cases: [string, boolean][] = [
    [base, true],
    [base.replace('"n"', '"other"'), true],
    [base.replace('"n"', '"\\u006e\\n\\"\\\\\\/"'), true], // escapes undone
    [base.replace('"n"', '"[{]}"'), true], // brackets in a value
    [base.replace('"n"', '"\\ud800"'), true], // a lone surrogate, as JSON.parse reads it
    [base.replace('"n"', '"a\u0001b"'), false], // a raw control character: not JSON
    [base.replace('"n"', '"\\x"'), false], // not an escape JSON has
    [base.replace('"Yg=="', '"not base64"'), false], // refused by decodeSecret
    [base.replace('"Yg=="', '"Y2Fmw6k="'), true], // UTF-8 that is not ASCII
    [base.replace('"Yg=="', '"Yg==\\r\\n"'), true], // CR and LF are skipped in base64
    [base.replace('"Secret"', '"ConfigMap"'), false],
    [base.replace('"v1"', '"v2"'), false],
    [base.replace('"t"', '""'), true], // "Opaque"
    [base.replace('"ns"', '"ns", "namespace": "x"'), false], // another shape
    [base.replace('"b": null', '"b": 1'), false],
    [base.replace(" ", "  "), false],
  ];
  for (const [text, fast] of cases) {
    const values: string[] = [];
    const end = matchItem(t, text, 0, values);
    const secret = end === text.length ? decodeItem(t, values) : undefined;
    assert.equal(secret !== undefined, fast, text);
    let want: unknown;
    try {
      want = decodeSecret(JSON.parse(text), "in.json");
    } catch {
      want = undefined;
    }
    if (secret !== undefined) {
      assert.deepEqual(withKeyOrder(secret), withKeyOrder(want as DecodedSecret), text);
    } else if (end === text.length) assert.ok(want === undefined || !fast, text);
  }
});

Deno.test("learnItem() learns no Secret reading from what decodeSecret refuses for its shape", () => {
  for (
    const text of [
      '{"kind": 1}',
      '{"kind": "Secret", "apiVersion": null}',
      '{"kind": "Secret", "metadata": null}',
      '{"kind": "Secret", "metadata": {"name": 1}}',
      '{"kind": "Secret", "data": []}',
      '{"kind": "Secret", "data": {"a": {}}}',
      '{"kind": "Secret", "stringData": {"a": 2}}',
      '{"kind": "Secret", "type": true}',
    ]
  ) {
    const t = learnItem(text);
    assert.ok(t !== undefined && t.secret === undefined, text);
  }
  for (const text of ["[1]", '"s"', "{", '{"a": }', '{"a": "b" "c": 1}']) {
    assert.equal(learnItem(text), undefined, text);
  }
});
