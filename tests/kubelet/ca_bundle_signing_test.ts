/**
 * A `--ca` bundle given with `--ca-key` (issue 19, class 8): the certificate
 * that matches the key signs, wherever it stands in the bundle (`cat old.crt
 * new.crt` is the natural order during a rotation). Checked with openssl:
 * the issued certificate verifies against the key's CA alone.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { runCli, tempDir } from "../_cli.ts";
import { opensslCa, run } from "../_csr_pki.ts";
import { loadSigningCa } from "../../lib/kubelet/signer.ts";

const { dir, cleanup } = tempDir("joinkit-ca-bundle-");
globalThis.addEventListener("unload", cleanup);
const oldCa = opensslCa(dir, "old", { cn: "old-ca" });
const newCa = opensslCa(dir, "new", { cn: "new-ca" });
const leaf = opensslCa(dir, "leaf", { ca: false, cn: "leaf" });
const other = opensslCa(dir, "other", { cn: "other-ca" });
const read = (f: string) => fs.readFileSync(f, "utf8");
const bundle = (name: string, ...files: string[]) => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, files.map(read).join(""));
  return p;
};
const OLD_NEW = bundle("old-new.crt", oldCa.crt, newCa.crt);
const NEW_OLD = bundle("new-old.crt", newCa.crt, oldCa.crt);
const LEAF_NEW = bundle("leaf-new.crt", leaf.crt, newCa.crt);

// [bundle, key, the CA's CN that signs | the refusal]
const ROWS: [string, string, string | RegExp][] = [
  [newCa.crt, newCa.key, "new-ca"],
  [OLD_NEW, newCa.key, "new-ca"],
  [NEW_OLD, newCa.key, "new-ca"],
  [OLD_NEW, oldCa.key, "old-ca"],
  [LEAF_NEW, newCa.key, "new-ca"],
  [OLD_NEW, other.key, /^other\.key: private key matches none of the 2 certificates of b$/],
  [newCa.crt, other.key, /^other\.key: private key does not match b$/],
  [
    LEAF_NEW,
    leaf.key,
    /^b: certificate 1 is not a CA \(basicConstraints CA:FALSE or absent\)$/,
  ],
];

for (const [b, key, want] of ROWS) {
  Deno.test(`loadSigningCa() ${path.basename(b)} with ${path.basename(key)}: ${want}`, async () => {
    const load = () => loadSigningCa(read(b), "b", read(key), path.basename(key));
    if (typeof want === "string") {
      const ca = await load();
      assert.match(JSON.stringify(ca.cert.subject), new RegExp(want));
    } else await assert.rejects(load, (e: Error) => want.test(e.message));
  });
}

Deno.test("CLI csr sign and kubeconfig node sign with the bundle's certificate that matches --ca-key", async () => {
  const pki = path.join(dir, "pki");
  const c = await runCli(["csr", "create", "--node", "w1", "--out-dir", pki]);
  assert.equal(c.code, 0, c.stderr);
  const csr = path.join(pki, "kubelet-client.csr");
  for (const b of [OLD_NEW, NEW_OLD]) {
    const out = path.join(dir, `w1-${path.basename(b)}.crt`);
    const r = await runCli(["csr", "sign", csr, "--ca", b, "--ca-key", newCa.key, "--out", out]);
    assert.equal(r.code, 0, r.stderr);
    // openssl: the certificate verifies against the new CA alone, not the old one.
    assert.equal(run("openssl", ["verify", "-CAfile", newCa.crt, out]).code, 0);
    assert.notEqual(run("openssl", ["verify", "-CAfile", oldCa.crt, out]).code, 0);
  }
  const nodes = path.join(dir, "nodes");
  const k = await runCli([
    "kubeconfig",
    "node",
    "--node",
    "w2",
    "--ca",
    OLD_NEW,
    "--ca-key",
    newCa.key,
    "--server",
    "https://10.0.0.1:6443",
    "--credentials",
    "file",
    "--out-dir",
    nodes,
  ]);
  assert.equal(k.code, 0, k.stderr);
  const pem = fs.readdirSync(path.join(nodes, "w2")).find((f) => /^kubelet-client-\d/.test(f))!;
  const pair = path.join(nodes, "w2", pem);
  assert.equal(run("openssl", ["verify", "-CAfile", newCa.crt, pair]).code, 0);
  // The kubeconfig trusts the whole bundle, both CAs, as given.
  const conf = read(path.join(nodes, "w2", "kubelet.conf"));
  const data = /certificate-authority-data: (\S+)/.exec(conf)![1]!;
  assert.equal(atob(data), read(OLD_NEW));
  // A key that matches no certificate: one line, exit 1.
  const bad = await runCli(["csr", "sign", csr, "--ca", OLD_NEW, "--ca-key", other.key]);
  assert.equal(bad.code, 1);
  assert.equal(
    bad.stderr,
    `error: ${other.key}: private key matches none of the 2 certificates of ${OLD_NEW}\n`,
  );
});
