/**
 * `cert inspect -o json` writes each certificate's element straight from its
 * summary (commands/cert_inspect.ts `jsonElement`): held here to `toJson` of
 * the whole list (a sorted copy, `JSON.stringify(…, null, 4)`) on every
 * certificate of the fixtures and on hostile file names, and at the CLI on
 * a directory of several kinds of file.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { jsonElement, jsonElementSorted } from "../../commands/cert_inspect.ts";
import { type Cert, summarize } from "../../lib/pki/cert_info.ts";
import { eachCert } from "../../lib/pki/certsource.ts";
import { toJson } from "../../lib/k8s/manifest.ts";
import { repoPath, runCli, tempDir } from "../_cli.ts";

const NOW = new Date("2027-06-01T00:00:00Z");

/**
 * The elements as `cert inspect` joins them, against `toJson` of the whole list (what the
 * streamed output must equal; a per-element `/^/gm` indent would also indent after a raw
 * U+2028 inside a string, which JSON.stringify leaves unescaped).
 */
function assertList(elements: string[], values: unknown[], what: string): void {
  assert.equal("[\n" + elements.join(",\n") + "\n]\n", toJson(values), what);
}

/** Every certificate that parses in the fixture files, with its file. */
async function fixtureCerts(): Promise<{ file: string; cert: Cert }[]> {
  const out: { file: string; cert: Cert }[] = [];
  const walk = (d: string): string[] =>
    fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name < b.name ? -1 : 1)
      .flatMap((e) => e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]);
  for (const file of walk(repoPath("tests/fixtures"))) {
    const bytes = new Uint8Array(fs.readFileSync(file));
    const input = { name: file, bytes, text: new TextDecoder().decode(bytes) };
    try {
      await eachCert(input, { includeClient: true }, (cert) => void out.push({ file, cert }));
    } catch {
      // keys, manifests and broken certificates: not certificates to show
    }
  }
  return out;
}

Deno.test("jsonElement() is toJson's element for every fixture certificate", async () => {
  const certs = await fixtureCerts();
  assert.ok(certs.length >= 40, `only ${certs.length} certificates in the fixtures`);
  const kinds = new Set<string>();
  for (const [i, { file, cert }] of certs.entries()) {
    const s = summarize(cert, NOW);
    kinds.add(`${s.keyType} ${s.dnsNames.length > 0} ${s.ipAddresses.length > 0} ${s.expired}`);
    assertList([jsonElement(file, i, cert, NOW)], [{ file, index: i, ...s }], file);
  }
  // RSA, ECDSA and Ed25519 keys, with and without SANs, expired or not, all met.
  assert.ok(kinds.size >= 6, [...kinds].join("; "));
});

Deno.test("jsonElement() quotes file names as JSON.stringify does (quotes, controls, surrogates, non-ASCII)", async () => {
  const { cert } = (await fixtureCerts())[0]!;
  const names = [
    'a"b.crt',
    "back\\slash.pem",
    "tab\tnew\nline\r\u0000\u001f\u007f.crt",
    "café/ключ/鍵.pem",
    "lone \ud800 high and \udc00 low.crt",
    "pair \ud83d\ude00.crt",
    "\u2028\u2029.crt",
    "",
  ];
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000;
  for (let n = 0; n < 2000; n++) {
    let s = "";
    for (let k = Math.floor(rnd() * 12); k > 0; k--) {
      const r = rnd();
      s += String.fromCharCode(
        r < 0.3
          ? Math.floor(rnd() * 0x30)
          : r < 0.8
          ? 0x30 + Math.floor(rnd() * 0x50)
          : Math.floor(rnd() * 0x10000),
      );
    }
    names.push(s);
  }
  const s = summarize(cert, NOW);
  for (const file of names) {
    assertList([jsonElement(file, 3, cert, NOW)], [{ file, index: 3, ...s }], JSON.stringify(file));
  }
  // And as one list, each element after the one before.
  assertList(
    names.map((file, i) => jsonElement(file, i, cert, NOW)),
    names.map((file, i) => ({ file, index: i, ...s })),
    "all names",
  );
});

Deno.test("jsonElementSorted() is toJson's element for a flat summary with undefined values and line separators", () => {
  const value = { b: "x\ny\u2028z", a: [], c: ["p", 'q"', "\u2029"], d: undefined, e: 4, f: false };
  assertList([jsonElementSorted(value)], [value], "flat");
});

Deno.test("CLI cert inspect -o json of a directory prints toJson of every certificate's summary", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const pem = (p: string) => fs.readFileSync(repoPath(p), "utf8");
    const a = pem("tests/fixtures/pin/test-cert.pem");
    const b = pem("tests/fixtures/pin/ca-cert.pem");
    fs.mkdirSync(path.join(dir, "sub"));
    fs.writeFileSync(path.join(dir, "a.crt"), a);
    fs.writeFileSync(path.join(dir, "sub", "bundle.pem"), b + a);
    fs.writeFileSync(path.join(dir, 'we"ird name.pem'), b);
    fs.writeFileSync(
      path.join(dir, "key.pem"),
      "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
    );
    const expected: unknown[] = [];
    for (const [file, text] of [["a.crt", a], ["sub/bundle.pem", b + a], ['we"ird name.pem', b]]) {
      const name = path.join(dir, file!);
      const bytes = new TextEncoder().encode(text);
      let index = 0;
      await eachCert({ name, bytes, text: text! }, {}, (c) => {
        expected.push({ file: name, index: index++, ...summarize(c, NOW) });
      });
    }
    const r = await runCli(["cert", "inspect", dir, "-o", "json", "--now", NOW.toISOString()]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
    assert.equal(r.stdout, toJson(expected));
  } finally {
    cleanup();
  }
});
