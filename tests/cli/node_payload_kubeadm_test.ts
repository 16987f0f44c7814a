import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { runCli, tempDir } from "../_cli.ts";

// Issue 19 class 4: what node-payload renders is judged by kubeadm join's whole rule set
// (lib/kubeadm/join_config.ts validateJoinConfig): a malformed caCertHashes entry, which
// `kubeadm config validate` lets through but `kubeadm join` refuses, is not rendered.
Deno.test("CLI node-payload refuses a JoinConfiguration whose caCertHashes kubeadm join refuses (exit 3)", async () => {
  const { dir, cleanup } = tempDir("joinkit-payload-kubeadm-");
  try {
    const cases: [string, RegExp][] = [
      [
        "sha256:zz",
        /invalid discovery token CA certificate hash: invalid hash "sha256:zz", expected a 32 byte SHA-256 hash, found 1 bytes$/,
      ],
      [
        "md5:" + "00".repeat(16),
        /invalid discovery token CA certificate hash: unknown hash format "md5"\. Known format\(s\) are: sha256$/,
      ],
    ];
    for (const [hash, want] of cases) {
      const f = path.join(dir, "join.yaml");
      fs.writeFileSync(
        f,
        `apiVersion: kubeadm.k8s.io/v1beta4\nkind: JoinConfiguration\ndiscovery:\n  bootstrapToken: {apiServerEndpoint: "10.0.0.1:6443", token: abcdef.0123456789abcdef, caCertHashes: ["${hash}"]}\nnodeRegistration: {name: w1}\n`,
      );
      for (const format of ["cloud-config", "ignition"]) {
        const r = await runCli(["node-payload", "--config", f, "--format", format]);
        assert.equal(r.code, 3, r.stderr);
        assert.equal(r.stdout, "");
        assert.match(r.stderr.trim(), want);
        assert.ok(!r.stderr.includes("0123456789abcdef"));
      }
    }
  } finally {
    cleanup();
  }
});
