/**
 * csr sign checks ECDSA CSR signatures on every curve Go's x509 takes (the
 * binary imports the CSR's key from its raw point, `deno run` from a JWK:
 * both must sign the good CSRs and refuse a flipped signature bit with Go's
 * words). CI runs these against the built binary.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { runCli, tempDir } from "../_cli.ts";
import { opensslCa } from "../_csr_pki.ts";
import { createCsr, csrPem } from "../../lib/kubelet/csr.ts";

/** A kubelet-client CSR for a new key on `curve`, as DER. */
async function clientCsr(curve: string): Promise<Uint8Array> {
  const kp = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: curve }, true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const spki = new Uint8Array(await crypto.subtle.exportKey("spki", kp.publicKey));
  return await createCsr(kp.privateKey, spki, {
    commonName: `system:node:${curve.toLowerCase()}`,
    organization: ["system:nodes"],
  });
}

for (const curve of ["P-256", "P-384", "P-521"]) {
  Deno.test(`CLI csr sign ${curve}: a good CSR is signed, a flipped signature bit refused`, async () => {
    const { dir, cleanup } = tempDir();
    try {
      const ca = opensslCa(dir, "ca");
      const der = await clientCsr(curve);
      const good = path.join(dir, "good.csr");
      fs.writeFileSync(good, csrPem(der));
      const ok = await runCli(["csr", "sign", good, "--ca", ca.crt, "--ca-key", ca.key]);
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(ok.stdout, /^-----BEGIN CERTIFICATE-----\n/);

      // The signature's last byte: the low bits of s.
      const bad = der.slice();
      bad[bad.length - 1] = bad[bad.length - 1]! ^ 1;
      const badFile = path.join(dir, "bad.csr");
      fs.writeFileSync(badFile, csrPem(bad));
      const no = await runCli(["csr", "sign", badFile, "--ca", ca.crt, "--ca-key", ca.key]);
      assert.equal(no.code, 3, no.stderr);
      assert.equal(no.stdout, "");
      assert.match(no.stderr, /x509: ECDSA verification failure\n$/);
      assert.equal(no.stderr.split("\n").length, 2, no.stderr);
    } finally {
      cleanup();
    }
  });
}
