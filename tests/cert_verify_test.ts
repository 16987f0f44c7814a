import assert from "node:assert/strict";
import type { Cert } from "../lib/cert_info.ts";
import { chainAllowsEku, requiredEku, usagesOfCert } from "../lib/cert_verify.ts";
import { KU } from "../lib/usages.ts";

const SERVER = "1.3.6.1.5.5.7.3.1";
const CLIENT = "1.3.6.1.5.5.7.3.2";
const ANY = "2.5.29.37.0";
const NS_SGC = "2.16.840.1.113730.4.1";
const cert = (eku: string[] | undefined, ku?: number) =>
  ({ extKeyUsage: eku, keyUsage: ku }) as unknown as Cert;

// Go crypto/x509 checkChainForKeyUsage (reference 7.2); chains are leaf first.
const CHAINS: { name: string; chain: Cert[]; want: string; ok: boolean }[] = [
  {
    name: "leaf clientAuth, CA without EKU",
    chain: [cert([CLIENT]), cert(undefined)],
    want: "ClientAuth",
    ok: true,
  },
  {
    name: "leaf serverAuth only",
    chain: [cert([SERVER]), cert(undefined)],
    want: "ClientAuth",
    ok: false,
  },
  {
    name: "leaf without EKU restricts nothing",
    chain: [cert(undefined), cert(undefined)],
    want: "ClientAuth",
    ok: true,
  },
  {
    name: "leaf anyExtendedKeyUsage",
    chain: [cert([ANY]), cert(undefined)],
    want: "ClientAuth",
    ok: true,
  },
  {
    name: "a CA whose EKU lacks clientAuth poisons the chain",
    chain: [cert([CLIENT]), cert([SERVER])],
    want: "ClientAuth",
    ok: false,
  },
  {
    name: "Netscape SGC satisfies ServerAuth",
    chain: [cert([NS_SGC]), cert(undefined)],
    want: "ServerAuth",
    ok: true,
  },
];
for (const c of CHAINS) {
  Deno.test(`chainAllowsEku() ${c.name}`, () => {
    assert.equal(chainAllowsEku(c.chain, c.want), c.ok);
  });
}

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
