import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { repoPath, runCli, tempDir } from "../_cli.ts";

const CA = repoPath("examples/demo/ca.crt");
const HEAD = `apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
bootstrapTokens: [{token: abcdef.0123456789abcdef}]
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
controlPlaneEndpoint: cp.example.com
`;

// Fields the bootstrap-token phase does not use are still validated, as `kubeadm init --config`
// validates them (texts from kubeadm v1.32.5, tests/fixtures/kubeadm/validate/corpus.json).
Deno.test("CLI init --config validates the whole configuration as kubeadm init does", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const cases: [string, string][] = [
      [
        "networking: {serviceSubnet: 10.0.0.0/8}\n",
        'networking.serviceSubnet: Invalid value: "10.0.0.0/8": specified service subnet is too large; for 32-bit addresses, the mask must be >= 12',
      ],
      ["certificatesDir: pki\n", 'certificatesDir: Invalid value: "pki": path is not absolute'],
      [
        "encryptionAlgorithm: ECDSA-P384\n",
        'encryptionAlgorithm: Invalid value: "ECDSA-P384": Invalid encryption algorithm "ECDSA-P384". Must be one of [ECDSA-P256 RSA-2048 RSA-3072 RSA-4096]',
      ],
      [
        "etcd: {external: {endpoints: [https://e:2379], certFile: /c.crt}}\n",
        'etcd.external: Invalid value: "": either both or none of .Etcd.External.CertFile and .Etcd.External.KeyFile must be set',
      ],
      [
        "kubernetesVersion: v1.30.0\n",
        "this version of kubeadm only supports deploying clusters with the control plane version >= 1.31.0. Current version: v1.30.0",
      ],
      // kubeadm's release pattern lets these through; apimachinery's ParseSemantic refuses them.
      [
        "kubernetesVersion: v1.32.5-\n",
        `couldn't parse Kubernetes version "v1.32.5-": could not parse pre-release/metadata (-) in version "v1.32.5-"`,
      ],
      [
        "kubernetesVersion: v1.32.5-rc.01\n",
        `couldn't parse Kubernetes version "v1.32.5-rc.01": illegal zero-prefixed version component "01" in "v1.32.5-rc.01"`,
      ],
      [
        "kubernetesVersion: v1.32.5.1\n",
        `couldn't parse Kubernetes version "v1.32.5.1": illegal version string "v1.32.5.1"`,
      ],
    ];
    for (const [extra, want] of cases) {
      const cfg = path.join(dir, "kubeadm.yaml");
      fs.writeFileSync(cfg, HEAD + extra);
      const r = await runCli([
        "init",
        "--config",
        cfg,
        "--ca",
        CA,
        "--out-dir",
        path.join(dir, "o"),
      ]);
      assert.equal(r.code, 1, extra + r.stderr);
      assert.equal(r.stderr, `error: ${cfg}: ${want}\n`);
      assert.equal(r.stdout, "");
      assert.ok(!fs.existsSync(path.join(dir, "o")), "nothing written");
    }
    fs.writeFileSync(path.join(dir, "ok.yaml"), HEAD + "networking: {podSubnet: 10.244.0.0/16}\n");
    const ok = await runCli([
      "init",
      "--config",
      path.join(dir, "ok.yaml"),
      "--ca",
      CA,
      "--out-dir",
      path.join(dir, "o"),
    ]);
    assert.equal(ok.code, 0, ok.stderr);
  } finally {
    cleanup();
  }
});
