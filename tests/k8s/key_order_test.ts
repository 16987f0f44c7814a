import assert from "node:assert/strict";
import { goYamlLess, sortKeysGoYaml, toYaml, toYamlByLibrary } from "../../lib/k8s/manifest.ts";

// go-yaml v2's keyList.Less is not transitive on these three keys.
const CYCLE = ["jws-kubeconfig-01k5uj", "jws-kubeconfig-0tpkrp", "jws-kubeconfig-1b7hcz"];

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((x, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [x, ...rest])
  );
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

function shuffle<T>(items: readonly T[], rand: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const objectOf = (keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, "x"]));

/** Whether goYamlLess is a strict total order on `keys` (no cycle among any three). */
function consistent(keys: readonly string[]): boolean {
  for (const a of keys) {
    for (const b of keys) {
      if (a === b) continue;
      if (goYamlLess(a, b) === goYamlLess(b, a)) return false;
      for (const c of keys) {
        if (c !== a && c !== b && goYamlLess(a, b) && goYamlLess(b, c) && !goYamlLess(a, c)) {
          return false;
        }
      }
    }
  }
  return true;
}

Deno.test("goYamlLess() is not transitive: jws-kubeconfig-01k5uj < -0tpkrp < -1b7hcz < -01k5uj", () => {
  const [a, b, c] = CYCLE as [string, string, string];
  assert.equal(goYamlLess(a, b), true);
  assert.equal(goYamlLess(b, c), true);
  assert.equal(goYamlLess(c, a), true);
});

Deno.test("sortKeysGoYaml() gives the go-yaml cycle one order whatever the input order", () => {
  for (const perm of permutations(CYCLE)) {
    assert.deepEqual(sortKeysGoYaml(perm), CYCLE, perm.join(","));
  }
});

Deno.test("toYaml() writes the go-yaml cycle the same in all 6 input orders, as toYamlByLibrary() does", () => {
  const want = CYCLE.map((k) => `${k}: x\n`).join("");
  for (const perm of permutations(CYCLE)) {
    const data = { data: objectOf(perm), kind: "ConfigMap" };
    const expected = `data:\n${CYCLE.map((k) => `  ${k}: x\n`).join("")}kind: ConfigMap\n`;
    assert.equal(toYaml(data), expected, perm.join(","));
    assert.equal(toYamlByLibrary(data), expected, perm.join(","));
    assert.equal(toYaml(objectOf(perm)), want, perm.join(","));
    assert.equal(toYamlByLibrary(objectOf(perm)), want, perm.join(","));
  }
});

Deno.test("sortKeysGoYaml() keeps go-yaml's order where it is consistent", () => {
  const sorted = ["", "_x", "1.5", "2", "10", "a", "a-b", "a1", "a01", "a9", "a10", "ab", "b", "é"];
  const rand = prng(7);
  for (let round = 0; round < 20; round++) {
    assert.deepEqual(sortKeysGoYaml(shuffle(sorted, rand)), sorted);
  }
});

Deno.test("toYaml() key order is independent of input order and equal to toYamlByLibrary() (seeded random key sets)", () => {
  const rand = prng(20260125);
  const alphabet = ["0", "0", "1", "2", "9", "a", "b", "z", "-", "."];
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  let cyclic = 0, checked = 0;
  for (let set = 0; set < 300; set++) {
    const n = 2 + Math.floor(rand() * 28); // both sides of the insertion/merge boundary (12)
    const keys = new Set<string>();
    while (keys.size < n) {
      let k = pick(["k", "kk", "jws-", "a"]);
      const len = 1 + Math.floor(rand() * 5);
      for (let i = 0; i < len; i++) k += pick(alphabet);
      keys.add(k);
    }
    const list = [...keys];
    const first = sortKeysGoYaml(list);
    const yaml = toYaml(objectOf(first));
    assert.equal(yaml, first.map((k) => `${k}: x\n`).join(""));
    for (let round = 0; round < 5; round++) {
      const input = shuffle(list, rand);
      assert.deepEqual(sortKeysGoYaml(input), first, input.join(","));
      assert.equal(toYaml(objectOf(input)), yaml, input.join(","));
      assert.equal(toYamlByLibrary(objectOf(input)), yaml, input.join(","));
    }
    if (consistent(list)) {
      checked++;
      for (let i = 0; i + 1 < first.length; i++) {
        assert.equal(goYamlLess(first[i]!, first[i + 1]!), true, `${first[i]} < ${first[i + 1]}`);
      }
    } else {
      cyclic++;
    }
  }
  // The generator must exercise both kinds of key set.
  assert.ok(cyclic > 10, `cyclic sets: ${cyclic}`);
  assert.ok(checked > 10, `consistent sets: ${checked}`);
});
