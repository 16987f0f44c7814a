import assert from "node:assert/strict";
import * as fs from "node:fs";
import { Buffer } from "node:buffer";
import {
  at,
  ByteTable,
  certificateParts,
  oidAt,
  oidString,
  readAt,
  readTlv,
} from "../../lib/pki/der.ts";
import {
  checkCertNameAt,
  formatCertNameAt,
  formatName,
  parseCertNameAt,
} from "../../lib/pki/pkix_name.ts";
import { parseCertificate, serialDecimal, summarize } from "../../lib/pki/cert_info.ts";
import { repoPath } from "../_cli.ts";

/** A small deterministic generator (xorshift32), so a failure reproduces. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

Deno.test("serialDecimal() gives BigInt's decimal text for 20,000 random serials of 1 to 40 bytes", () => {
  const r = rng(7);
  for (let k = 0; k < 20_000; k++) {
    const b = Uint8Array.from({ length: 1 + (k % 40) }, () => Math.floor(r() * 256));
    if (k % 5 === 0) b[0] = 0;
    if (k % 11 === 0) b.fill(0xff);
    const want = BigInt("0x0" + Buffer.from(b).toString("hex")).toString(10);
    assert.equal(serialDecimal(b), want, Buffer.from(b).toString("hex"));
  }
});

Deno.test("oidAt() gives oidString's text (or refusal) for 20,000 random contents, repeated", () => {
  const r = rng(11);
  const cases: Uint8Array[] = [];
  for (let k = 0; k < 10_000; k++) {
    const len = Math.floor(r() * 12);
    cases.push(Uint8Array.from({ length: len }, () => {
      const p = r();
      return p < 0.3 ? 0x80 | Math.floor(r() * 128) : p < 0.35 ? 0x80 : Math.floor(r() * 128);
    }));
  }
  // Twice over: the second pass is answered from the table where the first kept an entry.
  for (let pass = 0; pass < 2; pass++) {
    for (const c of cases) {
      const framed = new Uint8Array([0xaa, ...c, 0xbb]);
      assert.equal(oidAt(framed, 1, 1 + c.length), oidString(c), Buffer.from(c).toString("hex"));
    }
  }
});

Deno.test("ByteTable() answers only for the exact bytes kept, and a colliding key replaces the older", () => {
  const t = new ByteTable<string>(1, 8); // one slot: every key collides
  const a = new Uint8Array([1, 2, 3]), b = new Uint8Array([1, 2, 4]);
  assert.equal(t.get(a, 0, 3), undefined);
  t.set(a, 0, 3, "a");
  assert.equal(t.get(a, 0, 3), "a");
  assert.equal(t.get(b, 0, 3), undefined);
  assert.equal(t.get(a, 0, 2), undefined);
  t.set(b, 0, 3, "b");
  assert.equal(t.get(a, 0, 3), undefined);
  assert.equal(t.get(b, 0, 3), "b");
  // The kept key is a copy: changing the caller's bytes does not change the entry.
  b[2] = 9;
  assert.equal(t.get(new Uint8Array([1, 2, 4]), 0, 3), "b");
  // Keys longer than maxKey are never kept.
  const long = new Uint8Array(9);
  assert.equal(t.get(long, 0, 9), undefined);
  t.set(long, 0, 9, "long");
  assert.equal(t.get(long, 0, 9), undefined);
});

Deno.test("readAt() agrees with the throwing reader readTlv() on every offset of certificate prefixes", () => {
  const der = new Uint8Array(fs.readFileSync(repoPath("tests/fixtures/x509/last-cn-wins.der")));
  let read = 0;
  for (let limit = 0; limit <= der.length; limit += 7) {
    for (let off = 0; off < limit; off++) {
      let t: ReturnType<typeof readTlv> | undefined;
      try {
        t = readTlv(der, off, limit);
      } catch {
        t = undefined;
      }
      const ok = readAt(der, off, limit);
      assert.equal(ok, t !== undefined, `${off}/${limit}`);
      if (t) {
        assert.deepEqual([at.tag, at.cs, at.end], [t.tag, t.contentStart, t.end]);
        read++;
      }
    }
  }
  assert.ok(read > 1000);
});

Deno.test("parseCertificate() gives certificates with one issuer equal, shared and frozen values", () => {
  const text = fs.readFileSync(
    repoPath("tests/fixtures/oracle/chain/chain-1-4252.intermediates.pem"),
    "utf8",
  );
  const ders = [...text.matchAll(/-----BEGIN CERTIFICATE-----([^-]+)-----END/g)].map((m) =>
    new Uint8Array(Buffer.from(m[1]!, "base64"))
  );
  assert.ok(ders.length >= 2);
  const first = ders.map(parseCertificate);
  const again = ders.map(parseCertificate);
  const now = new Date("2026-01-01T00:00:00Z");
  for (let i = 0; i < ders.length; i++) {
    assert.deepEqual(summarize(again[i]!, now), summarize(first[i]!, now));
    assert.deepEqual(again[i]!.issuer, first[i]!.issuer);
    assert.deepEqual(again[i]!.extKeyUsage, first[i]!.extKeyUsage);
    // The extension list is read again from the DER on each access: same list each time.
    const exts = (c: typeof first[0]) =>
      c.extensions.map((e) => [e.oid, e.critical, Buffer.from(e.value).toString("hex")]);
    assert.ok(exts(first[i]!).length > 0);
    assert.deepEqual(exts(again[i]!), exts(first[i]!));
    assert.deepEqual(exts(again[i]!), exts(again[i]!));
    if (again[i]!.extKeyUsage) assert.ok(Object.isFrozen(again[i]!.extKeyUsage));
    if (again[i]!.basicConstraints) assert.ok(Object.isFrozen(again[i]!.basicConstraints));
    assert.ok(Object.isFrozen(again[i]!.sans.dns) || again[i]!.sans.dns.length > 0);
  }
});

Deno.test("checkCertNameAt() refuses exactly what parseCertNameAt() refuses, with its text, on 20,000 mutated names", () => {
  const der = new Uint8Array(fs.readFileSync(repoPath("tests/fixtures/x509/last-cn-wins.der")));
  const { subject } = certificateParts(der);
  const r = rng(23);
  const outcome = (f: () => unknown) => {
    try {
      f();
      return "ok";
    } catch (e) {
      return (e as Error).message;
    }
  };
  const seen = new Set<string>();
  // String types the mutation puts in a value's tag position: Printable, IA5, T61, UTF8, BMP, …
  const tags = [0x13, 0x16, 0x14, 0x0c, 0x1e, 0x12, 0x1c, 0x04];
  for (let k = 0; k < 20_000; k++) {
    const m = der.slice();
    for (let j = 0; j < 1 + (k % 3); j++) {
      const i = subject.start + Math.floor(r() * (subject.end - subject.start));
      m[i] = r() < 0.3 ? tags[Math.floor(r() * tags.length)]! : Math.floor(r() * 256);
    }
    const a = outcome(() => checkCertNameAt(m, subject.start, subject.end));
    const b = outcome(() => parseCertNameAt(m, subject.start, subject.end));
    const what = Buffer.from(m.subarray(subject.start, subject.end)).toString("hex");
    assert.equal(a, b, what);
    // The text made straight from the DER is formatName's text of the parsed name.
    let text: string;
    try {
      text = formatCertNameAt(m, subject.start, subject.end);
    } catch (e) {
      text = (e as Error).message;
    }
    if (b === "ok") {
      assert.equal(text, formatName(parseCertNameAt(m, subject.start, subject.end)), what);
    } else assert.equal(text, b, what);
    seen.add(a);
  }
  // Both verdicts and several distinct refusals were exercised.
  assert.ok(seen.has("ok") && seen.size >= 5, [...seen].join(" | "));
});

Deno.test("formatCertNameAt() gives formatName()'s text of every fixture certificate's subject and issuer", () => {
  const dir = repoPath("tests/fixtures/x509");
  let names = 0;
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith(".der")).sort()) {
    const der = new Uint8Array(fs.readFileSync(`${dir}/${f}`));
    let parts;
    try {
      parts = certificateParts(der);
    } catch {
      continue; // not a certificate
    }
    for (const n of [parts.subject, parts.issuer]) {
      let want: string;
      try {
        want = formatName(parseCertNameAt(der, n.start, n.end));
      } catch (e) {
        assert.throws(() => formatCertNameAt(der, n.start, n.end), {
          message: (e as Error).message,
        });
        continue;
      }
      assert.equal(formatCertNameAt(der, n.start, n.end), want, f);
      names++;
    }
  }
  assert.ok(names >= 20, `${names} names`);
});
