import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { Buffer } from "node:buffer";
import { eachCert, extractCerts } from "../../lib/pki/certsource.ts";
import { decodePem, eachPemBlock, type PemBlock } from "../../lib/pki/pem.ts";
import { InputError } from "../../lib/base/errors.ts";
import { repoPath } from "../_cli.ts";

function input(name: string, bytes: Uint8Array) {
  return { name, bytes, text: Buffer.from(bytes).toString("utf8") };
}

/** Every fixture file (PEM, DER, kubeconfigs, keys, other text), as an input. */
function fixtures(): { name: string; bytes: Uint8Array; text: string }[] {
  const root = repoPath("tests/fixtures");
  return fs.readdirSync(root, { recursive: true }).map(String).sort()
    .map((f) => path.join(root, f))
    .filter((f) => fs.statSync(f).isFile())
    .map((f) => input(f, new Uint8Array(fs.readFileSync(f))));
}

/** What a call gives: the certificates' DER, or the refusal's type and text. */
async function outcome(f: () => Promise<Uint8Array[]>): Promise<string[]> {
  try {
    return (await f()).map((der) => Buffer.from(der).toString("hex"));
  } catch (e) {
    return [`${(e as Error).constructor.name}: ${(e as Error).message}`];
  }
}

Deno.test("eachCert() hands over what extractCerts() returns, or refuses as it does, on every fixture", async () => {
  let files = 0, certs = 0, refused = 0;
  for (const inp of fixtures()) {
    const want = await outcome(async () =>
      (await extractCerts(inp, { includeClient: true })).map((c) => c.der)
    );
    const got = await outcome(async () => {
      const ders: Uint8Array[] = [];
      const n = await eachCert(inp, { includeClient: true }, (c) => void ders.push(c.der));
      assert.equal(n, ders.length);
      return ders;
    });
    assert.deepEqual(got, want, inp.name);
    files++;
    if (want[0]!.startsWith("InputError")) refused++;
    else certs += want.length;
  }
  assert.ok(files > 100 && certs > 40 && refused > 50, `${files} ${certs} ${refused}`);
});

Deno.test("eachCert() lets what the callback throws through unchanged", async () => {
  const pem = fs.readFileSync(repoPath("tests/fixtures/pin/test-cert.pem"));
  const mine = new InputError("mine");
  await assert.rejects(
    eachCert(input("a.pem", new Uint8Array(pem)), {}, () => {
      throw mine;
    }),
    (e) => e === mine,
  );
});

Deno.test("eachCert() hands over the certificates before a later one that does not parse", async () => {
  const pem = fs.readFileSync(repoPath("tests/fixtures/pin/test-cert.pem"), "latin1");
  const bad = "-----BEGIN CERTIFICATE-----\nMIIBAAAA\n-----END CERTIFICATE-----\n";
  const seen: string[] = [];
  await assert.rejects(
    eachCert(input("b.pem", new Uint8Array(Buffer.from(pem + pem + bad))), {}, (c) => {
      seen.push(c.subject.commonName ?? "");
    }),
    /^InputError: b\.pem: x509: malformed certificate$/,
  );
  assert.equal(seen.length, 2);
});

/** A random text of PEM-ish lines (blocks, broken blocks, headers, bytes beyond ASCII). */
function randomPemText(r: () => number): string {
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
  const body = () =>
    Buffer.from(Uint8Array.from({ length: Math.floor(r() * 90) }, () => r() * 256))
      .toString("base64").replace(/.{1,64}/g, "$&\n");
  let s = "";
  for (let i = 0; i < 1 + r() * 6; i++) {
    const type = pick(["CERTIFICATE", "EC PRIVATE KEY", "CERTIFICATE REQUEST", "X"]);
    s += pick([
      () => `-----BEGIN ${type}-----\n${body()}-----END ${type}-----\n`,
      () => `-----BEGIN ${type}-----\nProc-Type: 4,ENCRYPTED\n\n${body()}-----END ${type}-----\n`,
      () => `-----BEGIN ${type}-----\n${body()}-----END X-----\n`,
      () =>
        `text \u00e9\u00ff before\n-----BEGIN ${type}-----\n${body()}=\n-----END ${type}-----\n`,
      () => `-----BEGIN ${type}-----\r\n${body().replace(/\n/g, "\r\n")}-----END ${type}-----\r\n`,
      () => "-----BEGIN " + type + "-----\n",
      () => "garbage\n",
    ])();
  }
  return s;
}

Deno.test("eachPemBlock() gives decodePem()'s blocks, from the text or from its bytes, on 3,000 random texts", () => {
  let state = 42;
  const r = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const shown = (bs: PemBlock[]) =>
    bs.map((b) => [b.type, JSON.stringify(b.headers), Buffer.from(b.der).toString("hex")]);
  let blocks = 0;
  for (let k = 0; k < 3000; k++) {
    const text = randomPemText(r);
    const want = shown(decodePem(text));
    const fromText: PemBlock[] = [];
    eachPemBlock(text, (b) => {
      fromText.push(b);
      // A decode inside the callback leaves the outer walk where it was.
      decodePem(text);
    });
    assert.deepEqual(shown(fromText), want, JSON.stringify(text));
    const fromBytes: PemBlock[] = [];
    eachPemBlock(text, (b) => void fromBytes.push(b), Buffer.from(text, "latin1"));
    assert.deepEqual(shown(fromBytes), want, JSON.stringify(text));
    blocks += want.length;
  }
  assert.ok(blocks > 3000, String(blocks));
});
