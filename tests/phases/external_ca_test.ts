/**
 * `lib/phases/external_ca.ts`: the keys and CSRs compared fact by fact with
 * what real kubeadm v1.32.5 `certs generate-csr` wrote for the same
 * configurations (tests/fixtures/kubeadm_pki/external_ca/), the kubeadm
 * profile signer, and the assembly with each refusal kubeadm's external-CA
 * detection makes (its texts recorded in kubeadm_verdicts.json) and the
 * stricter ones.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { Buffer } from "node:buffer";
import { createPrivateKey, createPublicKey } from "node:crypto";
import { CheckError, InputError } from "../../lib/base/errors.ts";
import { parseManifests } from "../../lib/k8s/manifest.ts";
import { readInitConfiguration } from "../../lib/kubeadm/init_config.ts";
import {
  type ControlPlanePkiSpec,
  controlPlanePkiSpec,
  specForNode,
} from "../../lib/phases/certlist.ts";
import { buildControlPlanePki, type CaName, type PkiFile } from "../../lib/phases/certs.ts";
import {
  assembleExternalCa,
  generateKeysAndCsrs,
  generateKeysAndCsrsForNodes,
  type SigningCa,
  signKubeadmCsrs,
} from "../../lib/phases/external_ca.ts";
import { checkPkiTree, pemCerts } from "../../lib/phases/pki_check.ts";
import { decodePem } from "../../lib/pki/pem.ts";
import { repoPath } from "../_cli.ts";

const FIXTURES = repoPath("tests", "fixtures", "kubeadm_pki");
const EXT = path.join(FIXTURES, "external_ca");
const NOW = new Date("2026-06-04T10:00:00Z");
const enc = (s: string) => new Uint8Array(Buffer.from(s, "utf8"));
const dec = (b: Uint8Array) => Buffer.from(b).toString("utf8");
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

function specFromFile(file: string): ControlPlanePkiSpec {
  const text = fs.readFileSync(file, "utf8");
  const { config } = readInitConfiguration(parseManifests(text, file), file);
  const c = config.cluster;
  return controlPlanePkiSpec({
    nodeName: config.nodeRegistration.name ?? "",
    advertiseAddress: config.localAPIEndpoint.advertiseAddress ?? "",
    bindPort: config.localAPIEndpoint.bindPort,
    controlPlaneEndpoint: c.controlPlaneEndpoint,
    serviceSubnet: c.networking.serviceSubnet,
    dnsDomain: c.networking.dnsDomain,
    clusterName: c.clusterName,
    apiServerCertSANs: c.apiServer.certSANs,
    etcdServerCertSANs: c.etcd.local?.serverCertSANs ?? [],
    etcdPeerCertSANs: c.etcd.local?.peerCertSANs ?? [],
    externalEtcd: c.etcd.external !== undefined,
    encryptionAlgorithm: c.encryptionAlgorithm,
    certificateValidityMs: c.certificateValidityPeriodMs,
    caCertificateValidityMs: c.caCertificateValidityPeriodMs,
  });
}

// --- DER walking (independent of joinkit's parsers) ------------------------------------------

function tlv(b: Uint8Array, off: number): { header: number; end: number } {
  const l = b[off + 1]!;
  if (l < 0x80) return { header: 2, end: off + 2 + l };
  const n = l & 0x7f;
  let v = 0;
  for (let i = 0; i < n; i++) v = v * 256 + b[off + 2 + i]!;
  return { header: 2 + n, end: off + 2 + n + v };
}

function children(b: Uint8Array, off: number): number[] {
  const t = tlv(b, off);
  const out: number[] = [];
  for (let p = off + t.header; p < t.end; p = tlv(b, p).end) out.push(p);
  return out;
}

/** The facts the fixture records for one CSR (see external_ca/kubeadm_generate_csr.json). */
function csrFacts(pem: string): Record<string, string | null> {
  const der = decodePem(pem, "csr")[0]!.der;
  const [info, sigAlg] = children(der, 0) as [number, number];
  const [ver, subj, , attrs] = children(der, info) as [number, number, number, number];
  const seg = (o: number) => hex(der.subarray(o, tlv(der, o).end));
  const attrsHex = seg(attrs);
  const m = /0603551d11(04.*)$/.exec(attrsHex);
  let san: string | null = null;
  if (m) {
    const o = Buffer.from(m[1]!, "hex"); // the extension's OCTET STRING: the SAN SEQUENCE inside
    const t = tlv(o, 0);
    san = hex(o.subarray(t.header, t.end));
  }
  return {
    version: seg(ver),
    subjectDer: seg(subj),
    sanDer: san,
    attributesDer: san === null ? attrsHex : "extensionRequest(subjectAltName)",
    signatureAlgorithmDer: seg(sigAlg),
  };
}

for (
  const [fixture, config] of [
    ["kubeadm_generate_csr.json", "sample_rsa2048.yaml"],
    ["kubeadm_generate_csr_ecdsa.json", "ecdsa_variations.yaml"],
  ] as const
) {
  Deno.test(`generateKeysAndCsrs() writes what kubeadm certs generate-csr wrote for ${config}`, async () => {
    const want = JSON.parse(fs.readFileSync(path.join(EXT, fixture), "utf8")) as Record<
      string,
      Record<string, string | null>
    >;
    const made = await generateKeysAndCsrs({
      spec: specFromFile(path.join(FIXTURES, config)),
      existing: new Map(),
    });
    const byPath = new Map(made.files.map((f) => [f.path, f]));
    for (const [p, facts] of Object.entries(want)) {
      if (p.endsWith("/")) continue; // directories: the command's part
      const f = byPath.get(p);
      assert.ok(f, `${p}: not written`);
      assert.equal(f.mode.toString(8), facts.mode, `${p}: mode`);
      if (p.endsWith(".csr")) {
        assert.equal(f.data.split("\n")[0], facts.pem, p);
        const { mode: _m, pem: _p, ...rest } = facts;
        assert.deepEqual(csrFacts(f.data), rest, p);
      } else if (p.endsWith(".key")) {
        assert.equal(f.data.split("\n")[0], facts.pem, p);
      } else {
        assert.equal(f.data.replace(/(client-key-data: ).*/, "$1<masked>"), facts.yaml, p);
      }
    }
    // kubeadm's files, plus the service-account pair kubeadm leaves to the user.
    assert.deepEqual(
      [...byPath.keys()].sort(),
      [...Object.keys(want).filter((p) => !p.endsWith("/")), "pki/sa.key", "pki/sa.pub"].sort(),
    );
    // Each key is its CSR's; each kubeconfig's key is its CSR's.
    const spkiOfKey = (pem: string) => {
      return hex(
        new Uint8Array(
          createPublicKey(createPrivateKey(pem)).export({ type: "spki", format: "der" }),
        ),
      );
    };
    for (const f of made.files.filter((x) => x.path.endsWith(".csr"))) {
      const keyPem = f.path.startsWith("pki/")
        ? byPath.get(f.path.replace(/\.csr$/, ".key"))!.data
        : dec(
          Buffer.from(
            /client-key-data: (\S+)/.exec(byPath.get(f.path.replace(/\.csr$/, ""))!.data)![1]!,
            "base64",
          ),
        );
      const der = decodePem(f.data, f.path)[0]!.der;
      const info = children(der, 0)[0]!;
      const spki = children(der, info)[2]!;
      assert.equal(hex(der.subarray(spki, tlv(der, spki).end)), spkiOfKey(keyPem), f.path);
    }
  });
}

Deno.test("generateKeysAndCsrs() refuses what exists with kubeadm's texts, unless forced", async () => {
  const spec = controlPlanePkiSpec({
    nodeName: "cp-1",
    advertiseAddress: "10.0.0.10",
    encryptionAlgorithm: "ECDSA-P256",
  });
  const cases: [string, string][] = [
    ["pki/apiserver.key", "file already exists: key or CSR pki/apiserver"],
    ["pki/etcd/peer.csr", "file already exists: key or CSR pki/etcd/peer"],
    ["super-admin.conf", "file already exists: kube config: super-admin.conf"],
    ["kubelet.conf.csr", "file already exists: csr: kubelet.conf.csr"],
  ];
  for (const [p, text] of cases) {
    await assert.rejects(
      generateKeysAndCsrs({ spec, existing: new Map([[p, enc("x")]]) }),
      (e: Error) => e.message === text,
      p,
    );
    const forced = await generateKeysAndCsrs({
      spec,
      existing: new Map([[p, enc("x")]]),
      force: true,
    });
    assert.ok(forced.files.some((f) => f.path === p), p);
  }
  // An invalid configuration: kubeadm's validation text.
  await assert.rejects(
    generateKeysAndCsrs({
      spec: controlPlanePkiSpec({ ...spec, encryptionAlgorithm: "ECDSA-P384" }),
      existing: new Map(),
    }),
    /encryptionAlgorithm: Invalid value: "ECDSA-P384"/,
  );
});

Deno.test("generateKeysAndCsrs() keeps an existing sa.key only when it is a key, writes its sa.pub when absent, refuses a foreign sa.pub", async () => {
  const spec = controlPlanePkiSpec({
    nodeName: "cp-1",
    advertiseAddress: "10.0.0.10",
    encryptionAlgorithm: "ECDSA-P256",
  });
  const first = await generateKeysAndCsrs({ spec, existing: new Map() });
  const saKey = first.files.find((f) => f.path === "pki/sa.key")!.data;
  const saPub = first.files.find((f) => f.path === "pki/sa.pub")!.data;
  const kept = await generateKeysAndCsrs({ spec, existing: new Map([["pki/sa.key", enc(saKey)]]) });
  assert.ok(!kept.files.some((f) => f.path === "pki/sa.key"));
  assert.equal(kept.files.find((f) => f.path === "pki/sa.pub")?.data, saPub);
  assert.ok(kept.lines.includes('[certs] Using the existing "sa" key'));
  const both = await generateKeysAndCsrs({
    spec,
    existing: new Map([["pki/sa.key", enc(saKey)], ["pki/sa.pub", enc(saPub)]]),
  });
  assert.ok(!both.files.some((f) => f.path.startsWith("pki/sa.")));
  await assert.rejects(
    generateKeysAndCsrs({ spec, existing: new Map([["pki/sa.key", enc("victim\n")]]) }),
    (e: Error) => e instanceof InputError && e.message === "pki/sa.key: no private key found",
  );
  const other =
    (await generateKeysAndCsrs({ spec, existing: new Map() })).files.find((f) =>
      f.path === "pki/sa.pub"
    )!.data;
  await assert.rejects(
    generateKeysAndCsrs({
      spec,
      existing: new Map([["pki/sa.key", enc(saKey)], ["pki/sa.pub", enc(other)]]),
    }),
    (e: Error) =>
      e instanceof InputError && e.message === "pki/sa.pub: is not the public key of pki/sa.key",
  );
});

Deno.test("generateKeysAndCsrsForNodes() gives each node its own CSRs and one shared sa pair (an existing one reused); refuses duplicates and differing sa keys", async () => {
  const spec = controlPlanePkiSpec({ encryptionAlgorithm: "ECDSA-P256" });
  const nodes = [
    { name: "cp-1", advertiseAddress: "10.0.0.11" },
    { name: "cp-2", advertiseAddress: "10.0.0.12" },
  ];
  const made = await generateKeysAndCsrsForNodes({ spec, nodes, existing: new Map() });
  const at = (p: string) => made.files.find((f) => f.path === p)?.data;
  assert.equal(made.files.length, 52);
  assert.equal(at("cp-1/pki/sa.key"), at("cp-2/pki/sa.key"));
  assert.equal(at("cp-1/pki/sa.pub"), at("cp-2/pki/sa.pub"));
  assert.notEqual(at("cp-1/pki/apiserver.key"), at("cp-2/pki/apiserver.key"));
  assert.deepEqual(made.lines.filter((l) => l.startsWith("generating")), [
    "generating keys and CSRs in cp-1/pki",
    "generating keys and CSRs in cp-1",
    "generating keys and CSRs in cp-2/pki",
    "generating keys and CSRs in cp-2",
  ]);
  // Reuse: cp-2 holds the pair already; cp-1 gets the same key.
  const kept = await generateKeysAndCsrsForNodes({
    spec,
    nodes,
    existing: new Map([["cp-2", new Map([["pki/sa.key", enc(at("cp-1/pki/sa.key")!)]])]]),
  });
  const keptAt = (p: string) => kept.files.find((f) => f.path === p)?.data;
  assert.equal(keptAt("cp-1/pki/sa.key"), at("cp-1/pki/sa.key"));
  assert.equal(keptAt("cp-2/pki/sa.key"), undefined);
  assert.equal(keptAt("cp-2/pki/sa.pub"), at("cp-1/pki/sa.pub"));
  assert.equal(
    kept.lines.at(-1),
    '[certs] Using the existing "sa" key of cp-2/pki/sa.key for every node',
  );
  const other =
    (await generateKeysAndCsrs({ spec: specForNode(spec, "x", "10.0.0.9"), existing: new Map() }))
      .files.find((f) => f.path === "pki/sa.key")!.data;
  const refusals: [typeof nodes, Map<string, Map<string, Uint8Array>>, string][] = [
    [
      [nodes[0]!, { name: "CP-1", advertiseAddress: "10.0.0.13" }],
      new Map(),
      'node "cp-1" is listed twice',
    ],
    [
      [nodes[0]!, { name: "cp-3", advertiseAddress: "10.0.0.011" }],
      new Map(),
      'nodes "cp-1" and "cp-3" have the same advertise address 10.0.0.11',
    ],
    [
      nodes,
      new Map([
        ["cp-1", new Map([["pki/sa.key", enc(at("cp-1/pki/sa.key")!)]])],
        ["cp-2", new Map([["pki/sa.key", enc(other)]])],
      ]),
      "cp-1/pki/sa.key and cp-2/pki/sa.key differ: the API servers of one cluster share one service-account key",
    ],
    [
      [{ name: "cp-1", advertiseAddress: "127.0.0.1" }],
      new Map(),
      'node "cp-1": localAPIEndpoint.advertiseAddress: "127.0.0.1" is a loopback address',
    ],
  ];
  for (const [n, existing, want] of refusals) {
    await assert.rejects(
      generateKeysAndCsrsForNodes({ spec, nodes: n, existing }),
      (e: Error) => e instanceof InputError && e.message.startsWith(want),
      want,
    );
  }
});

// --- an external CA (its pairs from a joinkit tree) and the node's side --------------------

const SPEC = controlPlanePkiSpec({
  nodeName: "cp-1",
  advertiseAddress: "10.0.0.10",
  controlPlaneEndpoint: "cp.example.com:6443",
  apiServerCertSANs: ["extra.example.com", "192.0.2.7"],
  encryptionAlgorithm: "ECDSA-P256",
});

async function caTree(): Promise<Map<string, string>> {
  const t = await buildControlPlanePki({ spec: SPEC, now: NOW, existing: new Map() });
  return new Map(t.files.map((f) => [f.path, f.data]));
}

function signingCas(t: Map<string, string>): Partial<Record<CaName, SigningCa>> {
  const pair = (base: string): SigningCa => ({
    certPem: t.get(`pki/${base}.crt`)!,
    keyPem: t.get(`pki/${base}.key`)!,
    certSource: `${base}.crt`,
    keySource: `${base}.key`,
  });
  return { ca: pair("ca"), "front-proxy-ca": pair("front-proxy-ca"), "etcd-ca": pair("etcd/ca") };
}

const ca = await caTree();
const foreign = await caTree();
const node = await generateKeysAndCsrs({ spec: SPEC, existing: new Map() });
const nodeFiles = new Map(node.files.map((f) => [f.path, enc(f.data)]));
const csrs = new Map([...nodeFiles].filter(([p]) => p.endsWith(".csr")));
const signed = signKubeadmCsrs({ csrs, cas: signingCas(ca), now: NOW });
/** The node's directory with the three CA certificates copied in. */
const withCas = new Map(nodeFiles);
for (const b of ["ca", "front-proxy-ca", "etcd/ca"]) {
  withCas.set(`pki/${b}.crt`, enc(ca.get(`pki/${b}.crt`)!));
}
const asInputs = (files: PkiFile[]) =>
  files.map((f) => ({ source: `signed/${f.path}`, text: f.data }));

Deno.test("signKubeadmCsrs() signs each CSR with its CA and kubeadm's usages, as certs generate would", () => {
  assert.deepEqual(signed.map((f) => f.path), [
    "admin.conf.crt",
    "controller-manager.conf.crt",
    "kubelet.conf.crt",
    "pki/apiserver-etcd-client.crt",
    "pki/apiserver-kubelet-client.crt",
    "pki/apiserver.crt",
    "pki/etcd/healthcheck-client.crt",
    "pki/etcd/peer.crt",
    "pki/etcd/server.crt",
    "pki/front-proxy-client.crt",
    "scheduler.conf.crt",
    "super-admin.conf.crt",
  ]);
  const SERVER = "1.3.6.1.5.5.7.3.1";
  const CLIENT = "1.3.6.1.5.5.7.3.2";
  const want: Record<string, [string, string[]]> = {
    "pki/apiserver.crt": ["ca", [SERVER]],
    "pki/front-proxy-client.crt": ["front-proxy-ca", [CLIENT]],
    "pki/etcd/server.crt": ["etcd/ca", [SERVER, CLIENT]],
    "pki/apiserver-etcd-client.crt": ["etcd/ca", [CLIENT]],
    "super-admin.conf.crt": ["ca", [CLIENT]],
  };
  for (const [p, [caBase, ekus]] of Object.entries(want)) {
    const c = pemCerts(signed.find((f) => f.path === p)!.data, p)[0]!;
    const issuer = pemCerts(ca.get(`pki/${caBase}.crt`)!, caBase)[0]!;
    assert.deepEqual(c.extKeyUsage, ekus, p);
    assert.equal(hex(c.issuerDer), hex(issuer.subjectDer), p);
    assert.equal(hex(c.authorityKeyId!), hex(issuer.subjectKeyId!), p);
    assert.equal(c.keyUsage, 5, p); // digitalSignature | keyEncipherment
    assert.equal(c.notAfter.getTime() - c.notBefore.getTime(), (8760 * 60 + 5) * 60_000, p);
  }
  // The same facts certs generate gives: SANs in kubeadm's order.
  const api = pemCerts(signed.find((f) => f.path === "pki/apiserver.crt")!.data, "api")[0]!;
  assert.deepEqual(api.sans.ips, ["10.96.0.1", "10.0.0.10", "192.0.2.7"]);
});

Deno.test("signKubeadmCsrs() refuses a mislabelled CSR, a CSR without its CA, and a CA key that is not its own", () => {
  const swapped = new Map([["admin.conf.csr", csrs.get("super-admin.conf.csr")!]]);
  assert.throws(
    () => signKubeadmCsrs({ csrs: swapped, cas: signingCas(ca), now: NOW }),
    {
      message:
        "admin.conf.csr: requests subject CN=kubernetes-super-admin, O=system:masters, kubeadm's is CN=kubernetes-admin, O=kubeadm:cluster-admins",
    },
  );
  const clientWithSans = new Map([[
    "pki/apiserver-kubelet-client.csr",
    csrs.get("pki/apiserver.csr")!,
  ]]);
  assert.throws(
    () => signKubeadmCsrs({ csrs: clientWithSans, cas: signingCas(ca), now: NOW }),
    { message: /^pki\/apiserver-kubelet-client\.csr: requests subject CN=kube-apiserver, / },
  );
  const { ca: only } = signingCas(ca);
  assert.throws(
    () =>
      signKubeadmCsrs({
        csrs: new Map([["pki/etcd/server.csr", csrs.get("pki/etcd/server.csr")!]]),
        cas: { ca: only! },
        now: NOW,
      }),
    { message: /^pki\/etcd\/server\.csr: is signed by etcd-ca: give its certificate and key/ },
  );
  assert.throws(
    () =>
      signKubeadmCsrs({
        csrs,
        cas: { ca: { ...only!, keyPem: foreign.get("pki/ca.key")! } },
        now: NOW,
      }),
    { message: "ca.key: private key does not match ca.crt" },
  );
});

Deno.test("assembleExternalCa() puts the signed certificates in place; the tree then checks clean and a rerun writes nothing", () => {
  const r = assembleExternalCa({
    existing: withCas,
    signed: asInputs(signed),
    now: NOW,
    spec: SPEC,
  });
  assert.deepEqual(r.warnings, []);
  assert.equal(r.files.length, 12); // 7 leaves + 5 kubeconfigs
  const after = new Map(withCas);
  for (const f of r.files) after.set(f.path, enc(f.data));
  assert.deepEqual(checkPkiTree(after, { now: NOW, spec: SPEC }), []);
  for (const f of r.files.filter((x) => x.path.endsWith(".conf"))) {
    assert.equal(f.mode, 0o600);
    assert.match(f.data, /certificate-authority-data: \S+\n/);
    assert.match(f.data, /client-certificate-data: \S+\n/);
  }
  // No CA key anywhere in what it writes.
  assert.ok(r.files.every((f) => !/ca\.key$/.test(f.path)));
  // Run again over the result: nothing to write, kubeadm's "Using existing" lines.
  const again = assembleExternalCa({ existing: after, signed: [], now: NOW, spec: SPEC });
  assert.deepEqual(again.files, []);
  assert.ok(again.lines.includes("[certs] Using existing apiserver certificate and key on disk"));
  assert.ok(
    again.lines.includes('[kubeconfig] Using existing kubeconfig file: "super-admin.conf"'),
  );
});

Deno.test("assembleExternalCa() refuses, one line, what kubeadm's external-CA detection refuses and more", () => {
  const verdicts = JSON.parse(fs.readFileSync(path.join(EXT, "kubeadm_verdicts.json"), "utf8"));
  const kubeadmLine = (c: string) => verdicts.cases[c].stderr[0] as string;
  const without = (p: string) => asInputs(signed.filter((f) => f.path !== p));
  const foreignSigned = signKubeadmCsrs({ csrs, cas: signingCas(foreign), now: NOW });
  const cases: [string, () => unknown, string | RegExp][] = [
    [
      "apiserver's signed certificate missing",
      () =>
        assembleExternalCa({ existing: withCas, signed: without("pki/apiserver.crt"), now: NOW }),
      // kubeadm: "invalid or incomplete external CA: failure loading certificate for API server: …"
      new RegExp(
        `^${
          kubeadmLine("apiserver.crt missing").split(": couldn't")[0]!.replace(
            /[.*+?^${}()|[\]\\]/g,
            "\\$&",
          )
        }: pki/apiserver\\.crt: missing: no signed certificate for pki/apiserver\\.key among the inputs$`,
      ),
    ],
    [
      "apiserver signed by another CA with the same name",
      () =>
        assembleExternalCa({
          existing: withCas,
          signed: [
            ...without("pki/apiserver.crt"),
            ...asInputs(foreignSigned.filter((f) => f.path === "pki/apiserver.crt")),
          ],
          now: NOW,
        }),
      // kubeadm's text (RSA in its run; these CAs are ECDSA): the same x509 reason.
      kubeadmLine("apiserver.crt and .key from another CA")
        .replace("CA: certificate", "CA: signed/pki/apiserver.crt: certificate")
        .replace("crypto/rsa: verification error", "x509: ECDSA verification failure"),
    ],
    [
      "front-proxy-client's certificate signed by ca (kubeadm: external front-proxy CA)",
      () => {
        const wrong = signKubeadmCsrs({
          csrs: new Map([["pki/front-proxy-client.csr", csrs.get("pki/front-proxy-client.csr")!]]),
          cas: { "front-proxy-ca": signingCas(ca).ca! },
          now: NOW,
        });
        return assembleExternalCa({
          existing: withCas,
          signed: [...without("pki/front-proxy-client.crt"), ...asInputs(wrong)],
          now: NOW,
        });
      },
      `invalid or incomplete external front-proxy CA: signed/pki/front-proxy-client.crt: certificate front-proxy client is not signed by corresponding CA: ${
        kubeadmLine("front-proxy-client signed by ca").split("CA: ").pop()
      }`,
    ],
    [
      "ca.key present",
      () =>
        assembleExternalCa({
          existing: new Map([...withCas, ["pki/ca.key", enc(ca.get("pki/ca.key")!)]]),
          signed: asInputs(signed),
          now: NOW,
        }),
      "invalid or incomplete external CA: pki/ca.key exists: in external-CA mode the CA key must not be on this machine (move it away; kubeadm would sign with it)",
    ],
    [
      "etcd/ca.key present",
      () =>
        assembleExternalCa({
          existing: new Map([...withCas, ["pki/etcd/ca.key", enc(ca.get("pki/etcd/ca.key")!)]]),
          signed: asInputs(signed),
          now: NOW,
        }),
      /^invalid or incomplete external etcd CA: pki\/etcd\/ca\.key exists/,
    ],
    [
      "an existing apiserver.crt whose key is not apiserver.key (kubeadm accepts it)",
      () =>
        assembleExternalCa({
          existing: new Map([...withCas, [
            "pki/apiserver.crt",
            enc(signed.find((f) => f.path === "pki/apiserver-kubelet-client.crt")!.data),
          ]]),
          signed: without("pki/apiserver.crt"),
          now: NOW,
        }),
      "invalid or incomplete external CA: pki/apiserver.key: private key does not match pki/apiserver.crt",
    ],
    [
      "a signed certificate for no key of the tree",
      () =>
        assembleExternalCa({
          existing: withCas,
          signed: [...asInputs(signed), {
            source: "stray.crt",
            text: ca.get("pki/apiserver.crt")!,
          }],
          now: NOW,
        }),
      "stray.crt: matches no key of the tree (signed for another CSR?)",
    ],
    [
      "two different certificates for one key",
      () =>
        assembleExternalCa({
          existing: withCas,
          signed: [...asInputs(signed), {
            source: "again.crt",
            text: foreignSigned.find((f) => f.path === "pki/apiserver.crt")!.data,
          }],
          now: NOW,
        }),
      "again.crt: another certificate for the key of signed/pki/apiserver.crt; give only one",
    ],
    [
      "super-admin.conf missing",
      () => {
        const e = new Map(withCas);
        e.delete("super-admin.conf");
        return assembleExternalCa({
          existing: e,
          signed: without("super-admin.conf.crt"),
          now: NOW,
        });
      },
      // kubeadm: "the super-admin.conf file does not exists or it is not valid: stat …"
      new RegExp(
        `^${
          kubeadmLine("super-admin.conf missing").split(": stat")[0]
        }: super-admin\\.conf: missing \\(run certs generate-csr first\\)$`,
      ),
    ],
    [
      "sa.pub missing",
      () => {
        const e = new Map(withCas);
        e.delete("pki/sa.pub");
        return assembleExternalCa({ existing: e, signed: asInputs(signed), now: NOW });
      },
      /^pki\/sa\.pub: missing: kube-apiserver and kube-controller-manager need the service-account pair/,
    ],
    [
      "ca.crt missing",
      () => {
        const e = new Map(withCas);
        e.delete("pki/ca.crt");
        return assembleExternalCa({ existing: e, signed: asInputs(signed), now: NOW });
      },
      "invalid or incomplete external CA: failure loading certificate for CA: pki/ca.crt: missing (copy the CA certificate there or give --ca)",
    ],
    [
      "an expired certificate",
      () =>
        assembleExternalCa({
          existing: withCas,
          signed: asInputs(signed),
          now: new Date("2028-01-01T00:00:00Z"),
        }),
      /^invalid or incomplete external CA: signed\/pki\/apiserver\.crt: certificate API server is not signed by corresponding CA: x509: certificate has expired or is not yet valid/,
    ],
  ];
  // What a check says no to is a CheckError (exit 3); what is missing or matches nothing, bad input (1).
  const checks = new Set([
    "apiserver signed by another CA with the same name",
    "front-proxy-client's certificate signed by ca (kubeadm: external front-proxy CA)",
    "ca.key present",
    "etcd/ca.key present",
    "an existing apiserver.crt whose key is not apiserver.key (kubeadm accepts it)",
    "an expired certificate",
  ]);
  assert.equal(cases.filter(([what]) => checks.has(what)).length, checks.size);
  for (const [what, run, want] of cases) {
    assert.throws(run, (e: Error) => {
      if (typeof want === "string") assert.equal(e.message, want, what);
      else assert.match(e.message, want, what);
      assert.ok(!e.message.includes("\n"), what);
      assert.ok(e instanceof (checks.has(what) ? CheckError : InputError), `${what}: ${e.name}`);
      return true;
    }, what);
  }
});
