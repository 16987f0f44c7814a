import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { Buffer } from "node:buffer";
import {
  clusterInfoKubeconfig,
  tokenKubeconfig,
} from "../../lib/discovery/bootstrap_kubeconfig.ts";
import { goResolvesNonString } from "../../lib/k8s/manifest.ts";
import { kubeconfigYaml } from "../../lib/k8s/kubeconfig_yaml.ts";
import { clusterOf, parseKubeconfig } from "../../lib/k8s/kubeconfig_read.ts";
import {
  getClusterFromKubeConfig,
  KubeconfigLoadError,
  loadKubeconfig,
  type ParsedKubeconfig,
} from "../../lib/k8s/kubeconfig_read.ts";
import { InputError } from "../../lib/base/errors.ts";
import { repoPath, runCli, tempDir } from "../_cli.ts";

const CA = repoPath("examples/demo/ca.crt");
const UPSTREAM_CA = repoPath("tests/fixtures/discovery/ca-cert.pem");
const NOW = ["--now", "2026-01-01T00:00:00Z"];

/** What kubectl v1.32 writes for the bootstrap kubeconfig, through a temporary KUBECONFIG. */
function kubectlBootstrap(
  dir: string,
  server: string,
  caFile: string,
  cluster: string,
  user: string,
  token: string,
): string {
  const file = path.join(dir, `kubectl-${Math.random().toString(36).slice(2)}.conf`);
  const env = { ...process.env, KUBECONFIG: file };
  const k = (...args: string[]) =>
    execFileSync("kubectl", ["config", ...args], { env, stdio: ["ignore", "ignore", "pipe"] });
  k(
    "set-cluster",
    `--server=${server}`,
    `--certificate-authority=${caFile}`,
    "--embed-certs=true",
    "--",
    cluster,
  );
  k("set-credentials", `--token=${token}`, "--", user);
  k("set-context", `--cluster=${cluster}`, `--user=${user}`, "--", `${user}@${cluster}`);
  k("use-context", "--", `${user}@${cluster}`);
  return fs.readFileSync(file, "utf8");
}

Deno.test("kubeconfigYaml() reproduces upstream discovery testdata expected-kubeconfig.yaml", () => {
  const want = fs.readFileSync(
    repoPath("tests/fixtures/discovery/expected-kubeconfig.yaml"),
    "utf8",
  );
  const ca = fs.readFileSync(UPSTREAM_CA);
  const got = kubeconfigYaml({
    apiVersion: "v1",
    clusters: [{
      cluster: {
        "certificate-authority-data": Buffer.from(ca).toString("base64"),
        server: "https://127.0.0.1",
      },
      name: "somecluster",
    }],
    contexts: [{
      context: { cluster: "somecluster", user: "token-bootstrap-client" },
      name: "token-bootstrap-client@somecluster",
    }],
    "current-context": "token-bootstrap-client@somecluster",
    kind: "Config",
    users: null,
  });
  assert.equal(got, want);
  assert.equal(Buffer.byteLength(got), 1686);
});

Deno.test("clusterInfoKubeconfig() has kubeadm's shape: one unnamed cluster, null lists", () => {
  const ca = fs.readFileSync(CA);
  assert.equal(
    kubeconfigYaml(clusterInfoKubeconfig("https://10.0.0.1:6443", ca)),
    `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: ${Buffer.from(ca).toString("base64")}
    server: https://10.0.0.1:6443
  name: ""
contexts: null
current-context: ""
kind: Config
users: null
`,
  );
});

Deno.test("tokenKubeconfig() is byte-identical to kubectl config for awkward names and tokens", () => {
  const { dir, cleanup } = tempDir();
  try {
    const values = [
      "kubernetes",
      "123456.1234560123456789", // a float to YAML: quoted
      "123456.1e10000000000000", // overflows float64: Go leaves it plain
      "000000.0000000000000000",
      "yes",
      "on",
      "null",
      "0x1F",
      "0o17",
      "010",
      "08",
      "1_000",
      "12:30",
      "2001-01-01",
      "~",
      "-",
      "'q'",
      "a: b",
      "#x",
      " lead",
      "system:node:foo",
      "it's",
      "99999999999999999999",
      ".5",
    ];
    const ca = fs.readFileSync(CA);
    for (const v of values) {
      const want = kubectlBootstrap(dir, "https://10.0.0.1:6443", CA, v, v, v);
      const got = kubeconfigYaml(
        tokenKubeconfig({
          server: "https://10.0.0.1:6443",
          caData: ca,
          token: v,
          clusterName: v,
          user: v,
        }),
      );
      assert.equal(got, want, JSON.stringify(v));
    }
  } finally {
    cleanup();
  }
});

Deno.test("goResolvesNonString() follows go-yaml v2's resolver", () => {
  for (const s of ["true", "Y", "off", "~", "", "1", "-1", "0b101", "1e3", "1.5", ".inf", "1:20"]) {
    assert.equal(goResolvesNonString(s), true, s);
  }
  for (const s of ["abc", "1e400", "0o8", "1.2.3", "a1", "<<", "-"]) {
    assert.equal(goResolvesNonString(s), false, s);
  }
});

Deno.test("parseKubeconfig() and clusterOf() read the current context's cluster", () => {
  const text = fs.readFileSync(
    repoPath("tests/fixtures/discovery/expected-kubeconfig.yaml"),
    "utf8",
  );
  const parsed = parseKubeconfig(text, "kc");
  const c = clusterOf(parsed)!;
  assert.equal(c.name, "somecluster");
  assert.equal(c.server, "https://127.0.0.1");
  assert.deepEqual(c.caData, new Uint8Array(fs.readFileSync(UPSTREAM_CA)));
  assert.throws(
    () => parseKubeconfig("clusters: [", "kc"),
    /^InputError: kc: error converting YAML to JSON: yaml: /,
  );
  assert.throws(
    () => parseKubeconfig("- a\n", "kc"),
    /^InputError: kc: couldn't get version\/kind; json parse error: json: cannot unmarshal array/,
  );
  assert.throws(
    () => parseKubeconfig("kind: Pod\n", "kc"),
    /^InputError: kc: no kind "Pod" is registered for version "v1" in scheme/,
  );
  assert.equal(clusterOf(parseKubeconfig("kind: Config\n", "kc")), undefined);
});

Deno.test("CLI kubeconfig bootstrap is byte-identical to kubectl and writes 0600 atomically", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const token = "abcdef.0123456789abcdef";
    const want = kubectlBootstrap(
      dir,
      "https://cp.example:6443",
      CA,
      "kubernetes",
      "tls-bootstrap-token-user",
      token,
    );
    const r = await runCli([
      "kubeconfig",
      "bootstrap",
      "--server",
      "https://cp.example:6443",
      "--ca",
      CA,
      "--token",
      token,
      ...NOW,
    ]);
    assert.equal(r.stderr, "");
    assert.equal(r.code, 0);
    assert.equal(r.stdout, want);

    const out = path.join(dir, "bootstrap-kubelet.conf");
    const w = await runCli([
      "kubeconfig",
      "bootstrap",
      "--server",
      "https://cp.example:6443",
      "--ca",
      CA,
      "--token",
      token,
      "--out",
      out,
    ]);
    assert.equal(w.code, 0, w.stderr);
    assert.equal(w.stdout, "");
    assert.equal(fs.readFileSync(out, "utf8"), want);
    assert.equal(fs.statSync(out).mode & 0o777, 0o600);
    assert.doesNotMatch(w.stderr, /0123456789abcdef/);

    // Already exists: refused, file unchanged; --force replaces it.
    fs.writeFileSync(out, "old\n");
    const again = await runCli([
      "kubeconfig",
      "bootstrap",
      "--server",
      "https://cp.example:6443",
      "--ca",
      CA,
      "--token",
      token,
      "--out",
      out,
    ]);
    assert.equal(again.code, 1);
    assert.equal(again.stderr, `error: ${out}: already exists (use --force to overwrite)\n`);
    assert.equal(fs.readFileSync(out, "utf8"), "old\n");
    const forced = await runCli([
      "kubeconfig",
      "bootstrap",
      "--server",
      "https://cp.example:6443",
      "--ca",
      CA,
      "--token",
      token,
      "--out",
      out,
      "--force",
    ]);
    assert.equal(forced.code, 0);
    assert.equal(fs.readFileSync(out, "utf8"), want);

    // Other cluster and user names.
    const want2 = kubectlBootstrap(
      dir,
      "https://10.0.0.1:6443",
      CA,
      "prod",
      "system:bootstrap:abcdef",
      token,
    );
    const r2 = await runCli([
      "kubeconfig",
      "bootstrap",
      "--server",
      "https://10.0.0.1:6443",
      "--ca",
      CA,
      "--token",
      token,
      "--cluster-name",
      "prod",
      "--user",
      "system:bootstrap:abcdef",
    ]);
    assert.equal(r2.stdout, want2);
  } finally {
    cleanup();
  }
});

Deno.test("CLI kubeconfig bootstrap rejects bad --server, CA and token", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const noCert = path.join(dir, "empty.crt");
    fs.writeFileSync(noCert, "hello\n");
    const token = "abcdef.0123456789abcdef";
    const cases: [string[], number, RegExp][] = [
      [
        ["--server", "http://10.0.0.1:6443", "--ca", CA, "--token", token],
        2,
        /must start with https:\/\//,
      ],
      [
        ["--server", "https://10.0.0.1:0", "--ca", CA, "--token", token],
        2,
        /port must be a number from 1 to 65535/,
      ],
      [["--server", "https://10.0.0.1:65536", "--ca", CA, "--token", token], 2, /port must be/],
      [["--server", "https://10.0.0.1", "--ca", CA, "--token", token], 2, /want HOST:PORT/],
      [
        ["--server", "https://10.0.0.1:6443", "--ca", noCert, "--token", token],
        1,
        /empty\.crt: no certificate found/,
      ],
      [
        ["--server", "https://10.0.0.1:6443", "--ca", CA, "--token", "abcdef.0123456789ABCDEF"],
        2,
        /token/,
      ],
      [["--server", "https://10.0.0.1:6443", "--token", token], 2, /--ca/],
      [
        [
          "--server",
          "https://10.0.0.1:6443",
          "--ca",
          CA,
          "--token",
          token,
          "--unsafe-skip-ca-verification",
        ],
        2,
        /--unsafe-skip-ca-verification goes with --cluster-info/,
      ],
      [
        [
          "--server",
          "https://10.0.0.1:6443",
          "--ca",
          repoPath("tests/fixtures/discovery/leaf-not-ca.pem"),
          "--token",
          token,
        ],
        1,
        /leaf-not-ca\.pem: ca certificate is not a certificate authority$/m,
      ],
      [
        [
          "--server",
          "https://10.0.0.1:6443",
          "--ca",
          repoPath("tests/fixtures/discovery/certs-pem/good-plus-garbage-der.pem"),
          "--token",
          token,
        ],
        1,
        /good-plus-garbage-der\.pem: x509: malformed certificate$/m,
      ],
    ];
    for (const [args, code, re] of cases) {
      const r = await runCli(["kubeconfig", "bootstrap", ...args]);
      assert.equal(r.code, code, args.join(" ") + r.stderr);
      assert.equal(r.stdout, "");
      assert.match(r.stderr, re);
      assert.match(r.stderr, /^error: [^\n]+\n$/);
      assert.doesNotMatch(r.stderr, /0123456789/);
    }
  } finally {
    cleanup();
  }
});

Deno.test("CLI kubeconfig bootstrap --cluster-info takes server and CA from a verified cluster-info", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const token = "abcdef.0123456789abcdef";
    const ci = await runCli([
      "cluster-info",
      "create",
      "--server",
      "https://cp.example:6443",
      "--ca",
      CA,
      "--token",
      token,
      ...NOW,
    ]);
    assert.equal(ci.code, 0, ci.stderr);
    const file = path.join(dir, "ci.yaml");
    fs.writeFileSync(file, ci.stdout);
    const want = await runCli([
      "kubeconfig",
      "bootstrap",
      "--server",
      "https://cp.example:6443",
      "--ca",
      CA,
      "--token",
      token,
    ]);
    const hash = (await runCli(["ca", "hash", CA])).stdout.trim();

    const pinned = await runCli([
      "kubeconfig",
      "bootstrap",
      "--cluster-info",
      file,
      "--token",
      token,
      "--ca-cert-hash",
      hash,
    ]);
    assert.equal(pinned.code, 0, pinned.stderr);
    assert.equal(pinned.stdout, want.stdout);
    assert.match(
      pinned.stderr,
      /signature for token ID "abcdef" is valid; CA certificate 1 is pinned/,
    );

    // No pin: refused as kubeadm join refuses it, unless explicitly unsafe.
    const noPin = await runCli([
      "kubeconfig",
      "bootstrap",
      "--cluster-info",
      file,
      "--token",
      token,
    ]);
    // A flag rule, so a usage error (issue 10; it was 3).
    assert.equal(noPin.code, 2, noPin.stderr);
    assert.equal(noPin.stdout, "");
    assert.equal(
      noPin.stderr,
      `error: discovery.bootstrapToken.caCertHashes: Invalid value: "": using token-based discovery without caCertHashes can be unsafe. Set unsafeSkipCAVerification as true in your kubeadm config file or pass --discovery-token-unsafe-skip-ca-verification flag to continue\n`,
    );
    for (
      const flag of [
        "--unsafe-skip-ca-verification",
        "--discovery-token-unsafe-skip-ca-verification",
      ]
    ) {
      const unpinned = await runCli([
        "kubeconfig",
        "bootstrap",
        "--cluster-info",
        file,
        "--token",
        token,
        flag,
      ]);
      assert.equal(unpinned.code, 0, unpinned.stderr);
      assert.equal(unpinned.stdout, want.stdout);
      assert.match(unpinned.stderr, /CA NOT pinned \(unsafe\)/);
    }
    const kubeadmSpelling = await runCli([
      "kubeconfig",
      "bootstrap",
      "--cluster-info",
      file,
      "--token",
      token,
      "--discovery-token-ca-cert-hash",
      hash,
    ]);
    assert.equal(kubeadmSpelling.code, 0, kubeadmSpelling.stderr);
    assert.equal(kubeadmSpelling.stdout, want.stdout);

    const cases: [string[], number, RegExp][] = [
      [["--token", "abcdef.0123456789abcdee"], 3, /failed to verify JWS signature/],
      [
        ["--token", "zzzzzz.0123456789abcdef"],
        3,
        /could not find a JWS signature .* token ID "zzzzzz"/,
      ],
      [
        ["--token", token, "--ca-cert-hash", "sha256:" + "0".repeat(64)],
        3,
        /none of the public keys/,
      ],
      [
        ["--token", token, "--server", "https://a:1"],
        2,
        /--cluster-info replaces --server and --ca/,
      ],
      [["--token", token, "--cluster-name", ""], 2, /--cluster-name must not be empty/],
    ];
    for (const [args, code, re] of cases) {
      const r = await runCli([
        "kubeconfig",
        "bootstrap",
        "--cluster-info",
        file,
        "--unsafe-skip-ca-verification",
        ...args,
      ]);
      assert.equal(r.code, code, args.join(" ") + ": " + r.stderr);
      assert.equal(r.stdout, "");
      assert.match(r.stderr, re);
      assert.ok(!r.stderr.includes("0123456789"));
    }
  } finally {
    cleanup();
  }
});

// ---------------------------------------------------------------------------
// clientcmd.Load and GetClusterFromKubeConfig (go-exact.md §5, vectors 37-38).

const LOAD_OK: [string, string, (k: ParsedKubeconfig) => void][] = [
  ["empty input is an empty Config", "", (k) => assert.deepEqual(k.clusters, [])],
  ["a null document is an empty Config", "null\n", (k) => assert.deepEqual(k.clusters, [])],
  [
    "unknown fields (api-version) are ignored",
    "api-version: v1\nkind: Config\nclusters:\n- api-version: v1\n  name: a\n  cluster:\n    server: https://a\n    api-version: x\n",
    (k) => assert.deepEqual(k.clusters.map((c) => [c.name, c.server]), [["a", "https://a"]]),
  ],
  [
    "field names are case-sensitive (Clusters is unknown)",
    "Clusters:\n- name: a\n",
    (k) => assert.deepEqual(k.clusters, []),
  ],
  [
    'an entry without name is the cluster named ""',
    "clusters:\n- cluster:\n    server: https://x\n",
    (k) => assert.deepEqual(k.clusters.map((c) => [c.name, c.server]), [["", "https://x"]]),
  ],
  [
    'a null list entry is the cluster named ""',
    "clusters:\n- null\n",
    (k) => assert.deepEqual(k.clusters.map((c) => c.name), [""]),
  ],
  [
    "certificate-authority-data: std base64 with newlines ignored",
    "clusters:\n- name: a\n  cluster:\n    certificate-authority-data: |\n      YWJj\n      ZGVm\n",
    (k) => assert.equal(Buffer.from(k.clusters[0]!.caData).toString(), "abcdef"),
  ],
  [
    "a repeated YAML key: the last wins (non-strict YAMLToJSON)",
    "current-context: a\ncurrent-context: b\n",
    (k) => assert.equal(k.currentContext, "b"),
  ],
  [
    "the same name in different lists is fine",
    "clusters:\n- name: x\nusers:\n- name: x\ncontexts:\n- name: x\n  context:\n    cluster: x\n",
    (k) => assert.equal(k.contextClusters.get("x"), "x"),
  ],
  [
    "a timestamp-looking value is a string (go-yaml v2)",
    "current-context: 2001-12-14\n",
    (k) => assert.equal(k.currentContext, "2001-12-14"),
  ],
  [
    "apiVersion v1 and kind Config given explicitly",
    "apiVersion: v1\nkind: Config\n",
    (k) => assert.equal(k.currentContext, ""),
  ],
];
for (const [what, text, check] of LOAD_OK) {
  Deno.test(`loadKubeconfig() accepts: ${what}`, () => check(loadKubeconfig(text)));
}

const dup = (list: string, name: string, extra = "") =>
  `${list}:\n- name: ${name}\n  api-version: v1${extra}\n- name: ${name}\n  api-version: v1${extra}\n`;
const LOAD_BAD: [string, string, string][] = [
  // c-g tools/clientcmd/loader_test.go TestDuplicate*Name (vector 37).
  [
    "two clusters named kubeconfig-cluster",
    dup("clusters", "kubeconfig-cluster"),
    'error converting *[]NamedCluster into *map[string]*api.Cluster: duplicate name "kubeconfig-cluster" in list',
  ],
  [
    "two users named kubeconfig-user",
    dup("users", "kubeconfig-user"),
    'error converting *[]NamedAuthInfo into *map[string]*api.AuthInfo: duplicate name "kubeconfig-user" in list',
  ],
  [
    "two contexts named kubeconfig-context",
    dup("contexts", "kubeconfig-context"),
    'error converting *[]NamedContext into *map[string]*api.Context: duplicate name "kubeconfig-context" in list',
  ],
  [
    "two extensions named test-extension",
    dup("extensions", "test-extension"),
    'error converting *[]NamedExtension into *map[string]runtime.Object: duplicate name "test-extension" in list',
  ],
  [
    "two extensions of one cluster",
    "clusters:\n- name: a\n  cluster:\n    extensions:\n    - name: e\n    - name: e\n",
    'error converting *[]NamedExtension into *map[string]runtime.Object: duplicate name "e" in list',
  ],
  [
    "two unnamed clusters",
    "clusters:\n- cluster: {server: https://a}\n- cluster: {server: https://b}\n",
    'error converting *[]NamedCluster into *map[string]*api.Cluster: duplicate name "" in list',
  ],
  [
    "clusters are converted before users (v1.Config field order)",
    dup("users", "u") + dup("clusters", "c"),
    'error converting *[]NamedCluster into *map[string]*api.Cluster: duplicate name "c" in list',
  ],
  [
    "bad base64 in certificate-authority-data",
    "clusters:\n- name: a\n  cluster:\n    certificate-authority-data: 'YW Jj'\n",
    "illegal base64 data at input byte 2",
  ],
  [
    "unpadded base64",
    "clusters:\n- name: a\n  cluster:\n    certificate-authority-data: YWJjZA\n",
    "illegal base64 data at input byte 4",
  ],
  [
    "a number where a name belongs",
    "users:\n- name: 279979740599990001\n",
    "json: cannot unmarshal number into Go struct field NamedAuthInfo.users.name of type string",
  ],
  [
    "a number as server",
    "clusters:\n- name: a\n  cluster:\n    server: 6443\n",
    "json: cannot unmarshal number into Go struct field Cluster.clusters.cluster.server of type string",
  ],
  [
    "a YAML 1.1 boolean as a name",
    "contexts:\n- name: yes\n",
    "json: cannot unmarshal bool into Go struct field NamedContext.contexts.name of type string",
  ],
  [
    "a string where the list belongs",
    "clusters: abc\n",
    "json: cannot unmarshal string into Go struct field Config.clusters of type []v1.NamedCluster",
  ],
  [
    "the first type error in sorted key order (cluster before name)",
    "clusters:\n- name: 1\n  cluster:\n    server: 2\n",
    "json: cannot unmarshal number into Go struct field Cluster.clusters.cluster.server of type string",
  ],
  [
    "a list document",
    "- a\n",
    "couldn't get version/kind; json parse error: json: cannot unmarshal array",
  ],
  ["another kind", "kind: Pod\n", 'no kind "Pod" is registered for version "v1" in scheme'],
  [
    "another version",
    "apiVersion: v2\n",
    'no kind "Config" is registered for version "v2" in scheme',
  ],
  ["broken YAML", "clusters: [\n", "error converting YAML to JSON: yaml: "],
];
for (const [what, text, message] of LOAD_BAD) {
  Deno.test(`loadKubeconfig() refuses: ${what}`, () => {
    assert.throws(() => loadKubeconfig(text), (e: unknown) => {
      assert.ok(e instanceof KubeconfigLoadError, String(e));
      assert.ok(e.message.startsWith(message), `${e.message}\n  wanted: ${message}`);
      assert.ok(!e.message.includes("\n"));
      return true;
    });
  });
}

const CHOOSE: [string, string, string | RegExp][] = [
  // Vector 38 and k/k#134715.
  [
    "the unnamed cluster wins over a named one and the current context",
    "clusters:\n- name: other\n  cluster: {server: https://other}\n- name: ''\n  cluster: {server: https://unnamed}\ncontexts:\n- name: c\n  context: {cluster: other}\ncurrent-context: c\n",
    "https://unnamed",
  ],
  [
    "else the current context's cluster",
    "clusters:\n- name: a\n  cluster: {server: https://a}\n- name: b\n  cluster: {server: https://b}\ncontexts:\n- name: c\n  context: {cluster: b}\ncurrent-context: c\n",
    "https://b",
  ],
  [
    "a lone named cluster without current context is not chosen",
    "clusters:\n- name: prod\n  cluster: {server: https://prod}\n",
    /^no unnamed cluster, and the current context "" is not in the kubeconfig$/,
  ],
  [
    "current-context naming a missing context",
    "clusters:\n- name: a\n  cluster: {server: https://a}\ncurrent-context: gone\n",
    /^no unnamed cluster, and the current context "gone" is not in the kubeconfig$/,
  ],
  [
    "a context naming a missing cluster",
    "clusters:\n- name: a\n  cluster: {server: https://a}\ncontexts:\n- name: c\n  context: {cluster: b}\ncurrent-context: c\n",
    /^cluster "b" of the current context "c" is not in the kubeconfig$/,
  ],
  [
    'current-context "" looks up a context named ""',
    "clusters:\n- name: a\n  cluster: {server: https://a}\ncontexts:\n- context: {cluster: a}\n",
    "https://a",
  ],
];
for (const [what, text, want] of CHOOSE) {
  Deno.test(`getClusterFromKubeConfig(): ${what}`, () => {
    const k = loadKubeconfig(text);
    if (typeof want === "string") {
      assert.equal(getClusterFromKubeConfig(k).cluster.server, want);
    } else {
      assert.throws(() => getClusterFromKubeConfig(k), (e: unknown) => {
        assert.ok(e instanceof InputError);
        assert.match(e.message, want);
        return true;
      });
      assert.equal(clusterOf(k), undefined);
    }
  });
}
