/**
 * simpleSecretsChunk() on YAML Lists of token Secrets (one List document in
 * a chunk, and the parts of a long List read item by item) against the
 * general path it stands in for (parseManifestChunk, then decodeSecret): on
 * thousands of random and mutated Lists, whatever it takes gives exactly the
 * general path's Secrets and counts; the rest (refusals included) it leaves
 * alone. And end to end: `token list` and `cluster-info sign` print the
 * same bytes whichever path reads a List.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { Buffer } from "node:buffer";
import {
  type ChunkCounts,
  type ManifestChunk,
  parseManifestChunk,
} from "../../lib/k8s/manifest.ts";
import { decodeSecret, isSecretObject } from "../../lib/k8s/secret.ts";
import { simpleSecretsChunk } from "../../lib/k8s/simple_secrets.ts";
import { MAX_INPUT_BYTES, MAX_OBJECTS } from "../../lib/base/limits.ts";
import { runInProcess, tempDir } from "../_cli.ts";
import { mulberry32 as rng } from "../_fuzz.ts";

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const CHARS = "0123456789abcdefghijklmnopqrstuvwxyz";
const pick = <T>(r: () => number, a: readonly T[]) => a[Math.floor(r() * a.length)]!;

/** One token Secret's lines, as `token create` writes them (sometimes with other values). */
function secretLines(r: () => number): string[] {
  const id = Array.from({ length: 6 }, () => pick(r, [...CHARS])).join("");
  const secret = Array.from({ length: 16 }, () => pick(r, [...CHARS])).join("");
  const data = [
    `  auth-extra-groups: ${b64("system:bootstrappers:kubeadm:default-node-token")}`,
    ...(r() < 0.8
      ? [`  expiration: ${b64(r() < 0.8 ? "2026-01-02T00:00:00Z" : "2020-01-01T00:00:00Z")}`]
      : []),
    `  token-id: ${b64(r() < 0.95 ? id : "ABCDEF")}`,
    `  token-secret: ${b64(secret)}`,
    `  usage-bootstrap-authentication: ${b64("true")}`,
    ...(r() < 0.9 ? [`  usage-bootstrap-signing: ${b64(r() < 0.9 ? "true" : "false")}`] : []),
  ];
  return [
    "apiVersion: v1",
    "data:",
    ...data,
    "kind: Secret",
    "metadata:",
    `  name: bootstrap-token-${r() < 0.95 ? id : "zzzzzz"}`,
    ...(r() < 0.9 ? ["  namespace: kube-system"] : []),
    "type: bootstrap.kubernetes.io/token",
  ];
}

const TRICKY_VALUES = [
  "",
  "yes",
  "true",
  "123",
  '"quoted"',
  '"[["',
  "{a: 1}",
  "[a]",
  "a: b",
  "x #c",
  "dHJ1ZQ",
  "4pyT",
  "Secret",
  "List",
  "SecretList",
  "ConfigMap",
  "v1",
  "kube-system",
  "dHJ1ZQ==",
  '""',
];
const TRICKY_KEYS = [
  "name",
  "kind",
  "items",
  "data",
  "metadata",
  "apiVersion",
  "type",
  "stringData",
  "__proto__",
  "a b",
];
const EXTRA_LINES = [
  "# comment",
  "",
  "---",
  "- x",
  "-",
  "-x: y",
  "  - x",
  "- kind: Secret",
  "items:",
  "kind: List",
  "   name: x",
  " kind: Secret",
  "\tname: x",
  "    x: dHJ1ZQ==",
  "      deep: dHJ1ZQ==",
  "...",
];

/** A line changed in one of the ways the readers must agree on. */
function mutate(lines: string[], r: () => number): void {
  const i = Math.floor(r() * lines.length);
  const line = lines[i]!;
  const m = /^([- ]*)([^:]*):(?: (.*))?$/.exec(line);
  switch (Math.floor(r() * 8)) {
    case 0:
      lines.splice(i, 1);
      break;
    case 1:
      lines.splice(i, 0, line);
      break;
    case 2:
      if (m) lines[i] = `${m[1]}${m[2]}: ${pick(r, TRICKY_VALUES)}`;
      break;
    case 3:
      if (m) lines[i] = `${m[1]}${pick(r, TRICKY_KEYS)}:${m[3] === undefined ? "" : " " + m[3]}`;
      break;
    case 4:
      lines.splice(i, 0, pick(r, EXTRA_LINES));
      break;
    case 5:
      lines[i] = pick(r, [" ", "   ", "- ", "-  ", ""]) + line.trimStart();
      break;
    case 6:
      lines[i] = line + pick(r, ["\r", " ", " # c"]);
      break;
    default:
      if (m) lines[i] = `${m[1]}${m[2]}:`;
  }
}

/** A List's items, kubectl's way: `- ` before each item's first line, `  ` before the others. */
function itemLines(r: () => number, n: number, mutated: number): string[] {
  const lines: string[] = [];
  for (let k = 0; k < n; k++) {
    const own = secretLines(r);
    if (r() < mutated) mutate(own, r);
    own.forEach((l, i) => lines.push((i === 0 ? "- " : "  ") + l));
  }
  return lines;
}

/** The List's other fields, in random order, sometimes changed. */
function otherFields(r: () => number): string[][] {
  const fields: string[][] = [
    ["apiVersion: v1"],
    [r() < 0.8 ? "kind: List" : `kind: ${pick(r, ["SecretList", "Secret", '"List"', "List x"])}`],
    r() < 0.7 ? ["metadata:", '  resourceVersion: ""'] : ["metadata:", "  name: x"],
  ];
  if (r() < 0.1) fields.splice(Math.floor(r() * 3), 1);
  return fields;
}

/** One List document: its other fields around `items:` and the items. */
function randomList(r: () => number): string {
  const fields = otherFields(r);
  const items = ["items:", ...itemLines(r, 1 + Math.floor(r() * 4), 0.3)];
  fields.splice(Math.floor(r() * (fields.length + 1)), 0, items);
  const lines = fields.flat();
  if (r() < 0.3) mutate(lines, r);
  let text = lines.join("\n") + "\n";
  const x = r();
  if (x < 0.1) text = "---\n" + text;
  else if (x < 0.13) text += "---\n";
  else if (x < 0.16) text = text.slice(0, -1);
  else if (x < 0.18) text = "\uFEFF" + text;
  else if (x < 0.2) text += "---\n" + secretLines(r).join("\n") + "\n";
  else if (x < 0.22) text = text.replace(/\n/g, "\r\n");
  return text;
}

/** The general path for one chunk: its Secrets decoded, or what it threw; null when not all Secrets. */
function general(
  chunk: ManifestChunk,
  counts: ChunkCounts,
): { secrets: unknown[] } | { error: unknown } | null {
  try {
    const objects = parseManifestChunk(chunk, counts);
    if (!objects.every(isSecretObject)) return null;
    return { secrets: objects.map((o) => decodeSecret(o, chunk.source)) };
  } catch (error) {
    return { error };
  }
}

function assertSameSecrets(fast: unknown[], slow: unknown[], text: string): void {
  assert.equal(fast.length, slow.length, text);
  for (let i = 0; i < fast.length; i++) {
    assert.deepStrictEqual(fast[i], slow[i], text);
    const keys = (s: unknown) => Object.keys((s as { data: object }).data);
    assert.deepStrictEqual(keys(fast[i]), keys(slow[i]), text);
  }
}

function randomCounts(r: () => number): ChunkCounts {
  return r() < 0.1
    ? { documents: MAX_OBJECTS - Math.floor(r() * 4), objects: MAX_OBJECTS - Math.floor(r() * 4) }
    : { documents: Math.floor(r() * 50), objects: Math.floor(r() * 50) };
}

/** Runs both paths on `chunk`; true when the fast one took it. */
function compare(chunk: ManifestChunk, before: ChunkCounts): boolean {
  const fastCounts = { ...before }, slowCounts = { ...before };
  const fast = simpleSecretsChunk(chunk, fastCounts);
  const slow = general(chunk, slowCounts);
  if (fast === undefined) return false;
  const what = JSON.stringify(chunk);
  assert.ok(slow !== null, `not all Secrets, yet taken: ${what}`);
  assert.ok("secrets" in slow, `the general path refuses it: ${what}`);
  assertSameSecrets(fast, slow.secrets, what);
  assert.deepStrictEqual(fastCounts, slowCounts, what);
  return true;
}

Deno.test("simpleSecretsChunk() gives what the general path gives for a List document, or leaves it, on 6,000 random Lists", () => {
  const r = rng(2613);
  let taken = 0, left = 0, leftValid = 0, takenOdd = 0;
  for (let n = 0; n < 6000; n++) {
    const text = randomList(r);
    const index = r() < 0.6 ? 0 : 1 + Math.floor(r() * 3);
    const chunk = { source: "l.yaml", text, index, last: r() < 0.5 };
    const before = randomCounts(r);
    if (compare(chunk, before)) {
      taken++;
      if (!text.startsWith("apiVersion: v1\nitems:\n")) takenOdd++;
    } else {
      left++;
      const slow = general(chunk, { ...before });
      if (slow !== null && "secrets" in slow && slow.secrets.length > 0) leftValid++;
    }
  }
  const stats = JSON.stringify({ taken, takenOdd, left, leftValid });
  assert.ok(taken > 1500 && takenOdd > 300 && left > 1000 && leftValid > 100, stats);
});

Deno.test("simpleSecretsChunk() gives what the general path gives for the parts of a long List, or leaves them, on 6,000 random parts", () => {
  const r = rng(2614);
  let taken = 0, left = 0, leftValid = 0;
  for (let n = 0; n < 6000; n++) {
    const lines = itemLines(r, 1 + Math.floor(r() * 4), 0.2);
    if (r() < 0.2) mutate(lines, r);
    let text = "kind: List\nitems:\n" + lines.join("\n") + "\n";
    const x = r();
    if (x < 0.05) text = text.slice(0, -1);
    else if (x < 0.1) text = text.replace("kind: List\n", pick(r, ["kind: SecretList\n", ""]));
    const list = {
      document: r() < 0.1 ? MAX_OBJECTS + Math.floor(r() * 2) : 1 + Math.floor(r() * 5),
      itemsBefore: Math.floor(r() * 100),
      end: r() < 0.05,
      ...(r() < 0.05 ? { json: true } : {}),
    };
    const index = r() < 0.3 ? 0 : 1 + Math.floor(r() * 3);
    const chunk = { source: "l.yaml", text, index, last: false, list };
    const before = randomCounts(r);
    if (compare(chunk, before)) taken++;
    else {
      left++;
      const slow = general(chunk, { ...before });
      if (slow !== null && "secrets" in slow && slow.secrets.length > 0) leftValid++;
    }
  }
  const stats = JSON.stringify({ taken, left, leftValid });
  assert.ok(taken > 2000 && left > 1000 && leftValid > 100, stats);
});

/** A fleet's documents: the same lines but for token IDs, secrets and names, some changed. */
function fleet(r: () => number, n: number): string[][] {
  const seed = Math.floor(r() * 1e9);
  const docs: string[][] = [];
  for (let d = 0; d < n; d++) {
    // The same seed for the optional lines: every document has the same ones.
    const shape = rng(seed);
    const lines = secretLines(() => (shape() < 0.99 ? shape() : r()));
    const id = Array.from({ length: 6 }, () => pick(r, [...CHARS])).join("");
    lines.forEach((l, i) => {
      lines[i] = l.replace(/bootstrap-token-[a-z0-9]{6}/, `bootstrap-token-${id}`)
        .replace(/^( {2}token-id: ).*/, `$1${b64(id)}`)
        .replace(/^( {2}token-secret: ).*/, `$1${b64(id + "0123456789")}`);
    });
    // Some fleets also set a key in stringData, which wins over data.
    if (seed % 4 === 0) lines.push("stringData:", "  token-secret: plainsecretvalue");
    if (r() < 0.15) mutate(lines, r);
    if (r() < 0.05) lines.push(pick(r, ["stringData:", "  token-id: abcdef", "type: Opaque"]));
    docs.push(lines);
  }
  return docs;
}

Deno.test("simpleSecretsChunk() reads fleets (documents alike but for values) as the general path does, streams and Lists", () => {
  const r = rng(4711);
  let taken = 0;
  for (let n = 0; n < 1500; n++) {
    const docs = fleet(r, 3 + Math.floor(r() * 10));
    const asList = r() < 0.5;
    const text = asList
      ? "apiVersion: v1\nitems:\n" +
        docs.map((d) => d.map((l, i) => (i === 0 ? "- " : "  ") + l).join("\n")).join("\n") +
        "\nkind: List\n"
      : docs.map((d) => d.join("\n") + "\n").join("---\n");
    const chunk = { source: "f.yaml", text, index: 0, last: true };
    if (compare(chunk, { ...ZERO })) taken++;
    // The same as a long List's part.
    if (asList) {
      const part = "kind: List\nitems:\n" +
        text.slice(text.indexOf("- "), text.lastIndexOf("kind: List"));
      const list = { document: 1, itemsBefore: 0, end: false };
      if (compare({ source: "f.yaml", text: part, index: 1, last: false, list }, { ...ZERO })) {
        taken++;
      }
    }
  }
  assert.ok(taken > 500, `taken ${taken}`);
});

Deno.test("simpleSecretsChunk() leaves a List part over the input bound, the List's own fields and JSON parts to the general path", () => {
  const item = "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: s\n";
  const list = { document: 1, itemsBefore: 0, end: false };
  const counts = { documents: 0, objects: 0 };
  const head = "kind: List\nitems:\n";
  const chunk = (text: string, l: NonNullable<ManifestChunk["list"]>) => ({
    source: "l",
    text,
    index: 1,
    last: false,
    list: l,
  });
  assert.equal(simpleSecretsChunk(chunk(head + item, list), counts)?.length, 1);
  assert.equal(simpleSecretsChunk(chunk(head + item, { ...list, end: true }), counts), undefined);
  assert.equal(simpleSecretsChunk(chunk(head + item, { ...list, json: true }), counts), undefined);
  const long = head + item.repeat(Math.ceil(MAX_INPUT_BYTES / item.length));
  assert.equal(simpleSecretsChunk(chunk(long, list), counts), undefined);
  // A whole List's items, but no List around them.
  const bare = "items:\n" + item;
  assert.equal(
    simpleSecretsChunk({ source: "l", text: bare, index: 0, last: true }, counts),
    undefined,
  );
  assert.equal(
    simpleSecretsChunk({ source: "l", text: bare + "kind: List\n", index: 0, last: true }, counts)
      ?.length,
    1,
  );
});

Deno.test("simpleSecretsChunk() leaves Lists the general path reads otherwise or refuses", () => {
  const item = (name: string) =>
    `- apiVersion: v1\n  data:\n    token-id: YWJjZGVm\n  kind: Secret\n  metadata:\n    name: ${name}\n`;
  const list = (items: string, other = 'kind: List\nmetadata:\n  resourceVersion: ""\n') =>
    "apiVersion: v1\nitems:\n" + items + other;
  const cases = [
    // Quoted brackets beyond the nesting bound: the general path refuses the input.
    list(item("a"), `kind: List\nmetadata:\n  x: "${"[".repeat(300)}"\n`),
    // A line one column off whose text from the item's column reads as a key.
    list(item("a").replace("  kind: Secret", " Xkind: Secret")),
    list(item("a").replace("  kind: Secret", " kind: Secret")),
    list(item("a").replace("- apiVersion", "-  apiVersion")),
    list(item("a").replace("- apiVersion: v1\n  data:", "-   data:")),
    list(item("a") + "-\n"),
    list(item("a") + "---\n" + item("b")),
    list(item("a"), "kind: List\nitems:\n- x\n"),
    list(item("a"), "kind: List\n# c\n"),
    list(item("a"), "kind: Lis\n"),
    list(item("a"), ""),
  ];
  for (const text of cases) {
    const chunk = { source: "l.yaml", text, index: 0, last: true };
    assert.equal(simpleSecretsChunk(chunk, { ...ZERO }), undefined, JSON.stringify(text));
    compare(chunk, { ...ZERO });
  }
  // The same Lists without the change are taken.
  const chunk = { source: "l.yaml", text: list(item("a") + item("b")), index: 0, last: true };
  assert.equal(simpleSecretsChunk(chunk, { ...ZERO })?.length, 2);
});

Deno.test("CLI token list and cluster-info sign print the same bytes whichever path reads a List", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const r = rng(77);
    const file = path.join(dir, "secrets.yaml");
    const ci = path.join(dir, "ci.yaml");
    fs.writeFileSync(
      ci,
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-info\n  namespace: kube-public\n" +
        "data:\n  kubeconfig: |\n    apiVersion: v1\n    clusters: []\n",
    );
    const now = ["--now", "2026-01-01T12:00:00Z"];
    const runs: string[][] = [
      ["token", "list", file, ...now],
      ["token", "list", file, "-o", "yaml", ...now],
      ["cluster-info", "sign", ci, "--secrets", file, ...now],
    ];
    let simple = 0;
    for (let n = 0; n < 150; n++) {
      const text = randomList(r);
      // The same List with a comment line at its end, which only the general path reads.
      const forced = text + (text.endsWith("\n") ? "" : "\n") + "# end\n";
      const results: string[] = [];
      for (const variant of [text, forced]) {
        fs.writeFileSync(file, variant);
        const out = [];
        for (const argv of runs) {
          const res = await runInProcess(argv);
          out.push(JSON.stringify([res.code, res.stdout, res.stderr]));
        }
        results.push(out.join("\n"));
      }
      assert.equal(results[0], results[1], JSON.stringify(text));
      if (simpleSecretsChunk({ source: "s", text, index: 0, last: true }, { ...ZERO })) simple++;
    }
    assert.ok(simple > 30, `simple Lists ${simple}`);
  } finally {
    cleanup();
  }
});

const ZERO = { documents: 0, objects: 0 };

Deno.test("CLI token list reads a List longer than one input (item by item) the same whichever path reads its parts", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const r = rng(5);
    const file = path.join(dir, "list.yaml");
    const items = itemLines(r, 42_000, 0).join("\n") + "\n";
    const text = `apiVersion: v1\nitems:\n${items}kind: List\nmetadata:\n  resourceVersion: ""\n`;
    assert.ok(text.length > MAX_INPUT_BYTES);
    // A comment line in each item: every part then goes the general way.
    const forced = text.replace(/^- (.*)$/gm, "- $1\n  # c");
    const results: string[] = [];
    for (const variant of [text, forced]) {
      fs.writeFileSync(file, variant);
      const res = await runInProcess(["token", "list", file, "--now", "2026-01-01T12:00:00Z"]);
      results.push(JSON.stringify([res.code, res.stdout, res.stderr]));
    }
    assert.ok(results[0] === results[1], "the two paths differ");
    const [code, stdout] = JSON.parse(results[0]!) as [number, string];
    assert.ok(code <= 1 && stdout.split("\n").length > 30_000, "the tokens are listed");
    // The parts of this List are simple: the fast path took them.
    const part = "kind: List\nitems:\n" + itemLines(rng(5), 100, 0).join("\n") + "\n";
    const chunk = {
      source: "l",
      text: part,
      index: 0,
      last: false,
      list: { document: 1, itemsBefore: 0, end: false },
    };
    assert.ok(simpleSecretsChunk(chunk, { ...ZERO }));
  } finally {
    cleanup();
  }
});
