/**
 * Writes N kubelet client CSRs (ECDSA P-256) for the benchmark: csrs/n<i>.csr,
 * all.csr (every PEM), list.yaml / list.json (a `kubectl get csr -o yaml`-style
 * List of CertificateSigningRequest objects).
 *
 * Usage: deno run -A examples/kubelet/gen-csrs.ts N DIR
 */
import * as fs from "node:fs";
import * as path from "node:path";
import process from "node:process";
import { exportSpki, generateKeyPair } from "../../lib/pki/keys.ts";
import { createCsr, csrPem } from "../../lib/kubelet/csr.ts";
import { buildCsrObject } from "../../lib/kubelet/csr_object.ts";
import { toJson, toYaml } from "../../lib/k8s/manifest.ts";

const n = Number(process.argv[2] ?? 1000);
const dir = process.argv[3] ?? ".";
fs.mkdirSync(path.join(dir, "csrs"), { recursive: true });
const objs = [];
const pems: string[] = [];
for (let i = 0; i < n; i++) {
  const kp = await generateKeyPair("ecdsa-p256");
  const spki = await exportSpki(kp.publicKey);
  const pem = csrPem(
    await createCsr(kp.privateKey, spki, {
      commonName: `system:node:n${i}`,
      organization: ["system:nodes"],
    }),
  );
  fs.writeFileSync(path.join(dir, "csrs", `n${i}.csr`), pem);
  pems.push(pem);
  objs.push(buildCsrObject({
    name: `csr-${i}`,
    requestPem: pem,
    signerName: "kubernetes.io/kube-apiserver-client-kubelet",
    usages: ["digital signature", "client auth"],
  }));
}
const list = { apiVersion: "v1", items: objs, kind: "List", metadata: { resourceVersion: "" } };
fs.writeFileSync(path.join(dir, "all.csr"), pems.join(""));
fs.writeFileSync(path.join(dir, "list.yaml"), toYaml(list));
fs.writeFileSync(path.join(dir, "list.json"), toJson(list));
