import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { decodePem, encodePem } from "../lib/pem.ts";
import { InputError } from "../lib/errors.ts";

const der = Uint8Array.from({ length: 100 }, (_, i) => i);
const pem = encodePem("CERTIFICATE", der);

Deno.test("encodePem() writes 64-column lines that openssl reads back", () => {
  assert.ok(pem.split("\n").every((l) => l.length <= 64));
  const out = execFileSync("openssl", ["base64", "-d"], {
    input: pem.split("\n").filter((l) => !l.startsWith("-----")).join("\n"),
  });
  assert.deepEqual(new Uint8Array(out), der);
});

Deno.test("decodePem() tolerates CRLF, a BOM and text around blocks", () => {
  const cases = [
    pem,
    pem.replace(/\n/g, "\r\n"),
    "\uFEFF" + pem,
    "Subject: x\n" + pem + "trailing text\n",
  ];
  for (const text of cases) {
    const blocks = decodePem(text, "ca.crt");
    assert.equal(blocks.length, 1);
    assert.equal(blocks[0]!.type, "CERTIFICATE");
    assert.deepEqual(blocks[0]!.der, der);
  }
  assert.equal(decodePem(pem + pem).length, 2);
  assert.equal(decodePem("no pem here").length, 0);
});

Deno.test("decodePem() reads legacy headers of encrypted keys", () => {
  const text = "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n" +
    "DEK-Info: AES-128-CBC,00\n\nAAAA\n-----END RSA PRIVATE KEY-----\n";
  assert.equal(decodePem(text)[0]!.headers["Proc-Type"], "4,ENCRYPTED");
});

Deno.test("decodePem() rejects truncated blocks, bad base64 and mismatched labels", () => {
  const bad = [
    pem.slice(0, pem.length - 30),
    pem.replace("AAEC", "A!EC"),
    pem.replace("END CERTIFICATE", "END PRIVATE KEY"),
    "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n",
  ];
  for (const text of bad) {
    assert.throws(() => decodePem(text, "ca.crt"), (e: unknown) => {
      assert.ok(e instanceof InputError);
      assert.match(e.message, /^ca\.crt: /);
      return true;
    });
  }
});
