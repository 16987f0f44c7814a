import assert from "node:assert/strict";
import { parseManifests } from "../../lib/k8s/manifest.ts";
import { parseHostPortError, readInitConfiguration } from "../../lib/kubeadm/init_config.ts";
import { NODE_BOOTSTRAP_TOKEN_GROUP } from "../../lib/tokens/token.ts";

const read = (text: string) => readInitConfiguration(parseManifests(text, "k.yaml"), "k.yaml");
const H24 = 24 * 3_600_000;

// v1beta4 doc.go's InitConfiguration example tokens (join-material.md vector 14).
const DOC = `apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
bootstrapTokens:
- token: "9a08jv.c0izixklcxtmnze7"
  description: "kubeadm bootstrap token"
  ttl: "24h"
- token: "783bde.3f89s0fje9f38fhf"
  description: "another bootstrap token"
  usages:
  - authentication
  - signing
  groups:
  - system:bootstrappers:kubeadm:default-node-token
localAPIEndpoint:
  advertiseAddress: "10.100.0.1"
  bindPort: 6443
certificateKey: "e6a2eb8581237ab72a4f494f30285ec12a9694d750b9785706a83bfcbbbd2204"
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
controlPlaneEndpoint: "10.100.0.1:6443"
`;

Deno.test("readInitConfiguration() reads the doc.go example's tokens, defaulted", () => {
  const c = read(DOC);
  assert.equal(c.version, "v1beta4");
  assert.deepEqual(c.warnings, []);
  assert.deepEqual(c.bootstrapTokens.map((t) => [t.token?.id, t.description, t.ttlMs]), [
    ["9a08jv", "kubeadm bootstrap token", H24],
    ["783bde", "another bootstrap token", H24],
  ]);
  assert.deepEqual(c.bootstrapTokens[0]!.usages, ["signing", "authentication"]);
  assert.deepEqual(c.bootstrapTokens[0]!.groups, [NODE_BOOTSTRAP_TOKEN_GROUP]);
  assert.equal(c.joinEndpoint, "10.100.0.1:6443");
});

Deno.test("readInitConfiguration() defaults: one generated token; ttl 0 kept; the endpoint gets bindPort", () => {
  const only = read("apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\n");
  assert.equal(only.bootstrapTokens.length, 1);
  assert.equal(only.bootstrapTokens[0]!.token, undefined, "generated at run time");
  assert.equal(only.joinEndpoint, undefined);
  assert.match(only.warnings[0]!, /deprecated API spec: "kubeadm.k8s.io\/v1beta3"/);
  const zero = read(
    "apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\nbootstrapTokens: [{ttl: 0s}]\n",
  );
  assert.equal(zero.bootstrapTokens[0]!.ttlMs, 0, "an explicit 0 never expires");
  const cases: [string, string, string | undefined][] = [
    ["cp.example.com", "", "cp.example.com:6443"],
    ["cp.example.com:443", "", "cp.example.com:443"],
    ["fd00::1", "", "[fd00::1]:6443"],
    ["", "localAPIEndpoint: {advertiseAddress: 10.0.0.5, bindPort: 7443}\n", "10.0.0.5:7443"],
    ["cp.example.com", "localAPIEndpoint: {bindPort: 7443}\n", "cp.example.com:7443"],
  ];
  for (const [cpe, local, want] of cases) {
    const c = read(
      `apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\n${local}---\napiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n${
        cpe ? `controlPlaneEndpoint: "${cpe}"\n` : ""
      }`,
    );
    assert.equal(c.joinEndpoint, want, cpe + local);
  }
});

Deno.test("readInitConfiguration() refuses what kubeadm refuses, with its texts, token values withheld", () => {
  const init = "apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\n";
  const cases: [string, RegExp][] = [
    [
      "apiVersion: apps/v1\nkind: Deployment\n",
      /^k\.yaml: no InitConfiguration or ClusterConfiguration kind was found in the YAML file$/,
    ],
    [
      // SplitYAMLDocuments wants a group: a core object is refused (kubeadm v1.32.5 agrees).
      "apiVersion: v1\nkind: ConfigMap\n",
      /^k\.yaml: invalid configuration for GroupVersionKind \/v1, Kind=ConfigMap: kind and apiVersion is mandatory/,
    ],
    [
      "apiVersion: kubeadm.k8s.io/v1beta2\nkind: InitConfiguration\n",
      /old API spec: "kubeadm\.k8s\.io\/v1beta2"\. Please use kubeadm v1\.22/,
    ],
    [
      "apiVersion: kubeadm.k8s.io/v1beta9\nkind: InitConfiguration\n",
      /unknown configuration API "kubeadm\.k8s\.io\/v1beta9"/,
    ],
    [
      init + "---\n" + init,
      /^k\.yaml: invalid configuration: kind "InitConfiguration" is specified twice in YAML file$/,
    ],
    [
      init + "bootstrapTokens: [{token: ABCDEF.0123456789abcdef}]\n",
      /bootstrapTokens\[0\]\.token: the bootstrap token was not of the form/,
    ],
    [
      init + "bootstrapTokens: [{ttl: forever}]\n",
      /bootstrapTokens\[0\]\.ttl: time: invalid duration "forever"/,
    ],
    [
      init + "bootstrapTokens: [{expires: tomorrow}]\n",
      /bootstrapTokens\[0\]\.expires: parsing time "tomorrow"/,
    ],
    // SetDefaults_BootstrapToken sets the TTL even when expires is given.
    [
      init + 'bootstrapTokens: [{expires: "2030-01-01T00:00:00Z"}]\n',
      /^k\.yaml: bootstrapTokens\.0: Invalid value: "": the BootstrapToken \.TTL and \.Expires fields are mutually exclusive$/,
    ],
    [
      init + "bootstrapTokens: [{usages: [signing, foo]}]\n",
      /^k\.yaml: \[bootstrapTokens\.0\.usages: Invalid value: \[\]string\{"signing", "foo"\}: invalid bootstrap token usage string: foo, valid usage options: signing,authentication, bootstrapTokens\.0\.groups: Invalid value: \[\]string\{"system:bootstrappers:kubeadm:default-node-token"\}: token groups cannot be specified unless --usages includes "authentication"\]$/,
    ],
    [
      init + "bootstrapTokens: [{groups: [system:masters]}]\n",
      /bootstrapTokens\.0\.groups: Invalid value: \[\]string\{"system:masters"\}: bootstrap group "system:masters" is invalid/,
    ],
    [
      init +
      "---\napiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\ncontrolPlaneEndpoint: bad_host:6443\n",
      // SetClusterDynamicDefaults parses it before validation (kubeadm v1.32.5 says the same).
      /^k\.yaml: hostport bad_host:6443: host 'bad_host' must be a valid IP address or a valid RFC-1123 DNS subdomain$/,
    ],
    [
      init + "localAPIEndpoint: {advertiseAddress: cp.local}\n",
      /couldn't use "cp\.local" as "apiserver-advertise-address"/,
    ],
    [
      init + "bootstrapTokens: {token: x}\n",
      /bootstrapTokens: cannot unmarshal object into a list/,
    ],
  ];
  for (const [text, re] of cases) {
    assert.throws(() => read(text), (e: Error) => {
      assert.match(e.message, re, text);
      assert.ok(!e.message.includes("0123456789abcdef"), e.message);
      return true;
    });
  }
});

Deno.test("readInitConfiguration() warns as kubeadm does: unknown fields, other documents", () => {
  // A component config (kubelet, kube-proxy) is a known group: kubeadm does not call it ignored.
  const c = read(
    "apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\ncolour: red\nbootstrapTokens: [{token: abcdef.0123456789abcdef, size: 1}]\n---\napiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n---\napiVersion: apps/v1\nkind: Deployment\n",
  );
  assert.deepEqual(c.warnings, [
    "[config] WARNING: Ignored YAML document with GroupVersionKind apps/v1, Kind=Deployment",
    `strict decoding error: unknown field "colour"`,
    `strict decoding error: unknown field "bootstrapTokens[0].size"`,
  ]);
});

Deno.test("parseHostPortError() follows kubeadm's ParseHostPort", () => {
  const ok = [
    "10.0.0.1",
    "10.0.0.1:6443",
    "cp.example.com",
    "cp.example.com:443",
    "[fd00::1]:6443",
    "fd00::1",
  ];
  for (const e of ok) assert.equal(parseHostPortError(e), undefined, e);
  assert.equal(
    parseHostPortError("cp:0"),
    "hostport cp:0: port 0 must be a valid number between 1 and 65535, inclusive",
  );
  assert.equal(
    parseHostPortError("Bad_Host"),
    "hostport Bad_Host: host 'Bad_Host' must be a valid IP address or a valid RFC-1123 DNS subdomain",
  );
});

Deno.test("readInitConfiguration() config: the whole defaulted Init+ClusterConfiguration", () => {
  const d = read("apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\n").config;
  assert.equal(d.cluster.clusterName, "kubernetes");
  assert.equal(d.cluster.certificatesDir, "/etc/kubernetes/pki");
  assert.deepEqual(d.cluster.networking, {
    serviceSubnet: "10.96.0.0/12",
    podSubnet: "",
    dnsDomain: "cluster.local",
  });
  assert.equal(d.cluster.encryptionAlgorithm, "RSA-2048");
  assert.equal(d.cluster.certificateValidityPeriodMs, 8760 * 3_600_000);
  assert.equal(d.cluster.caCertificateValidityPeriodMs, 87600 * 3_600_000);
  assert.equal(d.cluster.etcd.local?.dataDir, "/var/lib/etcd");
  assert.equal(d.cluster.kubernetesVersion, "stable-1");
  assert.equal(d.localAPIEndpoint.bindPort, 6443);
  assert.equal(d.nodeRegistration.name, undefined, "the host's name: filled by kubeadm");
  const c = readInitConfiguration(
    parseManifests(
      `apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
nodeRegistration: {name: " CP-1 "}
localAPIEndpoint: {advertiseAddress: 10.0.0.5, bindPort: 7443}
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: "1.32.5"
clusterName: prod
certificatesDir: /srv/pki
controlPlaneEndpoint: cp.example.com
networking: {serviceSubnet: "10.100.0.0/16,fd00:10:96::/112", podSubnet: 10.244.0.0/16, dnsDomain: prod.local}
apiServer: {certSANs: [API.Example.com, 10.0.0.9]}
etcd: {local: {serverCertSANs: [etcd.local], peerCertSANs: [10.0.0.5]}}
encryptionAlgorithm: ECDSA-P256
certificateValidityPeriod: 48h
caCertificateValidityPeriod: 8760h
`,
      "k.yaml",
    ),
    "k.yaml",
    { hostname: "ignored" },
  ).config;
  assert.equal(c.nodeRegistration.name, "cp-1");
  assert.equal(c.cluster.kubernetesVersion, "v1.32.5");
  assert.equal(c.cluster.controlPlaneEndpoint, "cp.example.com:7443");
  assert.deepEqual(c.cluster.apiServer.certSANs, ["api.example.com", "10.0.0.9"]);
  assert.deepEqual(c.cluster.etcd.local?.serverCertSANs, ["etcd.local"]);
  assert.equal(c.cluster.encryptionAlgorithm, "ECDSA-P256");
  assert.equal(c.cluster.certificateValidityPeriodMs, 48 * 3_600_000);
  assert.equal(c.localAPIEndpoint.advertiseAddress, "10.0.0.5");
  assert.equal(c.cluster.networking.dnsDomain, "prod.local");
});

Deno.test("decodeClusterConfiguration() keeps a feature gate given as null, set false (encoding/json's zero value), as kubeadm does", async () => {
  const { decodeClusterConfiguration } = await import("../../lib/kubeadm/cluster_config.ts");
  const { DocReader } = await import("../../lib/kubeadm/api.ts");
  const [doc] = parseManifests(
    "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nfeatureGates: {PublicKeysECDSA: null, RootlessControlPlane: true}\n",
  );
  const c = decodeClusterConfiguration(new DocReader("f"), doc, "v1beta4");
  assert.deepEqual(c.featureGates, { PublicKeysECDSA: false, RootlessControlPlane: true });
});
