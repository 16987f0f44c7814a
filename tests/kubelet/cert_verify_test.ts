import assert from "node:assert/strict";
import type { Cert } from "../../lib/pki/cert_info.ts";
import * as fs from "node:fs";
import * as path from "node:path";
import { parseCertificate } from "../../lib/pki/cert_info.ts";
import { requiredEku, usagesOfCert, verifyCertificate } from "../../lib/kubelet/cert_verify.ts";
import { decodePem } from "../../lib/pki/pem.ts";
import { KU } from "../../lib/pki/usages.ts";

const SERVER = "1.3.6.1.5.5.7.3.1";
const CLIENT = "1.3.6.1.5.5.7.3.2";
const cert = (eku: string[] | undefined, ku?: number) =>
  ({ extKeyUsage: eku, keyUsage: ku }) as unknown as Cert;

interface Case {
  name: string;
  leaf: string;
  intermediates: string[];
  roots: string[];
  time: string;
}
const CASES: Case[] = JSON.parse(
  fs.readFileSync(
    path.join(
      path.dirname(new URL(import.meta.url).pathname),
      "..",
      "fixtures",
      "verify",
      "cases.json",
    ),
    "utf8",
  ),
);
const parse = (pems: string[]) =>
  pems.flatMap((p) => decodePem(p).map((b) => parseCertificate(b.der)));

function report(name: string, signerName?: string) {
  const c = CASES.find((x) => x.name === name)!;
  const [leaf] = parse([c.leaf]);
  return verifyCertificate(leaf!, parse(c.intermediates), "chain.pem", {
    cas: parse(c.roots).map((cert) => ({ cert, source: "roots.pem" })),
    signerName,
    at: new Date(c.time),
  });
}
const check = (r: ReturnType<typeof report>, name: string) =>
  r.checks.find((c) => c.check === name);

Deno.test("verifyCertificate() the chain check is Go's Verify: path and source on success", () => {
  const r = report("basic chain through one intermediate");
  assert.deepEqual(check(r, "chain"), {
    check: "chain",
    ok: true,
    detail: "signed by CN=Root (roots.pem) via 1 intermediate(s)",
  });
});

Deno.test("verifyCertificate() the chain check carries Go's exact error text", () => {
  const r = report("only the expired root");
  assert.equal(check(r, "chain")!.ok, false);
  assert.equal(
    check(r, "chain")!.detail,
    "x509: certificate has expired or is not yet valid: current time 2030-01-01T00:00:00Z is after 2028-01-01T00:00:00Z",
  );
  assert.equal(check(r, "validity")!.ok, true); // the leaf itself is valid
  assert.equal(r.ok, false);
  assert.equal(report("expired root and its renewal under the same key").ok, true);
});

Deno.test("verifyCertificate() the signer's EKU is Go's KeyUsages; eku names the nesting CA", () => {
  // Leaf serverAuth under an email-only root: kubelet-serving wants ServerAuth.
  const r = report("root email restricts serverAuth below", "kubernetes.io/kubelet-serving");
  assert.equal(check(r, "chain")!.detail, "x509: certificate specifies an incompatible key usage");
  assert.equal(check(r, "eku")!.ok, false);
  assert.match(check(r, "eku")!.detail, /or a CA in the chain restricts it/);
  // No signer: any EKU.
  assert.equal(check(report("root email restricts serverAuth below"), "chain")!.ok, true);
});

Deno.test("requiredEku() per signer", () => {
  assert.equal(requiredEku("kubernetes.io/kube-apiserver-client-kubelet"), "ClientAuth");
  assert.equal(requiredEku("kubernetes.io/kube-apiserver-client"), "ClientAuth");
  assert.equal(requiredEku("kubernetes.io/kubelet-serving"), "ServerAuth");
  assert.equal(requiredEku("kubernetes.io/legacy-unknown"), undefined);
  assert.equal(requiredEku(undefined), undefined);
});

Deno.test("usagesOfCert() turns KU bits and EKUs back into usage strings", () => {
  assert.deepEqual(
    usagesOfCert(cert([SERVER, CLIENT], KU.DigitalSignature | KU.KeyEncipherment)),
    ["digital signature", "key encipherment", "server auth", "client auth"],
  );
  assert.deepEqual(usagesOfCert(cert(undefined, undefined)), []);
});
