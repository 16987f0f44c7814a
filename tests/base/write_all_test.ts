import assert from "node:assert/strict";
import { WRITE_SLICE, writeAllText } from "../../lib/base/write_all.ts";

/** A writer taking at most `max` bytes a call, recording them. */
function recorder(max: number) {
  const bytes: number[] = [];
  const calls: number[] = [];
  const write = (d: Uint8Array, off: number, len: number) => {
    const n = Math.min(max, len);
    bytes.push(...d.subarray(off, off + n));
    calls.push(n);
    return n;
  };
  return {
    write,
    text: () => new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array(bytes)),
    calls,
  };
}

Deno.test("writeAllText() writes every byte through short writes, whatever the slice", () => {
  const texts = [
    "",
    "a",
    "héllo wörld",
    "😀",
    "a😀b😀😀c",
    "😀".repeat(50) + "x",
    "\u2028\u2029 \u00ff \uffff",
  ];
  for (const text of texts) {
    for (const slice of [1, 2, 3, 7, WRITE_SLICE]) {
      for (const max of [1, 2, 5, 1 << 20]) {
        const r = recorder(max);
        writeAllText(text, r.write, () => assert.fail("no wait"), slice);
        assert.equal(r.text(), text, `${JSON.stringify(text)} slice ${slice} max ${max}`);
        assert.ok(r.calls.every((n) => n > 0 && n <= max));
      }
    }
  }
});

Deno.test("writeAllText() never splits a surrogate pair between slices (no U+FFFD)", () => {
  // Every slice boundary of 1 falls on a pair: a split pair would encode as two U+FFFD, and
  // the decoded text would differ.
  const text = "😀🎉".repeat(1000);
  const r = recorder(4096);
  writeAllText(text, r.write, () => {}, 1);
  assert.equal(r.text(), text);
  // A large text over the real slice size, with a pair straddling the first boundary.
  const big = "x".repeat(WRITE_SLICE - 1) + "😀" + "y".repeat(10);
  const b = recorder(1 << 16);
  writeAllText(big, b.write);
  assert.equal(b.text(), big);
});

Deno.test("writeAllText() waits on EAGAIN, retries EINTR, throws anything else", () => {
  const fail = (code: string) => Object.assign(new Error(code), { code });
  const plan = ["EAGAIN", "EINTR", "ok", "EAGAIN", "ok"];
  const waits: number[] = [];
  const out: number[] = [];
  writeAllText("abcdef", (d, off, len) => {
    const step = plan.shift() ?? "ok";
    if (step !== "ok") throw fail(step);
    const n = Math.min(3, len);
    out.push(...d.subarray(off, off + n));
    return n;
  }, (ms) => waits.push(ms));
  assert.equal(new TextDecoder().decode(new Uint8Array(out)), "abcdef");
  assert.deepEqual(waits, [1, 1]);
  assert.throws(() =>
    writeAllText("x", () => {
      throw fail("EPIPE");
    }), (e: Error & { code?: string }) => e.code === "EPIPE");
  assert.throws(() =>
    writeAllText("x", () => {
      throw fail("EBADF");
    }), /EBADF/);
});
