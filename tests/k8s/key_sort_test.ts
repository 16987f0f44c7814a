import assert from "node:assert/strict";
import { goYamlLess, sortKeysGoYaml, toYaml, toYamlByLibrary } from "../../lib/k8s/manifest.ts";

// sortKeysGoYaml() is an index-based merge sort with each key's ASCII test made once. As
// go-yaml's Less is not transitive, the outcome depends on every split and merge: these tests
// hold it to the plain algorithm it replaced (below, as it was), key set by key set.

/** The sort as first written: code-unit order, then insertion (≤ 12) or top-down merge sort. */
function referenceSort(keys: readonly string[]): string[] {
  const entries = keys.map((key) => ({ key }));
  entries.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  const less = (x: { key: string }, y: { key: string }) =>
    x.key !== y.key && goYamlLess(x.key, y.key);
  let sorted: typeof entries;
  if (entries.length <= 12) {
    sorted = entries;
    for (let i = 1; i < sorted.length; i++) {
      for (let j = i; j > 0 && less(sorted[j]!, sorted[j - 1]!); j--) {
        [sorted[j - 1], sorted[j]] = [sorted[j]!, sorted[j - 1]!];
      }
    }
  } else {
    sorted = referenceMergeSort(entries, less);
  }
  return sorted.map((e) => e.key);
}

function referenceMergeSort<T>(items: T[], less: (a: T, b: T) => boolean): T[] {
  if (items.length <= 1) return items;
  const mid = items.length >> 1;
  const left = referenceMergeSort(items.slice(0, mid), less);
  const right = referenceMergeSort(items.slice(mid), less);
  const out: T[] = [];
  let i = 0, j = 0;
  while (i < left.length && j < right.length) {
    out.push(less(right[j]!, left[i]!) ? right[j++]! : left[i++]!);
  }
  while (i < left.length) out.push(left[i++]!);
  while (j < right.length) out.push(right[j++]!);
  return out;
}

/** A small seeded PRNG (mulberry32): the same cases on every run. */
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

const ID_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789";

/** Random key sets: token-ID signature keys (the cyclic class), mixed with odd keys. */
function keySet(rand: () => number, n: number, odd: number): string[] {
  const pick = (s: string) => s[Math.floor(rand() * s.length)]!;
  const keys = new Set<string>();
  // Few distinct characters make long shared prefixes and digit runs (the cycles) common.
  const narrow = rand() < 0.5 ? "0019az" : ID_CHARS;
  while (keys.size < n) {
    if (rand() < odd) {
      const shapes = ["kubeconfig", "jws-kubeconfig-", "a", "_x", "é", "Ω9", "k8", "x.1", "0"];
      let k = shapes[Math.floor(rand() * shapes.length)]!;
      const len = Math.floor(rand() * 7);
      for (let i = 0; i < len; i++) k += pick(narrow + "-._/é0Z");
      keys.add(k);
    } else {
      let id = "";
      for (let i = 0; i < 6; i++) id += pick(narrow);
      keys.add(`jws-kubeconfig-${id}`);
    }
  }
  return [...keys];
}

Deno.test("sortKeysGoYaml() gives the reference merge sort's order on random key sets", () => {
  const rand = prng(13_2026);
  for (let set = 0; set < 600; set++) {
    const n = 1 + Math.floor(rand() * (set % 10 === 0 ? 3000 : 60));
    const odd = [0, 0.05, 0.5][set % 3]!;
    const keys = keySet(rand, n, odd);
    assert.deepEqual(sortKeysGoYaml(keys), referenceSort(keys), `set ${set} (${n} keys)`);
  }
});

Deno.test("toYaml() and toYamlByLibrary() write keys in the reference order (signature-key maps)", () => {
  const rand = prng(7);
  for (let set = 0; set < 40; set++) {
    const keys = keySet(rand, 13 + Math.floor(rand() * 200), set % 2 === 0 ? 0 : 0.1);
    const obj = Object.fromEntries(keys.map((k) => [k, "x"]));
    const want = referenceSort(keys).map((k) => `${JSON.stringify(k)}: x`).join("\n");
    // Keys are written plain or quoted; compare them by what they parse back to.
    for (const yaml of [toYaml(obj), toYamlByLibrary(obj)]) {
      const got = yaml.trimEnd().split("\n").map((l) => {
        const k = l.slice(0, l.lastIndexOf(": "));
        return `${
          k.startsWith('"') || k.startsWith("'")
            ? JSON.stringify(k.slice(1, -1))
            : JSON.stringify(k)
        }: x`;
      }).join("\n");
      assert.equal(got, want, `set ${set}`);
    }
  }
});

Deno.test("sortKeysGoYaml() reference check can fail: a different merge split changes the order", () => {
  // The cycle of three and more: the exact algorithm matters (this guards the test's power).
  const rand = prng(99);
  let differs = 0;
  for (let set = 0; set < 50; set++) {
    const keys = keySet(rand, 40, 0);
    const sorted = referenceSort(keys);
    const other = referenceSort(keys.toReversed().slice(0, 20)).concat(
      referenceSort(keys.toReversed().slice(20)),
    );
    if (other.join() !== sorted.join()) differs++;
  }
  assert.ok(differs > 0);
});
