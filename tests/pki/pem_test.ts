import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { execFileSync } from "node:child_process";
import { decodePem, encodePem, type PemBlock } from "../../lib/pki/pem.ts";

const der = Uint8Array.from({ length: 100 }, (_, i) => i);
const pem = encodePem("CERTIFICATE", der);

interface GoBlock {
  type: string;
  headers: Record<string, string>;
  hex: string;
}
const fixture = JSON.parse(
  Deno.readTextFileSync(new URL("../fixtures/pem/decode-go.json", import.meta.url)),
) as { rows: { input: string; blocks: GoBlock[]; go1_23?: GoBlock[] }[] };

const asGo = (blocks: PemBlock[]): GoBlock[] =>
  blocks.map((b) => ({
    type: b.type,
    headers: Object.fromEntries(Object.entries(b.headers).sort(([x], [y]) => x < y ? -1 : 1)),
    hex: Buffer.from(b.der).toString("hex"),
  }));
const sorted = (blocks: GoBlock[]): GoBlock[] =>
  blocks.map((b) => ({ ...b, headers: asGo([{ type: "", headers: b.headers, der }])[0]!.headers }));

Deno.test("decodePem() returns exactly the blocks of Go 1.25's pem.Decode loop on every fixture row", () => {
  assert.ok(fixture.rows.length >= 400);
  for (const row of fixture.rows) {
    assert.deepEqual(asGo(decodePem(row.input)), sorted(row.blocks), JSON.stringify(row.input));
  }
});

Deno.test("decodePem() follows the END-first scan where Go 1.23's BEGIN-first one differs", () => {
  // Rows where the oracle's Go 1.23.5 pem.Decode answered otherwise: joinkit targets Go 1.25.5+
  // (CVE-2025-61723 rewrite; a BEGIN inside a header line or a header-shaped END line now
  // ends the scan, where 1.23 resynchronised on a later BEGIN).
  const differing = fixture.rows.filter((r) => r.go1_23 !== undefined);
  assert.ok(differing.length >= 3, String(differing.length));
  for (const row of differing) {
    assert.notDeepEqual(sorted(row.blocks), sorted(row.go1_23!));
    assert.deepEqual(asGo(decodePem(row.input)), sorted(row.blocks), JSON.stringify(row.input));
  }
});

Deno.test("encodePem() writes 64-column lines that openssl reads back", () => {
  assert.ok(pem.split("\n").every((l) => l.length <= 64));
  const out = execFileSync("openssl", ["base64", "-d"], {
    input: pem.split("\n").filter((l) => !l.startsWith("-----")).join("\n"),
  });
  assert.deepEqual(new Uint8Array(out), der);
});

Deno.test("decodePem() tolerates CRLF and text around blocks; a BOM hides the first block, as in Go", () => {
  for (const text of [pem, pem.replace(/\n/g, "\r\n"), "Subject: x\n" + pem + "trailing text\n"]) {
    const blocks = decodePem(text, "ca.crt");
    assert.equal(blocks.length, 1);
    assert.equal(blocks[0]!.type, "CERTIFICATE");
    assert.deepEqual(blocks[0]!.der, der);
  }
  assert.equal(decodePem(pem + pem).length, 2);
  assert.equal(decodePem("no pem here").length, 0);
  assert.equal(decodePem("\uFEFF" + pem).length, 0);
  assert.equal(decodePem("\uFEFF" + pem + pem).length, 1);
});

Deno.test("decodePem() reads legacy headers of encrypted keys", () => {
  const text = "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n" +
    "DEK-Info: AES-128-CBC,00\n\nAAAA\n-----END RSA PRIVATE KEY-----\n";
  assert.equal(decodePem(text)[0]!.headers["Proc-Type"], "4,ENCRYPTED");
  const proto = decodePem("-----BEGIN X-----\n__proto__: x\n\nAAAA\n-----END X-----\n")[0]!;
  assert.deepEqual(Object.keys(proto.headers), ["__proto__"]);
  assert.equal(Object.getPrototypeOf(proto.headers), Object.prototype);
});

Deno.test("decodePem() skips malformed blocks silently, never throws", () => {
  const bad = [
    pem.slice(0, pem.length - 30), // truncated: no END
    pem.replace("AAEC", "A!EC"), // bad base64
    pem.replace("END CERTIFICATE", "END PRIVATE KEY"), // mismatched END
    "x" + pem, // BEGIN not at the start of a line
    pem.replace(/=*\n-----END/, "\n-----END").replace(/(\n[^\n-]*)\n-----END/, "$1A\n-----END"),
  ];
  for (const text of bad) assert.deepEqual(decodePem(text, "ca.crt"), [], JSON.stringify(text));
  for (const text of bad) assert.equal(decodePem(text + "\n" + pem).length, 1);
  // an empty body is a block with no bytes, as in Go
  assert.deepEqual(decodePem("-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n"), [
    { type: "CERTIFICATE", headers: {}, der: new Uint8Array(0) },
  ]);
});

Deno.test("decodePem() stays linear on hostile inputs", () => {
  const t0 = performance.now();
  assert.equal(decodePem("-----BEGIN CERTIFICATE-----\n".repeat(200_000)).length, 0);
  assert.equal(decodePem("-----BEGIN X-----\n" + "\n-----END X".repeat(300_000)).length, 0);
  assert.equal(
    decodePem("-----BEGIN X-----\nAAAA\n" + "\n-----END Y-----".repeat(300_000)).length,
    0,
  );
  assert.equal(
    decodePem(`-----BEGIN ${"A".repeat(1_000_000)}-----\nAAAA\n-----END B-----\n`).length,
    0,
  );
  assert.equal(decodePem("-----BEGIN X-----\n" + "k: v\n".repeat(200_000)).length, 0);
  assert.equal(decodePem(pem.repeat(20_000)).length, 20_000);
  assert.ok(performance.now() - t0 < 5000, `${performance.now() - t0} ms`);
});
