import assert from "node:assert/strict";
import * as fs from "node:fs";
import { Buffer } from "node:buffer";
import {
  certificatesFromPem,
  extractCertificates,
  loadClusterCa,
  NOT_A_CA,
  parseCertsPem,
  readClusterCa,
} from "../../lib/pki/certsource.ts";
import { parseCertificate } from "../../lib/pki/cert_info.ts";
import { caCertHash } from "../../lib/pki/pin.ts";
import { InputError } from "../../lib/base/errors.ts";
import { repoPath } from "../_cli.ts";

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
  ["a CRLF PEM", pem1.replace(/\n/g, "\r\n"), [H1]],
  [
    "a PEM bundle with a key block among the certificates",
    pem1 + "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n" + pem3,
    [H1, H3],
  ],
  ["a DER certificate", Buffer.from(pem3.split("\n").slice(1, -2).join(""), "base64"), [H3]],
  ["the upstream discovery kubeconfig", kubeconfig, [H3]],
  [
    "a JSON kubeconfig with two clusters: the current context's (kubeadm's choice)",
    JSON.stringify({
      kind: "Config",
      clusters: [
        { name: "a", cluster: { "certificate-authority-data": b64(pem1) } },
        { name: "b", cluster: { "certificate-authority-data": b64(pem2 + pem3) } },
      ],
      contexts: [{ name: "ctx", context: { cluster: "b" } }],
      "current-context": "ctx",
    }),
    [H2, H3],
  ],
  [
    "a kubeconfig with an unnamed cluster: that one",
    JSON.stringify({
      clusters: [
        { name: "a", cluster: { "certificate-authority-data": b64(pem1) } },
        { cluster: { "certificate-authority-data": b64(pem3) } },
      ],
    }),
    [H3],
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
    clusters: [{ name: "", cluster: { "certificate-authority-data": b64(pem3) } }],
    users: [{ name: "u", user: { "client-certificate-data": b64(pem1) } }],
  });
  assert.deepEqual(await hashes("admin.conf", kc), [H3]);
  assert.deepEqual(await hashes("admin.conf", kc, true), [H3, H1]);
});

const NO_CERTS = "data does not contain any valid RSA or ECDSA certificates";
const BAD: [string, string | Uint8Array, string][] = [
  [
    "a key where a certificate is expected",
    "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n",
    `ca.crt: no certificate found (found EC PRIVATE KEY): ${NO_CERTS}`,
  ],
  [
    "a truncated PEM (Go's pem.Decode: no block at all)",
    pem1.slice(0, 300),
    `ca.crt: no certificate found: ${NO_CERTS}`,
  ],
  [
    "a PEM with a BOM before BEGIN (not at a line start for pem.Decode)",
    "\uFEFF" + pem1,
    `ca.crt: no certificate found: ${NO_CERTS}`,
  ],
  [
    "a PEM certificate with a cut-short body",
    pem1.split("\n").slice(0, 5).join("\n") + "\n-----END CERTIFICATE-----\n",
    "ca.crt: x509: malformed certificate",
  ],
  [
    "garbage text",
    "hello world\n",
    "ca.crt: no certificate found (expected PEM, DER, a kubeconfig or a cluster-info ConfigMap)",
  ],
  [
    "binary garbage",
    new Uint8Array([0x30, 0x82, 0xff, 0xff, 0, 1, 2]),
    "ca.crt: invalid DER certificate: x509: malformed certificate",
  ],
  [
    "binary non-DER",
    new Uint8Array([0x00, 0x01, 0x02]),
    "ca.crt: not a certificate (expected PEM, DER, a kubeconfig or a cluster-info ConfigMap)",
  ],
  ["an empty file", "", "ca.crt: empty input"],
  [
    "a kubeconfig without CA data",
    "kind: Config\nclusters:\n- name: ''\n  cluster:\n    server: https://a\n",
    "ca.crt: kubeconfig has no certificate-authority-data",
  ],
  [
    "a kubeconfig pointing at a CA file",
    "kind: Config\nclusters:\n- cluster:\n    certificate-authority: /etc/kubernetes/pki/ca.crt\n",
    'ca.crt: kubeconfig refers to certificate-authority file "/etc/kubernetes/pki/ca.crt"; pass that file instead',
  ],
  [
    "a kubeconfig with bad base64 (client-go's decode error)",
    "kind: Config\nclusters:\n- name: x\n  cluster:\n    certificate-authority-data: '!!!'\n",
    "ca.crt: illegal base64 data at input byte 0",
  ],
  [
    "a kubeconfig with two clusters of one name",
    "kind: Config\nclusters:\n- name: x\n- name: x\n",
    'ca.crt: error converting *[]NamedCluster into *map[string]*api.Cluster: duplicate name "x" in list',
  ],
  [
    "a kubeconfig whose cluster kubeadm cannot choose",
    "kind: Config\nclusters:\n- name: x\n  cluster:\n    certificate-authority-data: " + b64(pem1) +
    "\n",
    'ca.crt: no unnamed cluster, and the current context "" is not in the kubeconfig',
  ],
  [
    "a kubeconfig whose CA data holds a garbage certificate",
    "kind: Config\nclusters:\n- cluster:\n    certificate-authority-data: " +
    b64(pem1 + "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n") + "\n",
    'ca.crt: cluster "" certificate-authority-data: x509: malformed certificate',
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

// ---------------------------------------------------------------------------
// certutil.ParseCertsPEM (go-exact.md §3.1, vector 33). The expected verdicts
// are what Go 1.23.5 gave for these exact bytes (client-go's ParseCertsPEM
// ported into a throw-away program); see the fixture's expected.json.

const PEM_DIR = "tests/fixtures/discovery/certs-pem";
const GO_VERDICTS = JSON.parse(
  fs.readFileSync(repoPath(PEM_DIR, "expected.json"), "utf8"),
) as Record<string, { error?: string; pins?: string[] }>;
for (const [file, want] of Object.entries(GO_VERDICTS)) {
  if (file.startsWith("_")) continue;
  Deno.test(`parseCertsPem() as Go's ParseCertsPEM: ${file}`, () => {
    const bytes = new Uint8Array(fs.readFileSync(repoPath(PEM_DIR, file)));
    for (const input of [bytes, Buffer.from(bytes).toString("latin1")]) {
      if (want.error !== undefined) {
        assert.throws(() => parseCertsPem(input, parseCertificate), (e: unknown) => {
          assert.ok(e instanceof InputError, String(e));
          assert.equal(e.message, want.error);
          return true;
        });
        // The light reader refuses the same bundles (its texts may differ for DER details).
        assert.throws(() => certificatesFromPem(Buffer.from(bytes).toString("latin1"), file));
      } else {
        const certs = parseCertsPem(input, parseCertificate);
        assert.deepEqual(certs.map((c) => caCertHash(c.der)), want.pins);
        assert.deepEqual(
          certificatesFromPem(Buffer.from(bytes).toString("latin1"), file).map(caCertHash),
          want.pins,
        );
      }
    }
  });
}

Deno.test("parseCertsPem() stops at the first certificate Go cannot parse, with its raw error", () => {
  const garbage = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
  assert.throws(
    () => parseCertsPem(garbage + pem1, parseCertificate),
    /x509: malformed certificate/,
  );
  assert.throws(
    () => parseCertsPem(pem1 + garbage + pem3, parseCertificate),
    /x509: malformed certificate/,
  );
});

Deno.test("loadClusterCa() and readClusterCa() refuse a first certificate that is not a CA, as kubeadm", async () => {
  const leaf = fs.readFileSync(repoPath("tests/fixtures/discovery/leaf-not-ca.pem"), "utf8");
  const loaders = [
    (d: string, n: string) => loadClusterCa(d, n),
    async (d: string, n: string) => (await readClusterCa(d, n)).certs,
  ];
  for (const load of loaders) {
    await assert.rejects(load(leaf, "ca.crt"), (e: unknown) => {
      assert.ok(e instanceof InputError);
      assert.equal(e.message, `ca.crt: ${NOT_A_CA}`);
      assert.equal(e.message, "ca.crt: ca certificate is not a certificate authority");
      return true;
    });
    // kubeadm loads a bundle and checks its first certificate only.
    assert.equal((await load(pem1 + leaf, "ca.crt")).length, 2);
  }
});

Deno.test("readClusterCa() re-encodes exactly what Go loads and refuses other PEM blocks", async () => {
  const withHeader = pem3.replace("-----\n", "-----\nProc-Type: 4,ENCRYPTED\n\n");
  const ca = await readClusterCa(pem1 + withHeader + pem2, "ca.crt");
  assert.deepEqual(ca.ders.map(caCertHash), [H1, H2]);
  assert.equal(Buffer.from(ca.pem).toString(), pem1 + pem2);
  await assert.rejects(
    readClusterCa(
      pem1 + "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n",
      "ca.crt",
    ),
    /ca\.crt: holds a EC PRIVATE KEY block besides the certificates; refusing to embed it/,
  );
  // loadClusterCa (join-command: nothing is embedded) skips them as Go does.
  assert.equal(
    (await loadClusterCa(
      pem1 + "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n",
      "ca.crt",
    ))
      .length,
    1,
  );
});
