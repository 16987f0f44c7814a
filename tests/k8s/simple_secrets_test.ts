/**
 * simpleSecretsChunk() (token Secrets read straight from the text) against
 * the general path it stands in for (parseManifestChunk, then decodeSecret):
 * on thousands of random and mutated Secret streams, whatever it takes gives
 * exactly the general path's Secrets and counts, with no message; the rest
 * it leaves alone. And end to end: `token list` and `cluster-info sign`
 * print the same bytes whichever path reads their input.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { Buffer } from "node:buffer";
import { type ChunkCounts, parseManifestChunk, parseManifests } from "../../lib/k8s/manifest.ts";
import { decodeSecret, isSecretObject } from "../../lib/k8s/secret.ts";
import { simpleSecretsChunk } from "../../lib/k8s/simple_secrets.ts";
import { MAX_OBJECTS } from "../../lib/base/limits.ts";
import { runInProcess, tempDir } from "../_cli.ts";

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

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const CHARS = "0123456789abcdefghijklmnopqrstuvwxyz";

/** Values that the readers may take differently: YAML 1.1 words, numbers, quotes, bad base64. */
const TRICKY_VALUES = [
  "",
  "yes",
  "True",
  "true",
  "false",
  "NULL",
  "~",
  "123",
  "0123",
  "1e3",
  '"quoted"',
  '"dHJ1ZQ=="',
  '"[[["',
  '"{x"',
  "'single'",
  "abc def",
  "a: b",
  "a:b",
  "x #c",
  "{a: 1}",
  "[a]",
  "dHJ1ZQ",
  "dHJ1ZQ=",
  "dHJ1ZQ===",
  "dHJ1Z Q==",
  "+abc",
  "/w==",
  "4pyT", // "✓", not ASCII
  "w6k=", // "é"
  "6Q==", // a lone Latin-1 byte: not UTF-8
  "dHJ1ZQ==\r",
  "é",
  "Secret",
  "v1",
  "v2",
  "ConfigMap",
  "kube-system",
  "kube-public",
  "bootstrap.kubernetes.io/token",
  "Opaque",
  "bootstrap-token-abcdef",
  "dHJ1ZQ==",
  "ZmFsc2U=",
  "YWJjZGVm",
  "MDEyMzQ1Njc4OWFiY2RlZg==",
  "MjAyNi0wMS0wMlQwMDowMDowMFo=",
  "MjAyNC0wMS0wMlQwMDowMDowMFo=",
  "bm90IGEgZGF0ZQ==",
  "c3lzdGVtOmJvb3RzdHJhcHBlcnM6Zm9v",
  "LHg=",
];

const TRICKY_KEYS = [
  "data2",
  "labels",
  "deletionTimestamp",
  "name",
  "namespace",
  "constructor",
  "toString",
  "__proto__",
  "1abc",
  "a b",
  "usage-bootstrap-signing",
  "usage-bootstrap-authentication",
  "usage-bootstrap-x",
  "token-id",
  "token-secret",
  "expiration",
  "description",
  "auth-extra-groups",
  "kind",
  "type",
  "data",
  "stringData",
  "metadata",
  "apiVersion",
  "immutable",
];

const EXTRA_LINES = [
  "# comment",
  "",
  "  # c",
  "---",
  "--- ",
  "...",
  "- x",
  "  - x",
  "stringData:",
  "  token-secret: plainsecretvalue",
  '  expiration: "2030-01-01T00:00:00Z"',
  '  usage-bootstrap-signing: "true"',
  "metadata:",
  "immutable: true",
  "   name: x",
  " kind: Secret",
  "\tname: x",
  "kind: Secret",
  "data:",
  "  x: dHJ1ZQ==",
  "    deep: dHJ1ZQ==",
];

/** One token Secret's lines, as `token create` writes them (sometimes with other values). */
function secretLines(r: () => number, stringData = true): string[] {
  const id = Array.from({ length: 6 }, () => CHARS[Math.floor(r() * 36)]).join("");
  const secret = Array.from({ length: 16 }, () => CHARS[Math.floor(r() * 36)]).join("");
  const data: string[] = [];
  if (r() < 0.7) {
    data.push(`  auth-extra-groups: ${b64("system:bootstrappers:kubeadm:default-node-token")}`);
  }
  if (r() < 0.2) data.push(`  description: ${b64(r() < 0.5 ? "a fleet token" : "ünïcode")}`);
  if (r() < 0.8) {
    data.push(`  expiration: ${b64(r() < 0.8 ? "2026-01-02T00:00:00Z" : "2020-01-01T00:00:00Z")}`);
  }
  data.push(`  token-id: ${b64(r() < 0.95 ? id : "ABCDEF")}`);
  data.push(`  token-secret: ${b64(secret)}`);
  if (r() < 0.8) data.push(`  usage-bootstrap-authentication: ${b64("true")}`);
  if (r() < 0.8) data.push(`  usage-bootstrap-signing: ${b64(r() < 0.9 ? "true" : "false")}`);
  const blocks: string[][] = [
    ["apiVersion: v1"],
    ["data:", ...data],
    ["kind: Secret"],
    [
      "metadata:",
      `  name: bootstrap-token-${r() < 0.95 ? id : "zzzzzz"}`,
      ...(r() < 0.9 ? ["  namespace: kube-system"] : []),
    ],
    ["type: bootstrap.kubernetes.io/token"],
  ];
  // (A plain value that starts with a digit is left to the YAML parser.)
  if (r() < 0.1 && stringData) blocks.push(["stringData:", `  token-secret: ${secret}`]);
  if (r() < 0.15) {
    for (let i = blocks.length - 1; i > 0; i--) {
      const j = Math.floor(r() * (i + 1));
      [blocks[i], blocks[j]] = [blocks[j]!, blocks[i]!];
    }
  }
  return blocks.flat();
}

/** A line changed in one of the ways the readers must agree on. */
function mutate(lines: string[], r: () => number): void {
  const pick = <T>(a: readonly T[]) => a[Math.floor(r() * a.length)]!;
  const i = Math.floor(r() * lines.length);
  const line = lines[i]!;
  const m = /^( *)([^:]*):(?: (.*))?$/.exec(line);
  switch (Math.floor(r() * 8)) {
    case 0:
      lines.splice(i, 1);
      break;
    case 1:
      lines.splice(i, 0, line);
      break;
    case 2:
      if (m) lines[i] = `${m[1]}${m[2]}: ${pick(TRICKY_VALUES)}`;
      break;
    case 3:
      if (m) lines[i] = `${m[1]}${pick(TRICKY_KEYS)}:${m[3] === undefined ? "" : " " + m[3]}`;
      break;
    case 4:
      lines.splice(i, 0, pick(EXTRA_LINES));
      break;
    case 5:
      lines[i] = pick([" ", "   ", "    ", "\t", ""]) + line.trimStart();
      break;
    case 6:
      lines[i] = line + pick(["\r", " ", "  ", "\t", " # c"]);
      break;
    default:
      if (m) lines[i] = `${m[1]}${m[2]}:`;
  }
}

/** A stream of 1 to 4 Secrets, some of them changed. */
function randomStream(r: () => number): string {
  const docs: string[] = [];
  const n = 1 + Math.floor(r() * 4);
  for (let d = 0; d < n; d++) {
    const lines = secretLines(r);
    if (r() < 0.5) {
      const changes = 1 + Math.floor(r() * 3);
      for (let c = 0; c < changes; c++) mutate(lines, r);
    }
    docs.push(lines.join("\n") + "\n");
  }
  let text = docs.join("---\n");
  const x = r();
  if (x < 0.1) text = "---\n" + text;
  else if (x < 0.13) text += "---\n";
  else if (x < 0.16) text = text.slice(0, -1);
  else if (x < 0.18) text = "\uFEFF" + text;
  else if (x < 0.2) text = text.replace(/\n/g, "\r\n");
  return text;
}

/** The general path for one chunk: its Secrets decoded, or what it threw; null when not all Secrets. */
function general(
  text: string,
  index: number,
  last: boolean,
  counts: ChunkCounts,
): { secrets: unknown[] } | { error: unknown } | null {
  try {
    const objects = parseManifestChunk({ source: "s.yaml", text, index, last }, counts);
    if (!objects.every(isSecretObject)) return null;
    return { secrets: objects.map((o) => decodeSecret(o, "s.yaml")) };
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

Deno.test("simpleSecretsChunk() gives what the general path gives, or leaves the chunk to it, on 10,000 random Secret streams", () => {
  const r = rng(1313);
  let taken = 0, takenMutated = 0, left = 0, leftValid = 0;
  for (let n = 0; n < 10_000; n++) {
    const text = randomStream(r);
    const index = r() < 0.6 ? 0 : 1 + Math.floor(r() * 3);
    const last = r() < 0.5;
    const before = r() < 0.1
      ? { documents: MAX_OBJECTS - Math.floor(r() * 4), objects: MAX_OBJECTS - Math.floor(r() * 4) }
      : { documents: Math.floor(r() * 50), objects: Math.floor(r() * 50) };
    const fastCounts = { ...before }, slowCounts = { ...before };
    const fast = simpleSecretsChunk({ source: "s.yaml", text, index, last }, fastCounts);
    const slow = general(text, index, last, slowCounts);
    if (fast === undefined) {
      left++;
      if (slow !== null && "secrets" in slow) leftValid++;
      continue;
    }
    assert.ok(slow !== null, `not all Secrets, yet taken: ${JSON.stringify(text)}`);
    assert.ok("secrets" in slow, `the general path refuses it: ${JSON.stringify(text)}`);
    assertSameSecrets(fast, slow.secrets, JSON.stringify(text));
    assert.deepStrictEqual(fastCounts, slowCounts, JSON.stringify(text));
    taken++;
    if (!/^(?:---\n)?apiVersion: v1\ndata:\n/.test(text)) takenMutated++;
  }
  // Both paths were exercised, the simple shape in more than its one layout.
  const stats = JSON.stringify({ taken, takenMutated, left, leftValid });
  assert.ok(taken > 2000 && takenMutated > 100 && left > 2000 && leftValid > 100, stats);
});

Deno.test("simpleSecretsChunk() keeps the per-input bounds and counts of parseManifestChunk", () => {
  const doc = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  a: Yg==\n";
  const text = "---\n" + doc + "---\n" + doc;
  const cases: [number, boolean, ChunkCounts][] = [
    [0, true, { documents: 7, objects: 7 }],
    [0, false, { documents: 7, objects: 7 }],
    [3, false, { documents: 10, objects: 9 }],
    [3, true, { documents: MAX_OBJECTS - 2, objects: 5 }],
    [3, true, { documents: MAX_OBJECTS - 1, objects: 5 }],
    [3, true, { documents: 5, objects: MAX_OBJECTS - 1 }],
  ];
  for (const [index, last, counts] of cases) {
    const fastCounts = { ...counts }, slowCounts = { ...counts };
    const fast = simpleSecretsChunk({ source: "s", text, index, last }, fastCounts);
    const slow = general(text, index, last, slowCounts);
    if (slow !== null && "error" in slow) {
      assert.equal(fast, undefined, `${index} ${last} ${JSON.stringify(counts)}`);
      assert.match(String(slow.error), /more than 100000/);
    } else {
      assert.ok(fast !== undefined && slow !== null);
      assertSameSecrets(fast, slow.secrets, `${index}`);
      assert.deepStrictEqual(fastCounts, slowCounts);
    }
  }
});

Deno.test("simpleSecretsChunk() leaves List parts, over-long chunks and empty text to the general path", () => {
  const counts = { documents: 0, objects: 0 };
  const doc = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n";
  assert.equal(
    simpleSecretsChunk({ source: "s", text: "", index: 0, last: true }, counts),
    undefined,
  );
  assert.equal(
    simpleSecretsChunk({
      source: "s",
      text: doc,
      index: 1,
      last: false,
      list: { document: 1, itemsBefore: 0, end: false },
    }, counts),
    undefined,
  );
  assert.equal(
    simpleSecretsChunk({ source: "s", text: doc.repeat(1 << 18), index: 0, last: true }, counts),
    undefined,
  );
  assert.ok(simpleSecretsChunk({ source: "s", text: doc, index: 0, last: true }, counts));
});

Deno.test("CLI token list and cluster-info sign print the same bytes whichever path reads the Secrets", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const r = rng(4242);
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
      ["token", "list", file, "-o", "json", ...now],
      ["token", "list", file, "-o", "yaml", ...now],
      ["cluster-info", "sign", ci, "--secrets", file, ...now],
    ];
    let simple = 0;
    for (let n = 0; n < 300; n++) {
      // Several documents, so duplicates and a mix of good and bad Secrets come up.
      const text = randomStream(r) + "---\n" + randomStream(r);
      // The same stream with a comment line at its end, which only the general path reads.
      const results: string[] = [];
      const forced = text + (text.endsWith("\n") ? "" : "\n") + "# end\n";
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
      const counts = { documents: 0, objects: 0 };
      if (simpleSecretsChunk({ source: "s", text, index: 0, last: true }, counts)) simple++;
    }
    assert.ok(simple > 10, `simple streams ${simple}`);
  } finally {
    cleanup();
  }
});

Deno.test("CLI token list and cluster-info sign read a stream of several pieces the same whichever path reads each piece", async () => {
  const { dir, cleanup } = tempDir();
  try {
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
      ["token", "list", file, "-o", "json", ...now],
      ["cluster-info", "sign", ci, "--secrets", file, ...now],
    ];
    let signed = 0;
    for (const seed of [1, 2, 3, 4]) {
      const r = rng(seed);
      const docs: string[] = [];
      for (let d = 0; d < 4000; d++) {
        let lines = secretLines(r, d >= 3000);
        // The first piece stays simple; the second is mixed. No YAML errors: one ends the run
        // and hides the judgements of the documents before it in its piece, so what is shown
        // then depends on where the pieces are cut (the comment lines below move the cuts).
        if (d >= 3000 && seed < 4 && r() < 0.02) {
          const changed = [...lines];
          mutate(changed, r);
          try {
            parseManifests(changed.join("\n") + "\n", "doc");
            lines = changed;
          } catch {
            // left as it was
          }
        }
        docs.push(lines.join("\n") + "\n");
      }
      const text = docs.join("---\n");
      assert.ok(text.length > 1.3 * (1 << 20)); // more than one piece
      // A comment line opening every document: no piece is then simple, all go the general way.
      const general = "# c\n" + docs.join("---\n# c\n");
      const results: string[] = [];
      for (const variant of [text, general]) {
        fs.writeFileSync(file, variant);
        const out = [];
        for (const argv of runs) {
          const res = await runInProcess(argv);
          // The YAML parser's error positions count the comment lines: compared without them.
          const stderr = res.stderr.replace(/ at line \d+, column \d+/g, "");
          out.push(JSON.stringify([res.code, res.stdout, stderr]));
        }
        results.push(out.join("\n"));
      }
      assert.ok(results[0] === results[1], `seed ${seed}: the two paths differ`);
      if (results[0]!.includes("bootstrap-signer")) signed++;
      const first = { source: "s", text: docs.slice(0, 2000).join("---\n"), index: 0, last: false };
      assert.ok(
        simpleSecretsChunk(first, { documents: 0, objects: 0 }),
        "the first piece is simple",
      );
    }
    assert.ok(signed > 0, "cluster-info sign signed in some stream");
  } finally {
    cleanup();
  }
});
