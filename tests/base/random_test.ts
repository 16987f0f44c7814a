import assert from "node:assert/strict";
import { cryptoRandom, setCsprngSource } from "../../lib/base/random.ts";

Deno.test("cryptoRandom() returns the asked length, small draws from the pool and large ones direct", () => {
  for (const n of [0, 1, 16, 255, 256, 257, 4095, 4096, 4097, 70_000]) {
    assert.equal(cryptoRandom(n).length, n, String(n));
  }
});

Deno.test("cryptoRandom() never hands out the same bytes twice, across pool refills", () => {
  // 3,000 draws of 16 bytes cross the 4 KiB pool about 12 times.
  const seen = new Set<string>();
  for (let i = 0; i < 3000; i++) {
    const hex = Array.from(cryptoRandom(16), (b) => b.toString(16).padStart(2, "0")).join("");
    assert.ok(!seen.has(hex), `draw ${i} repeated`);
    seen.add(hex);
  }
});

Deno.test("cryptoRandom() returns copies: changing one draw changes no other", () => {
  const a = cryptoRandom(32);
  const before = Uint8Array.from(a);
  const b = cryptoRandom(32);
  b.fill(0);
  assert.deepEqual(a, before);
  a.fill(7);
  assert.ok(cryptoRandom(32).some((x) => x !== 7));
});

Deno.test("cryptoRandom() bytes look uniform (each value 500±250 times in 128,000 bytes)", () => {
  const counts = new Array(256).fill(0);
  for (let i = 0; i < 1000; i++) for (const x of cryptoRandom(128)) counts[x]++;
  for (let v = 0; v < 256; v++) assert.ok(counts[v] > 250 && counts[v] < 750, `${v}: ${counts[v]}`);
});

Deno.test("setCsprngSource(): cryptoRandom draws from the chosen source, and from WebCrypto again after undefined", () => {
  let calls = 0;
  setCsprngSource((out) => {
    calls++;
    out.fill(0xab);
  });
  try {
    // A large draw goes to the source directly; a small one refills the pool from it (the
    // pool may still hold earlier bytes: draw past it).
    assert.deepEqual([...cryptoRandom(300)], Array(300).fill(0xab));
    for (let i = 0; i < 20; i++) cryptoRandom(256);
    assert.deepEqual([...cryptoRandom(16)], Array(16).fill(0xab));
    assert.ok(calls >= 2);
  } finally {
    setCsprngSource(undefined);
  }
  const big = cryptoRandom(300);
  assert.notDeepEqual([...big], Array(300).fill(0xab));
  assert.ok(new Set(big).size > 100);
});
