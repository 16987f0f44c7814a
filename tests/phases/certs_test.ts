/**
 * `lib/phases/certlist.ts`, `certs.ts`, `kubeconfigs.ts`: the vectors of
 * shared/reference/kubeadm-pki.md §6 as tables, and whole trees compared
 * fact by fact with trees real kubeadm v1.32.5 wrote for the same
 * configurations (tests/fixtures/kubeadm_pki/: facts read with
 * @peculiar/x509, kubeadm's progress lines).
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { execFileSync } from "node:child_process";
import { Buffer } from "node:buffer";
import { parseManifests } from "../../lib/k8s/manifest.ts";
import { readInitConfiguration } from "../../lib/kubeadm/init_config.ts";
import {
  advertiseAddressError,
  apiServerVirtualIp,
  controlPlaneEndpointUrl,
  type ControlPlanePkiSpec,
  controlPlanePkiSpec,
  localEndpointUrl,
  nodeAltNames,
  removeDuplicateAltNames,
  validateControlPlanePkiSpec,
} from "../../lib/phases/certlist.ts";
import { parseIpSloppy } from "../../lib/kubeadm/validation.ts";
import { buildControlPlanePki, type ControlPlanePki } from "../../lib/phases/certs.ts";
import { repoPath, tempDir } from "../_cli.ts";
import { treeFacts } from "./certs_facts.ts";

const FIXTURES = repoPath("tests", "fixtures", "kubeadm_pki");
const NOW = new Date("2026-06-04T10:00:00Z");

/** The sample cluster of kubeadm-pki.md §6. */
const SAMPLE: Partial<ControlPlanePkiSpec> = {
  nodeName: "cp-1",
  advertiseAddress: "10.0.0.10",
  controlPlaneEndpoint: "cp.example.com:6443",
  apiServerCertSANs: ["extra.example.com", "192.0.2.7"],
};

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
    kubeletLocalMode: c.featureGates.ControlPlaneKubeletLocalMode === true,
  });
}

function writeTree(dir: string, pki: ControlPlanePki): void {
  for (const f of pki.files) {
    const full = path.join(dir, f.path);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, f.data, { mode: f.mode });
    fs.chmodSync(full, f.mode);
  }
}

function readTree(dir: string): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else out.set(path.relative(dir, full), new Uint8Array(fs.readFileSync(full)));
    }
  };
  walk(dir);
  return out;
}

// ---------------------------------------------------------------------------
// §6.1 / §6.2: SANs and endpoints.

const SAN_CASES: {
  name: string;
  change: Partial<ControlPlanePkiSpec>;
  apiserver: [string[], string[]];
  etcdServer?: [string[], string[]];
  etcdPeer?: [string[], string[]];
  admin?: string;
  local?: string;
}[] = [
  {
    name: "the sample",
    change: {},
    apiserver: [
      [
        "cp-1",
        "cp.example.com",
        "extra.example.com",
        "kubernetes",
        "kubernetes.default",
        "kubernetes.default.svc",
        "kubernetes.default.svc.cluster.local",
      ],
      ["10.96.0.1", "10.0.0.10", "192.0.2.7"],
    ],
    etcdServer: [["cp-1", "localhost"], ["10.0.0.10", "127.0.0.1", "::1"]],
    etcdPeer: [["cp-1", "localhost"], ["10.0.0.10", "127.0.0.1", "::1"]],
    admin: "https://cp.example.com:6443",
    local: "https://10.0.0.10:6443",
  },
  {
    name: "controlPlaneEndpoint an IP without port",
    change: { controlPlaneEndpoint: "192.0.2.100" },
    apiserver: [
      [
        "cp-1",
        "extra.example.com",
        "kubernetes",
        "kubernetes.default",
        "kubernetes.default.svc",
        "kubernetes.default.svc.cluster.local",
      ],
      ["10.96.0.1", "10.0.0.10", "192.0.2.100", "192.0.2.7"],
    ],
    admin: "https://192.0.2.100:6443",
  },
  {
    name: "no controlPlaneEndpoint",
    change: { controlPlaneEndpoint: "" },
    apiserver: [
      [
        "cp-1",
        "extra.example.com",
        "kubernetes",
        "kubernetes.default",
        "kubernetes.default.svc",
        "kubernetes.default.svc.cluster.local",
      ],
      ["10.96.0.1", "10.0.0.10", "192.0.2.7"],
    ],
    admin: "https://10.0.0.10:6443",
  },
  {
    name: "certSANs lower-cased and deduplicated, the wildcard first",
    change: { apiServerCertSANs: ["KUBERNETES", "10.0.0.10", "*.Example.com"] },
    apiserver: [
      [
        "*.example.com",
        "cp-1",
        "cp.example.com",
        "kubernetes",
        "kubernetes.default",
        "kubernetes.default.svc",
        "kubernetes.default.svc.cluster.local",
      ],
      ["10.96.0.1", "10.0.0.10"],
    ],
  },
  {
    name: "dual-stack service subnet: only the first CIDR's VIP",
    change: { serviceSubnet: "10.96.0.0/12,fd00:10:96::/112", apiServerCertSANs: [] },
    apiserver: [
      [
        "cp-1",
        "cp.example.com",
        "kubernetes",
        "kubernetes.default",
        "kubernetes.default.svc",
        "kubernetes.default.svc.cluster.local",
      ],
      ["10.96.0.1", "10.0.0.10"],
    ],
  },
  {
    name: "service subnet 172.20.0.0/16",
    change: { serviceSubnet: "172.20.0.0/16", apiServerCertSANs: [] },
    apiserver: [
      [
        "cp-1",
        "cp.example.com",
        "kubernetes",
        "kubernetes.default",
        "kubernetes.default.svc",
        "kubernetes.default.svc.cluster.local",
      ],
      ["172.20.0.1", "10.0.0.10"],
    ],
  },
  {
    name: "IPv6 advertise address",
    change: { advertiseAddress: "fd00::10", controlPlaneEndpoint: "", apiServerCertSANs: [] },
    apiserver: [
      [
        "cp-1",
        "kubernetes",
        "kubernetes.default",
        "kubernetes.default.svc",
        "kubernetes.default.svc.cluster.local",
      ],
      ["10.96.0.1", "fd00::10"],
    ],
    etcdServer: [["cp-1", "localhost"], ["fd00::10", "127.0.0.1", "::1"]],
    admin: "https://[fd00::10]:6443",
    local: "https://[fd00::10]:6443",
  },
  {
    name: "etcd serverCertSANs: the server only",
    change: { etcdServerCertSANs: ["etcd.example.com", "10.0.0.11"] },
    apiserver: [
      [
        "cp-1",
        "cp.example.com",
        "extra.example.com",
        "kubernetes",
        "kubernetes.default",
        "kubernetes.default.svc",
        "kubernetes.default.svc.cluster.local",
      ],
      ["10.96.0.1", "10.0.0.10", "192.0.2.7"],
    ],
    etcdServer: [["cp-1", "etcd.example.com", "localhost"], [
      "10.0.0.10",
      "127.0.0.1",
      "::1",
      "10.0.0.11",
    ]],
    etcdPeer: [["cp-1", "localhost"], ["10.0.0.10", "127.0.0.1", "::1"]],
  },
  {
    name: "node name CP-1 lower-cased",
    change: { nodeName: "CP-1", apiServerCertSANs: [] },
    apiserver: [
      [
        "cp-1",
        "cp.example.com",
        "kubernetes",
        "kubernetes.default",
        "kubernetes.default.svc",
        "kubernetes.default.svc.cluster.local",
      ],
      ["10.96.0.1", "10.0.0.10"],
    ],
  },
];

for (const c of SAN_CASES) {
  Deno.test(`nodeAltNames() ${c.name}`, () => {
    const spec = controlPlanePkiSpec({ ...SAMPLE, ...c.change });
    const alt = nodeAltNames(spec);
    assert.deepEqual([alt.apiserver.dns, alt.apiserver.ips], c.apiserver);
    if (c.etcdServer) assert.deepEqual([alt.etcdServer.dns, alt.etcdServer.ips], c.etcdServer);
    if (c.etcdPeer) assert.deepEqual([alt.etcdPeer.dns, alt.etcdPeer.ips], c.etcdPeer);
    if (c.admin) assert.equal(controlPlaneEndpointUrl(spec), c.admin);
    if (c.local) assert.equal(localEndpointUrl(spec), c.local);
  });
}

Deno.test("apiServerVirtualIp() is the first CIDR's network address + 1", () => {
  for (
    const [subnet, vip] of [
      ["10.96.0.0/12", "10.96.0.1"],
      ["10.96.5.7/12", "10.96.0.1"],
      ["fd00:10:96::/112", "fd00:10:96::1"],
      ["172.20.0.0/16,fd00::/112", "172.20.0.1"],
      ["010.096.000.000/12", "10.96.0.1"],
    ]
  ) assert.equal(apiServerVirtualIp(subnet!), vip, subnet);
});

Deno.test("removeDuplicateAltNames() sorts DNS bytewise, keeps IPs in first-seen order", () => {
  assert.deepEqual(
    removeDuplicateAltNames({ dns: ["b", "*.a", "B", "b", "0"], ips: ["::1", "1.2.3.4", "::1"] }),
    { dns: ["*.a", "0", "B", "b"], ips: ["::1", "1.2.3.4"] },
  );
});

// §6.2's refusals and kubeadm's other validation texts.
const BAD: [string, Partial<ControlPlanePkiSpec>, string][] = [
  [
    "ECDSA-P384 is not in v1.32",
    { encryptionAlgorithm: "ECDSA-P384" },
    'encryptionAlgorithm: Invalid value: "ECDSA-P384": Invalid encryption algorithm "ECDSA-P384". Must be one of [ECDSA-P256 RSA-2048 RSA-3072 RSA-4096]',
  ],
  [
    "a certSAN that is neither IP nor DNS name",
    { apiServerCertSANs: ["bad_name"] },
    'apiServer.certSANs: Invalid value: "bad_name": altname is not a valid IP address, DNS label or a DNS label with subdomain wildcards: a lowercase RFC 1123 subdomain must consist of',
  ],
  [
    "an endpoint with a bad port",
    { controlPlaneEndpoint: "cp.example.com:99999" },
    'controlPlaneEndpoint: Invalid value: "cp.example.com:99999": endpoint is not valid',
  ],
  [
    "a service subnet that does not parse",
    { serviceSubnet: "10.96.0.0/33" },
    'networking.serviceSubnet: Invalid value: "10.96.0.0/33": couldn\'t parse subnet',
  ],
  [
    "a service subnet too large",
    { serviceSubnet: "10.0.0.0/8" },
    'networking.serviceSubnet: Invalid value: "10.0.0.0/8": specified service subnet is too large; for 32-bit addresses, the mask must be >= 12',
  ],
  [
    "a node name that cannot be a Node",
    { nodeName: "cp_1" },
    'nodeRegistration.name: Invalid value: "cp_1": a lowercase RFC 1123 subdomain',
  ],
  [
    "an advertise address that is no IP",
    { advertiseAddress: "cp-1.example.com" },
    'localAPIEndpoint.advertiseAddress: Invalid value: "cp-1.example.com": ip address is not valid',
  ],
  // kubeadm v1.32.5 (init phase certs all --service-cidr 10.96.0.0/31), verbatim.
  [
    "a service subnet 10.96.0.0/31 too small",
    { serviceSubnet: "10.96.0.0/31" },
    'networking.serviceSubnet: Invalid value: "10.96.0.0/31": subnet with 2 address(es) is too small, the minimum is 10',
  ],
  // kubeadm v1.32.5 (init phase certs all --service-cidr 10.96.0.0/32), verbatim.
  [
    "a service subnet 10.96.0.0/32 too small",
    { serviceSubnet: "10.96.0.0/32" },
    'networking.serviceSubnet: Invalid value: "10.96.0.0/32": subnet with 1 address(es) is too small, the minimum is 10',
  ],
  // kubeadm v1.32.5 (init phase certs all --service-cidr fd00::/127), verbatim.
  [
    "a service subnet fd00::/127 too small",
    { serviceSubnet: "fd00::/127" },
    'networking.serviceSubnet: Invalid value: "fd00::/127": subnet with 2 address(es) is too small, the minimum is 10',
  ],
  // kubeadm v1.32.5 (init phase certs all --service-cidr fd00::/128), verbatim.
  [
    "a service subnet fd00::/128 too small",
    { serviceSubnet: "fd00::/128" },
    'networking.serviceSubnet: Invalid value: "fd00::/128": subnet with 1 address(es) is too small, the minimum is 10',
  ],
  [
    "an etcd SAN with a space",
    { etcdPeerCertSANs: ["a b"] },
    'etcd.local.peerCertSANs: Invalid value: "a b": altname is not a valid IP address',
  ],
];
for (const [name, change, want] of BAD) {
  Deno.test(`validateControlPlanePkiSpec() refuses ${name} with kubeadm's text`, () => {
    const errs = validateControlPlanePkiSpec(controlPlanePkiSpec({ ...SAMPLE, ...change }));
    assert.ok(errs.some((e) => e.startsWith(want)), errs.join("\n"));
  });
}

Deno.test("validateControlPlanePkiSpec() accepts the sample and the fixtures' configurations", () => {
  assert.deepEqual(validateControlPlanePkiSpec(controlPlanePkiSpec(SAMPLE)), []);
  for (const n of ["sample_rsa2048", "ecdsa_variations", "ipv6_v1beta3"]) {
    assert.deepEqual(
      validateControlPlanePkiSpec(specFromFile(path.join(FIXTURES, `${n}.yaml`))),
      [],
    );
  }
});

// ---------------------------------------------------------------------------
// Whole trees against kubeadm's.

for (const n of ["sample_rsa2048", "ecdsa_variations", "ipv6_v1beta3"]) {
  Deno.test(`buildControlPlanePki() ${n}: every fact of kubeadm v1.32.5's tree, and its lines`, async () => {
    const spec = specFromFile(path.join(FIXTURES, `${n}.yaml`));
    const pki = await buildControlPlanePki({ spec, now: NOW, existing: new Map() });
    const { dir, cleanup } = tempDir();
    try {
      writeTree(dir, pki);
      const want = JSON.parse(fs.readFileSync(path.join(FIXTURES, `${n}.json`), "utf8"));
      const got = JSON.parse(JSON.stringify(treeFacts(dir)));
      for (const f of Object.keys(want)) assert.deepEqual(got[f], want[f], f);
      assert.deepEqual(Object.keys(got), Object.keys(want));
      const lines = fs.readFileSync(path.join(FIXTURES, `${n}.lines.txt`), "utf8").trimEnd().split(
        "\n",
      );
      assert.deepEqual(pki.lines, lines);
      assert.equal(pki.files.length, 27);
    } finally {
      cleanup();
    }
  });
}

Deno.test("buildControlPlanePki() times: one start, 5 minutes back, kubeconfig clients at the CA's NotBefore", async () => {
  const spec = controlPlanePkiSpec({ ...SAMPLE, encryptionAlgorithm: "ECDSA-P256" });
  const { dir, cleanup } = tempDir();
  try {
    // A CA made a year ago: the kubeconfig client certificates start with it (kubeadm's quirk).
    const old = await buildControlPlanePki({
      spec,
      now: new Date("2025-06-04T10:00:00Z"),
      existing: new Map(),
    });
    const caOnly = new Map<string, Uint8Array>();
    for (const f of old.files) {
      if (f.path === "pki/ca.crt" || f.path === "pki/ca.key") {
        caOnly.set(f.path, new TextEncoder().encode(f.data));
      }
    }
    const pki = await buildControlPlanePki({ spec, now: NOW, existing: caOnly });
    writeTree(dir, pki);
    for (const [f, p] of caOnly) fs.writeFileSync(path.join(dir, f), p);
    const dates = (file: string, conf = false) => {
      const pem = conf
        ? Buffer.from(
          /client-certificate-data: (\S+)/.exec(fs.readFileSync(path.join(dir, file), "utf8"))![1]!,
          "base64",
        ).toString()
        : fs.readFileSync(path.join(dir, file), "utf8");
      return execFileSync("openssl", ["x509", "-noout", "-startdate", "-enddate"], { input: pem })
        .toString().trim();
    };
    assert.equal(
      dates("pki/ca.crt"),
      "notBefore=Jun  4 09:55:00 2025 GMT\nnotAfter=Jun  2 10:00:00 2035 GMT",
    );
    assert.equal(
      dates("pki/apiserver.crt"),
      "notBefore=Jun  4 09:55:00 2026 GMT\nnotAfter=Jun  4 10:00:00 2027 GMT",
    );
    assert.equal(
      dates("pki/etcd/ca.crt"),
      "notBefore=Jun  4 09:55:00 2026 GMT\nnotAfter=Jun  1 10:00:00 2036 GMT",
    );
    assert.equal(
      dates("admin.conf", true),
      "notBefore=Jun  4 09:55:00 2025 GMT\nnotAfter=Jun  4 10:00:00 2027 GMT",
    );
    assert.ok(pki.lines.includes("[certs] Using existing ca certificate authority"));
  } finally {
    cleanup();
  }
});

// ---------------------------------------------------------------------------
// Existing files and several nodes.

Deno.test("buildControlPlanePki() over its own tree keeps every file and writes nothing", async () => {
  const spec = controlPlanePkiSpec({ ...SAMPLE, encryptionAlgorithm: "ECDSA-P256" });
  const { dir, cleanup } = tempDir();
  try {
    writeTree(dir, await buildControlPlanePki({ spec, now: NOW, existing: new Map() }));
    const again = await buildControlPlanePki({ spec, now: NOW, existing: readTree(dir) });
    assert.deepEqual(again.files, []);
    assert.ok(again.tree.every((t) => t.status === "existing"));
    assert.ok(again.lines.includes("[certs] Using existing apiserver certificate and key on disk"));
    assert.ok(again.lines.includes('[kubeconfig] Using existing kubeconfig file: "admin.conf"'));
  } finally {
    cleanup();
  }
});

Deno.test("buildControlPlanePki() refuses what kubeadm refuses or cannot use, naming the file", async () => {
  const spec = controlPlanePkiSpec({ ...SAMPLE, encryptionAlgorithm: "ECDSA-P256" });
  const a = readTreeOf(await buildControlPlanePki({ spec, now: NOW, existing: new Map() }));
  const b = readTreeOf(await buildControlPlanePki({ spec, now: NOW, existing: new Map() }));
  const cases: [string, Map<string, Uint8Array>, RegExp][] = [
    [
      "a leaf of another CA",
      withFiles(a, {
        "pki/apiserver.crt": b.get("pki/apiserver.crt")!,
        "pki/apiserver.key": b.get("pki/apiserver.key")!,
      }),
      /^pki\/apiserver\.crt: certificate apiserver not signed by CA certificate ca: x509: certificate signed by unknown authority/,
    ],
    [
      "a CA key that is not its certificate's",
      withFiles(a, { "pki/ca.key": b.get("pki/ca.key")! }),
      /^pki\/ca\.key: private key does not match pki\/ca\.crt$/,
    ],
    [
      "a leaf key that is not its certificate's",
      withFiles(a, { "pki/etcd/peer.key": b.get("pki/etcd/peer.key")! }),
      /^pki\/etcd\/peer\.key: private key does not match/,
    ],
    [
      "a kubeconfig of another CA",
      withFiles(a, { "admin.conf": b.get("admin.conf")! }),
      /does not contain a trusted CA in its current context's cluster/,
    ],
    [
      "a leaf key without its certificate",
      without(a, "pki/front-proxy-client.crt"),
      /^pki\/front-proxy-client\.key: exists without pki\/front-proxy-client\.crt/,
    ],
    [
      "sa.pub of another key",
      withFiles(a, { "pki/sa.pub": b.get("pki/sa.pub")! }),
      /^pki\/sa\.pub: is not the public key of pki\/sa\.key$/,
    ],
  ];
  for (const [name, existing, want] of cases) {
    await assert.rejects(buildControlPlanePki({ spec, now: NOW, existing }), (e: Error) => {
      assert.match(e.message, want, name);
      assert.equal(e.constructor.name, "InputError", name);
      return true;
    });
  }
  // --force replaces the leaf files, never the CA.
  const forced = await buildControlPlanePki({
    spec,
    now: NOW,
    existing: withFiles(a, {
      "pki/apiserver.crt": b.get("pki/apiserver.crt")!,
      "admin.conf": b.get("admin.conf")!,
    }),
    force: true,
  });
  assert.deepEqual(forced.files.map((f) => f.path).sort(), [
    "admin.conf",
    "pki/apiserver.crt",
    "pki/apiserver.key",
  ]);
});

function readTreeOf(pki: ControlPlanePki): Map<string, Uint8Array> {
  return new Map(pki.files.map((f) => [f.path, new TextEncoder().encode(f.data)]));
}
function withFiles(
  m: Map<string, Uint8Array>,
  more: Record<string, Uint8Array>,
): Map<string, Uint8Array> {
  return new Map([...m, ...Object.entries(more)]);
}
function without(m: Map<string, Uint8Array>, f: string): Map<string, Uint8Array> {
  const out = new Map(m);
  out.delete(f);
  return out;
}

Deno.test("buildControlPlanePki() several nodes: shared CAs, sa and node-free clients; per-node serving certs and kubeconfigs", async () => {
  const spec = controlPlanePkiSpec({ ...SAMPLE, encryptionAlgorithm: "ECDSA-P256" });
  const nodes = [
    { name: "cp-1", advertiseAddress: "10.0.0.11" },
    { name: "cp-2", advertiseAddress: "10.0.0.12" },
    { name: "cp-3", advertiseAddress: "10.0.0.13" },
  ];
  const pki = await buildControlPlanePki({ spec, nodes, now: NOW, existing: new Map() });
  const file = (p: string) => pki.files.find((f) => f.path === p)!.data;
  assert.equal(pki.files.length, 81);
  for (
    const shared of [
      "pki/ca.crt",
      "pki/ca.key",
      "pki/etcd/ca.key",
      "pki/sa.key",
      "pki/front-proxy-client.crt",
      "admin.conf",
    ]
  ) {
    assert.equal(file(`cp-2/${shared}`), file(`cp-1/${shared}`), shared);
    assert.equal(file(`cp-3/${shared}`), file(`cp-1/${shared}`), shared);
  }
  for (
    const own of [
      "pki/apiserver.crt",
      "pki/etcd/server.key",
      "pki/etcd/peer.crt",
      "kubelet.conf",
      "scheduler.conf",
    ]
  ) {
    assert.notEqual(file(`cp-2/${own}`), file(`cp-1/${own}`), own);
  }
  assert.match(file("cp-3/scheduler.conf"), /server: https:\/\/10\.0\.0\.13:6443/);
  assert.match(file("cp-3/kubelet.conf"), /user: system:node:cp-3/);
  assert.ok(pki.lines.includes(
    "[certs] cp-2: apiserver serving cert is signed for DNS names [cp-2 cp.example.com extra.example.com kubernetes kubernetes.default kubernetes.default.svc kubernetes.default.svc.cluster.local] and IPs [10.96.0.1 10.0.0.12 192.0.2.7]",
  ));
  assert.ok(pki.lines.includes('[certs] cp-3: Using the "sa" key of cp-1/pki/sa.key'));
  assert.ok(pki.lines.includes(
    "[certs] cp-2: Using the front-proxy-client certificate and key made for cp-1/pki/front-proxy-client.crt",
  ));
  assert.ok(
    !pki.lines.includes('[certs] cp-2: Generating "front-proxy-client" certificate and key'),
  );
  // Rerun over the tree: everything kept.
  const again = await buildControlPlanePki({ spec, nodes, now: NOW, existing: readTreeOf(pki) });
  assert.deepEqual(again.files, []);
  // A fourth node joins later: it gets the same CAs and sa key.
  const four = [...nodes, { name: "cp-4", advertiseAddress: "10.0.0.14" }];
  const more = await buildControlPlanePki({
    spec,
    nodes: four,
    now: NOW,
    existing: readTreeOf(pki),
  });
  assert.equal(more.files.find((f) => f.path === "cp-4/pki/ca.key")!.data, file("cp-1/pki/ca.key"));
  assert.ok(more.files.every((f) => f.path.startsWith("cp-4/")));
});

Deno.test("buildControlPlanePki() refuses duplicate nodes and nodes whose CAs differ", async () => {
  const spec = controlPlanePkiSpec({ ...SAMPLE, encryptionAlgorithm: "ECDSA-P256" });
  await assert.rejects(
    buildControlPlanePki({
      spec,
      nodes: [{ name: "cp-1", advertiseAddress: "10.0.0.11" }, {
        name: "CP-1",
        advertiseAddress: "10.0.0.12",
      }],
      now: NOW,
      existing: new Map(),
    }),
    /^InputError: node "cp-1" is listed twice$/,
  );
  await assert.rejects(
    buildControlPlanePki({
      spec,
      nodes: [{ name: "cp-1", advertiseAddress: "10.0.0.11" }, {
        name: "cp-2",
        advertiseAddress: "10.0.0.011",
      }],
      now: NOW,
      existing: new Map(),
    }),
    /have the same advertise address 10\.0\.0\.11/,
  );
  const one = await buildControlPlanePki({
    spec,
    nodes: [{ name: "cp-1", advertiseAddress: "10.0.0.11" }],
    now: NOW,
    existing: new Map(),
  });
  const two = await buildControlPlanePki({
    spec,
    nodes: [{ name: "cp-2", advertiseAddress: "10.0.0.12" }],
    now: NOW,
    existing: new Map(),
  });
  await assert.rejects(
    buildControlPlanePki({
      spec,
      nodes: [{ name: "cp-1", advertiseAddress: "10.0.0.11" }, {
        name: "cp-2",
        advertiseAddress: "10.0.0.12",
      }],
      now: NOW,
      existing: new Map([...readTreeOf(one), ...readTreeOf(two)]),
    }),
    /^InputError: cp-2\/pki\/ca\.crt: is not the CA certificate of cp-1\/pki\/ca\.crt \(control-plane nodes share their CAs\)$/,
  );
});

Deno.test("certListCertificate() and kubeconfigClientCertificate() build one certificate from a spec, a key and a CA", async () => {
  const { certSpec } = await import("../../lib/phases/certlist.ts");
  const { certListCertificate, kubeconfigClientCertificate } = await import(
    "../../lib/phases/certs.ts"
  );
  const { KUBECONFIG_LIST } = await import("../../lib/phases/kubeconfigs.ts");
  const { generateKeyObject } = await import("../../lib/pki/keys.ts");
  const { parseCertificate } = await import("../../lib/pki/cert_info.ts");
  const { encodePem } = await import("../../lib/pki/pem.ts");
  const { certFacts } = await import("./certs_facts.ts");
  const spec = controlPlanePkiSpec({ ...SAMPLE, encryptionAlgorithm: "ECDSA-P256" });
  const [caKey, peerKey, kcKey] = await Promise.all([
    generateKeyObject("ecdsa-p256"),
    generateKeyObject("ecdsa-p256"),
    generateKeyObject("ecdsa-p256"),
  ]);
  const caDer = certListCertificate(certSpec("etcd-ca"), spec, caKey, undefined, NOW);
  const ca = { cert: parseCertificate(caDer), key: caKey };
  const caPem = encodePem("CERTIFICATE", caDer);
  const peer = certFacts(
    encodePem("CERTIFICATE", certListCertificate(certSpec("etcd-peer"), spec, peerKey, ca, NOW)),
    caPem,
  );
  assert.equal(peer.subject, "CN=cp-1");
  assert.equal(peer.issuer, "CN=etcd-ca");
  assert.deepEqual(peer.sans, [
    "dns:cp-1",
    "dns:localhost",
    "ip:10.0.0.10",
    "ip:127.0.0.1",
    "ip:::1",
  ]);
  assert.equal(peer.authorityKeyId, "issuer-ski");
  assert.equal(peer.validityMinutes, 525605);
  assert.equal(certFacts(caPem).subjectKeyId, "sha1-of-key");
  const admin = KUBECONFIG_LIST.find((k) => k.file === "admin.conf")!;
  // A CA made years earlier: the client certificate starts with it.
  const oldCa = certListCertificate(
    certSpec("ca"),
    spec,
    caKey,
    undefined,
    new Date("2020-01-01T00:00:00Z"),
  );
  const old = { cert: parseCertificate(oldCa), key: caKey };
  const client = parseCertificate(kubeconfigClientCertificate(admin, spec, kcKey, old, NOW));
  assert.equal(client.notBefore.toISOString(), "2019-12-31T23:55:00.000Z");
  assert.equal(client.notAfter.toISOString(), "2027-06-04T10:00:00.000Z");
  assert.throws(
    () => certListCertificate(certSpec("apiserver"), spec, peerKey, undefined, NOW),
    /needs its CA/,
  );
});

Deno.test("buildControlPlanePki() external etcd: no etcd files, kubeadm's 'Skipping' lines", async () => {
  const spec = specFromFile(path.join(FIXTURES, "external_etcd.yaml"));
  const pki = await buildControlPlanePki({ spec, now: NOW, existing: new Map() });
  const lines = fs.readFileSync(path.join(FIXTURES, "external_etcd.lines.txt"), "utf8").trimEnd()
    .split("\n");
  assert.deepEqual(pki.lines, lines);
  assert.equal(pki.files.length, 12 + 5);
  assert.ok(pki.files.every((f) => !f.path.includes("etcd")));
});

Deno.test("buildControlPlanePki() ControlPlaneKubeletLocalMode: kubelet.conf points at the node's own API server, as kubeadm v1.32.5 writes it", async () => {
  const base = { ...SAMPLE, encryptionAlgorithm: "ECDSA-P256" };
  const server = async (localMode: boolean, file: string) => {
    const spec = controlPlanePkiSpec({ ...base, kubeletLocalMode: localMode });
    const pki = await buildControlPlanePki({ spec, now: NOW, existing: new Map() });
    return /server: (\S+)/.exec(pki.files.find((f) => f.path === file)!.data)![1];
  };
  assert.equal(await server(true, "kubelet.conf"), "https://10.0.0.10:6443");
  assert.equal(await server(true, "admin.conf"), "https://cp.example.com:6443");
  assert.equal(await server(false, "kubelet.conf"), "https://cp.example.com:6443");
});

/** kubeadm v1.32.5's verdicts on advertise addresses (init phase certs all; fixture). */
const ADVERTISE = (JSON.parse(
  fs.readFileSync(path.join(FIXTURES, "advertise_addresses.json"), "utf8"),
) as {
  cases: { address: string; kubeadm: "ok" | "refused"; advertised?: string; error?: string }[];
}).cases;

const sameIp = (a: string, b: string) =>
  Buffer.from(parseIpSloppy(a)!).equals(Buffer.from(parseIpSloppy(b)!));

for (const c of ADVERTISE) {
  Deno.test(`advertiseAddressError() ${c.address}: kubeadm v1.32.5 ${c.kubeadm === "ok" ? (sameIp(c.advertised!, c.address) ? "serves on it" : "replaces it with the host's address") : "refuses it"}`, () => {
    const why = advertiseAddressError(c.address);
    if (c.kubeadm === "ok" && sameIp(c.advertised!, c.address)) assert.equal(why, undefined);
    else if (c.kubeadm === "ok") {
      // kubeadm put this host's address in the SANs: joinkit, rendering elsewhere, cannot.
      assert.match(
        why!,
        /is an unspecified address, .*joinkit cannot detect it: give the node's own address$/,
      );
    } else if (c.error!.startsWith("cannot use")) assert.equal(why, c.error);
    else assert.match(why!, /is a loopback address, .*give the node's own address$/);
  });
}

Deno.test("buildControlPlanePki() refuses an advertise address kubeadm would not serve on, naming the node", async () => {
  const spec = controlPlanePkiSpec({ ...SAMPLE, encryptionAlgorithm: "ECDSA-P256" });
  await assert.rejects(
    buildControlPlanePki({
      spec: { ...spec, advertiseAddress: "0.0.0.0" },
      now: NOW,
      existing: new Map(),
    }),
    /^InputError: localAPIEndpoint\.advertiseAddress: "0\.0\.0\.0" is an unspecified address/,
  );
  await assert.rejects(
    buildControlPlanePki({
      spec,
      nodes: [{ name: "cp-1", advertiseAddress: "10.0.0.11" }, {
        name: "cp-2",
        advertiseAddress: "FE80::2",
      }],
      now: NOW,
      existing: new Map(),
    }),
    /^InputError: node "cp-2": cannot use "fe80::2" as the bind address for the API Server$/,
  );
});

Deno.test("buildControlPlanePki() uses a CA outside its validity with kubeadm's warning (expired, not yet valid)", async () => {
  const spec = controlPlanePkiSpec({ ...SAMPLE, encryptionAlgorithm: "ECDSA-P256" });
  const old = await buildControlPlanePki({
    spec: { ...spec, caCertificateValidityMs: 3_600_000 },
    now: new Date("2020-01-01T00:00:00Z"),
    existing: new Map(),
  });
  const cas = (pki: ControlPlanePki) =>
    new Map(
      [...readTreeOf(pki)].filter(([f]) =>
        /^pki\/(ca|front-proxy-ca|etcd\/ca)\.(crt|key)$/.test(f)
      ),
    );
  const expired = await buildControlPlanePki({ spec, now: NOW, existing: cas(old) });
  assert.deepEqual(
    expired.warnings.filter((w) => w.includes("bounds")),
    ["ca", "front-proxy-ca", "etcd/ca"].map((b) =>
      `WARNING: could not validate bounds for certificate ${b}: the certificate has expired: NotBefore: 2019-12-31 23:55:00 +0000 UTC, NotAfter: 2020-01-01 01:00:00 +0000 UTC`
    ),
  );
  assert.ok(expired.lines.includes("[certs] Using existing ca certificate authority"));
  const current = await buildControlPlanePki({ spec, now: NOW, existing: new Map() });
  const future = await buildControlPlanePki({
    spec,
    now: new Date("2026-06-04T09:50:00Z"),
    existing: cas(current),
  });
  assert.match(
    future.warnings.join("\n"),
    /^WARNING: could not validate bounds for certificate ca: the certificate is not valid yet: NotBefore: 2026-06-04 09:55:00 \+0000 UTC, NotAfter: 2036-06-01 10:00:00 \+0000 UTC$/m,
  );
  const fine = await buildControlPlanePki({ spec, now: NOW, existing: cas(current) });
  assert.deepEqual(fine.warnings.filter((w) => w.includes("bounds")), []);
});

Deno.test("checkExistingKubeconfig() reads the CA a kubeconfig names by file when it has no CA data, as kubeadm does", async () => {
  const { checkExistingKubeconfig } = await import("../../lib/phases/kubeconfigs.ts");
  const spec = controlPlanePkiSpec({ ...SAMPLE, encryptionAlgorithm: "ECDSA-P256" });
  const pki = await buildControlPlanePki({ spec, now: NOW, existing: new Map() });
  const tree = readTreeOf(pki);
  const caPem = tree.get("pki/ca.crt")!;
  const caDer = Buffer.from(
    Buffer.from(caPem).toString("utf8").replace(/-----[^-]+-----|\s/g, ""),
    "base64",
  );
  const byFile = Buffer.from(tree.get("admin.conf")!).toString("utf8")
    .replace(/certificate-authority-data: \S+/, "certificate-authority: /pki/ca.crt");
  const server = "https://cp.example.com:6443";
  const files = new Map([["/pki/ca.crt", caPem]]);
  const read = (f: string) => {
    const b = files.get(f);
    if (!b) throw new Error(`${f}: no such file or directory`);
    return b;
  };
  assert.deepEqual(checkExistingKubeconfig(byFile, "admin.conf", caDer, server, read), {});
  assert.throws(
    () =>
      checkExistingKubeconfig(
        byFile.replace("/pki/ca.crt", "/gone/ca.crt"),
        "admin.conf",
        caDer,
        server,
        read,
      ),
    /^InputError: the kubeconfig file "admin\.conf" contains an invalid CA cert: failed to load CA cert from "\/gone\/ca\.crt": \/gone\/ca\.crt: no such file or directory$/,
  );
  // Without a reader (a caller that cannot read files): refused, never trusted blindly.
  assert.throws(
    () => checkExistingKubeconfig(byFile, "admin.conf", caDer, server),
    /contains an invalid CA cert/,
  );
  // Through buildControlPlanePki: kept with the reader.
  const again = await buildControlPlanePki({
    spec,
    now: NOW,
    existing: new Map([...tree, ["admin.conf", Buffer.from(byFile)]]),
    readFile: read,
  });
  assert.equal(again.files.length, 0);
});

Deno.test("buildControlPlanePki() warns about a kept serving certificate's SANs as kubeadm join checks them (VerifyHostname: wildcards cover subdomains)", async () => {
  const spec = controlPlanePkiSpec({
    nodeName: "cp-1",
    advertiseAddress: "10.0.0.10",
    apiServerCertSANs: ["*.example.com"],
    encryptionAlgorithm: "ECDSA-P256",
  });
  const tree = readTreeOf(await buildControlPlanePki({ spec, now: NOW, existing: new Map() }));
  const lacks = async (endpoint: string) =>
    (await buildControlPlanePki({
      spec: { ...spec, controlPlaneEndpoint: endpoint },
      now: NOW,
      existing: tree,
    })).warnings.filter((w) => w.includes("lacks"));
  // cp.example.com matches *.example.com: kubeadm join accepts the certificate.
  assert.deepEqual(await lacks("cp.example.com:6443"), []);
  assert.deepEqual(await lacks("192.0.2.100"), [
    "pki/apiserver.crt: kept, but it lacks the SANs the configuration gives: 192.0.2.100 (kubeadm join --control-plane refuses it; --force makes a new one)",
  ]);
  assert.deepEqual(await lacks("a.b.example.com"), [
    "pki/apiserver.crt: kept, but it lacks the SANs the configuration gives: a.b.example.com (kubeadm join --control-plane refuses it; --force makes a new one)",
  ]);
  // --force replaces it (a new key and certificate with the SANs); everything else is kept.
  const forced = await buildControlPlanePki({
    spec: { ...spec, controlPlaneEndpoint: "192.0.2.100" },
    now: NOW,
    existing: tree,
    force: true,
  });
  assert.deepEqual(forced.files.map((f) => f.path), ["pki/apiserver.crt", "pki/apiserver.key"]);
  assert.ok(forced.lines.includes('[certs] Generating "apiserver" certificate and key'));
  assert.match(forced.lines.join("\n"), /and IPs \[10\.96\.0\.1 10\.0\.0\.10 192\.0\.2\.100\]/);
  assert.deepEqual(forced.warnings.filter((w) => w.includes("lacks")), []);
});

Deno.test("buildControlPlanePki() warns that several nodes without controlPlaneEndpoint cannot join as kubeadm control planes", async () => {
  const spec = controlPlanePkiSpec({ encryptionAlgorithm: "ECDSA-P256" });
  const nodes = [{ name: "cp-1", advertiseAddress: "10.0.0.11" }, {
    name: "cp-2",
    advertiseAddress: "10.0.0.12",
  }];
  const without = await buildControlPlanePki({ spec, nodes, now: NOW, existing: new Map() });
  assert.equal(without.warnings.filter((w) => w.includes("stable controlPlaneEndpoint")).length, 1);
  const withEndpoint = await buildControlPlanePki({
    spec: { ...spec, controlPlaneEndpoint: "cp.example.com" },
    nodes,
    now: NOW,
    existing: new Map(),
  });
  assert.deepEqual(withEndpoint.warnings.filter((w) => w.includes("controlPlaneEndpoint")), []);
  const one = await buildControlPlanePki({
    spec,
    nodes: nodes.slice(0, 1),
    now: NOW,
    existing: new Map(),
  });
  assert.deepEqual(one.warnings.filter((w) => w.includes("controlPlaneEndpoint")), []);
});

Deno.test("buildControlPlanePki() keeps a kubeconfig whose client certificate does not verify, as kubeadm does, and says so", async () => {
  const spec = controlPlanePkiSpec({
    ...SAMPLE,
    encryptionAlgorithm: "ECDSA-P256",
    certificateValidityMs: 3_600_000,
  });
  const a = readTreeOf(await buildControlPlanePki({ spec, now: NOW, existing: new Map() }));
  const b = readTreeOf(await buildControlPlanePki({ spec, now: NOW, existing: new Map() }));
  const noLeaves = new Map(
    [...a].filter(([f]) =>
      f.endsWith(".conf") || /^pki\/(ca|front-proxy-ca|etcd\/ca|sa)\./.test(f)
    ),
  );
  // Two hours later the kubeconfigs' client certificates have expired; the leaves are made anew.
  const later = await buildControlPlanePki({
    spec,
    now: new Date(NOW.getTime() + 2 * 3_600_000),
    existing: noLeaves,
  });
  const client = later.warnings.filter((w) => w.includes("client certificate"));
  assert.equal(client.length, 5);
  assert.match(
    client[0]!,
    /^admin\.conf: kept, but its client certificate does not verify: x509: certificate has expired or is not yet valid: .* \(kubeadm keeps it too; joinkit certs renew makes a new one\)$/,
  );
  assert.ok(later.lines.includes('[kubeconfig] Using existing kubeconfig file: "admin.conf"'));
  // Another CA's client certificate under this CA's data.
  const data = (m: Map<string, Uint8Array>) =>
    /client-certificate-data: (\S+)/.exec(Buffer.from(m.get("admin.conf")!).toString("utf8"))![1]!;
  const mixed = new Map(a);
  mixed.set(
    "admin.conf",
    Buffer.from(Buffer.from(a.get("admin.conf")!).toString("utf8").replace(data(a), data(b))),
  );
  const now = await buildControlPlanePki({ spec, now: NOW, existing: mixed });
  const other = now.warnings.filter((w) => w.includes("client certificate"));
  assert.equal(other.length, 1);
  assert.match(
    other[0]!,
    /^admin\.conf: kept, but its client certificate does not verify: x509: certificate signed by unknown authority/,
  );
  // A sound tree: no such warning.
  const fine = await buildControlPlanePki({ spec, now: NOW, existing: a });
  assert.deepEqual(fine.warnings.filter((w) => w.includes("client certificate")), []);
  // The node renamed: kubelet.conf still speaks for the old node.
  const renamed = await buildControlPlanePki({
    spec: { ...spec, nodeName: "cp-9" },
    now: NOW,
    existing: a,
  });
  assert.deepEqual(renamed.warnings.filter((w) => w.includes("client certificate")), [
    "kubelet.conf: kept, but its client certificate is O=system:nodes, CN=system:node:cp-1, not the configuration's O=system:nodes, CN=system:node:cp-9 (kubeadm keeps it too; remove the file to have it made anew)",
  ]);
});
