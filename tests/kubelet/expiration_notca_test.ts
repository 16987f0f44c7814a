import assert from "node:assert/strict";
import { notACaError } from "../../lib/kubelet/expiration.ts";

// kubeadm v1.32.5's texts, recorded with `kubeadm certs check-expiration --config` over a PKI whose
// CA file held a leaf (see tests/cli/certs_check_expiration_test.ts).
Deno.test("notACaError() gives kubeadm's text for each CA of the tree", () => {
  assert.equal(
    notACaError("ca"),
    "Error checking external CA condition for ca certificate authority: certificate CA is not a CA",
  );
  assert.equal(
    notACaError("front-proxy-ca"),
    "Error checking external CA condition for front-proxy-ca certificate authority: certificate front-proxy CA is not a CA",
  );
  assert.equal(
    notACaError("etcd/ca"),
    "Error checking external CA condition for etcd/ca certificate authority: certificate etcd CA is not a CA",
  );
});
