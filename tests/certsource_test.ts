import assert from "node:assert/strict";
import * as fs from "node:fs";
import { Buffer } from "node:buffer";
import { extractCertificates } from "../lib/certsource.ts";
import { caCertHash } from "../lib/pin.ts";
import { InputError } from "../lib/errors.ts";
import { repoPath } from "./_cli.ts";

const H1 = "sha256:345959acb2c3b2feb87d281961c893f62a314207ef02599f1cc4a5fb255480b3";
const H2 = "sha256:d1ef16989563fe7775f81a7dc55ce16a467ca9baedae2d081cb0a068b6a81971";
const H3 = "sha256:98be2e6d4d8a89aa308fb15de0c07e2531ce549c68dec1687cdd5c06f0826658";

const read = (f: string) => fs.readFileSync(repoPath("tests/fixtures/pin", f), "utf8");
const pem1 = read("test-cert.pem");
const pem2 = read("test-cert2.pem");
const pem3 = read("ca-cert.pem");
const kubeconfig = read("expected-kubeconfig.yaml");

function input(name: string, data: string | Uint8Array) {
  const bytes = typeof data === "string" ? new Uint8Array(Buffer.from(data)) : data;
  return { name, bytes, text: Buffer.from(bytes).toString("utf8") };
}

async function hashes(name: string, data: string | Uint8Array, includeClient = false) {
  return (await extractCertificates(input(name, data), { includeClient })).map(caCertHash);
}

const b64 = (s: string) => Buffer.from(s).toString("base64");

const OK: [string, string | Uint8Array, string[]][] = [
  ["a PEM certificate", pem1, [H1]],
  ["a PEM bundle, in order", pem2 + pem1 + pem3, [H2, H1, H3]],
  ["a CRLF PEM with a BOM", "\uFEFF" + pem1.replace(/\n/g, "\r\n"), [H1]],
  [
    "a PEM bundle with a key block among the certificates",
    pem1 + "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n" + pem3,
    [H1, H3],
  ],
  ["a DER certificate", Buffer.from(pem3.split("\n").slice(1, -2).join(""), "base64"), [H3]],
  ["the upstream discovery kubeconfig", kubeconfig, [H3]],
  [
    "a JSON kubeconfig with two clusters",
    JSON.stringify({
      kind: "Config",
      clusters: [
        { name: "a", cluster: { "certificate-authority-data": b64(pem1) } },
        { name: "b", cluster: { "certificate-authority-data": b64(pem2 + pem3) } },
      ],
    }),
    [H1, H2, H3],
  ],
  [
    "a cluster-info ConfigMap",
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-info\n  namespace: kube-public\ndata:\n  jws-kubeconfig-abcdef: x\n  kubeconfig: |\n${
      kubeconfig.split("\n").map((l) => "    " + l).join("\n")
    }\n`,
    [H3],
  ],
];
for (const [what, data, want] of OK) {
  Deno.test(`extractCertificates() reads ${what}`, async () => {
    assert.deepEqual(await hashes("in", data), want);
  });
}

Deno.test("extractCertificates() adds client certificates only with includeClient", async () => {
  const kc = JSON.stringify({
    kind: "Config",
    clusters: [{ name: "c", cluster: { "certificate-authority-data": b64(pem3) } }],
    users: [{ name: "u", user: { "client-certificate-data": b64(pem1) } }],
  });
  assert.deepEqual(await hashes("admin.conf", kc), [H3]);
  assert.deepEqual(await hashes("admin.conf", kc, true), [H3, H1]);
});

const BAD: [string, string | Uint8Array, string][] = [
  [
    "a key where a certificate is expected",
    "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n",
    "ca.crt: no certificate found (found EC PRIVATE KEY)",
  ],
  [
    "a truncated PEM",
    pem1.slice(0, 300),
    "ca.crt: truncated PEM block (BEGIN without matching END)",
  ],
  [
    "a PEM certificate with a cut-short body",
    pem1.split("\n").slice(0, 5).join("\n") + "\n-----END CERTIFICATE-----\n",
    "ca.crt: invalid certificate: truncated DER element",
  ],
  [
    "garbage text",
    "hello world\n",
    "ca.crt: no certificate found (expected PEM, DER, a kubeconfig or a cluster-info ConfigMap)",
  ],
  [
    "binary garbage",
    new Uint8Array([0x30, 0x82, 0xff, 0xff, 0, 1, 2]),
    "ca.crt: invalid DER certificate: truncated DER element",
  ],
  [
    "binary non-DER",
    new Uint8Array([0x00, 0x01, 0x02]),
    "ca.crt: not a certificate (expected PEM, DER, a kubeconfig or a cluster-info ConfigMap)",
  ],
  ["an empty file", "", "ca.crt: empty input"],
  [
    "a kubeconfig without CA data",
    "kind: Config\nclusters:\n- name: x\n  cluster:\n    server: https://a\n",
    "ca.crt: kubeconfig has no certificate-authority-data",
  ],
  [
    "a kubeconfig pointing at a CA file",
    "kind: Config\nclusters:\n- name: x\n  cluster:\n    certificate-authority: /etc/kubernetes/pki/ca.crt\n",
    'ca.crt: kubeconfig refers to certificate-authority file "/etc/kubernetes/pki/ca.crt"; pass that file instead',
  ],
  [
    "a kubeconfig with bad base64",
    "kind: Config\nclusters:\n- name: x\n  cluster:\n    certificate-authority-data: '!!!'\n",
    'ca.crt: cluster "x" certificate-authority-data: invalid base64',
  ],
  [
    "a ConfigMap without data.kubeconfig",
    "kind: ConfigMap\ndata:\n  foo: bar\n",
    "ca.crt: ConfigMap has no data.kubeconfig",
  ],
];
for (const [what, data, message] of BAD) {
  Deno.test(`extractCertificates() rejects ${what} in one line`, async () => {
    await assert.rejects(extractCertificates(input("ca.crt", data)), (e: unknown) => {
      assert.ok(e instanceof InputError);
      assert.equal(e.message, message);
      return true;
    });
  });
}
