import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { repoPath } from "../_cli.ts";

const HAVE_OPENSSL = spawnSync("openssl", ["version"]).status === 0;

// The README's air-gapped joins replay examples/airgap/join.sh: it must keep running as shown.
Deno.test({
  name: "examples/airgap/join.sh renders and checks a worker and a control-plane join end to end",
  ignore: !HAVE_OPENSSL, // the script makes the service-account key pair with openssl
  fn: () => {
    const r = spawnSync("sh", [repoPath("examples/airgap/join.sh")], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const out = r.stdout + r.stderr; // progress and "wrote" lines are on stderr
    // init's self-check, doctor over the worker's and the control plane's material.
    assert.match(out, /\[discovery\] Verified: cluster-info signature valid for 1 token ID/);
    assert.equal(out.match(/: 0 findings, 0 files skipped/g)?.length, 2);
    // The pre-signed kubelet certificate and the upload-certs round trip.
    assert.match(out, /ok {4}node {6}CN is system:node:worker-3\n/);
    assert.match(out, /\n {2}verdict: ok\n/);
    assert.equal(out.match(/ {2,}matches\n/g)?.length, 8);
    for (
      const f of [
        "worker-1.cloud-config",
        "worker-2.cloud-config",
        "worker-3.ign",
        "cp-2.cloud-config",
      ]
    ) {
      assert.match(out, new RegExp(`wrote payloads/${f.replace(".", "\\.")} `));
    }
    // The certificate key never reaches the terminal (the script masks it in what it shows).
    assert.match(out, /certificateKey: <KEY>\n/);
  },
});
