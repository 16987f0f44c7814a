import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import process from "node:process";
import { Buffer } from "node:buffer";
import { checkDiscoveryFile, discoveryFileKubeconfig } from "../../lib/discovery/discovery_file.ts";
import { clusterInfoKubeconfig } from "../../lib/discovery/bootstrap_kubeconfig.ts";
import { kubeconfigYaml } from "../../lib/k8s/kubeconfig_yaml.ts";
import { CheckError } from "../../lib/base/errors.ts";
import { repoPath, runCli, tempDir } from "../_cli.ts";

const CA = repoPath("examples/demo/ca.crt");
const CA_B64 = fs.readFileSync(CA).toString("base64");
const NOW = ["--now", "2026-12-01T00:00:00Z"];
const TOKEN = "abcdef.0123456789abcdef";
const SERVER = "https://10.0.0.1:6443";
const OTHER_PIN = "sha256:" + "ab".repeat(32);

function hasKubectl(): boolean {
  try {
    execFileSync("kubectl", ["version", "--client"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
const KUBECTL = hasKubectl();

/** kubectl config against a temporary KUBECONFIG; returns the file's bytes. */
function kubectl(file: string, ...cmds: string[][]): string {
  const env = { ...process.env, KUBECONFIG: file };
  for (const args of cmds) {
    execFileSync("kubectl", ["config", ...args], { env, stdio: ["ignore", "ignore", "pipe"] });
  }
  return fs.readFileSync(file, "utf8");
}

/** What kubectl writes for the token discovery file (set-cluster/credentials/context, use-context). */
function kubectlTokenFile(dir: string, server: string, caFile: string, token: string): string {
  const cluster = "kubernetes";
  const user = "tls-bootstrap-token-user";
  return kubectl(
    path.join(dir, `k-${Math.random().toString(36).slice(2)}.conf`),
    [
      "set-cluster",
      `--server=${server}`,
      `--certificate-authority=${caFile}`,
      "--embed-certs=true",
      "--",
      cluster,
    ],
    ["set-credentials", `--token=${token}`, "--", user],
    ["set-context", `--cluster=${cluster}`, `--user=${user}`, "--", `${user}@${cluster}`],
    ["use-context", "--", `${user}@${cluster}`],
  );
}

/**
 * What kubectl writes back for cluster-info's kubeconfig (kubectl cannot name
 * a cluster "", so the file is cluster-info's, and any kubectl config edit
 * rewrites it: add a user, then unset it).
 */
function kubectlClusterInfoFile(dir: string, server: string, caBytes: Uint8Array): string {
  const file = path.join(dir, `ci-${Math.random().toString(36).slice(2)}.conf`);
  fs.writeFileSync(file, kubeconfigYaml(clusterInfoKubeconfig(server, caBytes)));
  return kubectl(file, ["set-credentials", "--token=x", "--", "x"], ["unset", "users.x"]);
}

Deno.test("discoveryFileKubeconfig() without a token has the reference's cluster-info shape (vector 15)", () => {
  const got = kubeconfigYaml(
    discoveryFileKubeconfig({ server: SERVER, caData: fs.readFileSync(CA) }),
  );
  // Vector 15: one cluster named "", no contexts or users, current-context "", preferences {}.
  // kubectl 1.32 writes the empty lists as null (the older docs show []).
  assert.equal(
    got,
    `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: ${CA_B64}
    server: ${SERVER}
  name: ""
contexts: null
current-context: ""
kind: Config
preferences: {}
users: null
`,
  );
});

Deno.test({
  name:
    "discoveryFileKubeconfig() is byte-identical to what kubectl config writes, with and without a token",
  // Skipped (reported as ignored) where kubectl is not installed.
  ignore: !KUBECTL,
  fn: () => {
    const { dir, cleanup } = tempDir();
    try {
      const ca = fs.readFileSync(CA);
      for (const server of [SERVER, "https://[fd00::1]:6443"]) {
        assert.equal(
          kubeconfigYaml(discoveryFileKubeconfig({ server, caData: ca })),
          kubectlClusterInfoFile(dir, server, ca),
          server,
        );
        assert.equal(
          kubeconfigYaml(discoveryFileKubeconfig({ server, caData: ca, token: TOKEN })),
          kubectlTokenFile(dir, server, CA, TOKEN),
          server,
        );
      }
    } finally {
      cleanup();
    }
  },
});

const cluster = (name: string, body: string) =>
  `- name: ${JSON.stringify(name)}\n  cluster:\n${body}`;
const caData = `    certificate-authority-data: ${CA_B64}\n`;
const srv = `    server: ${SERVER}\n`;

/** kubeadm's ValidateConfigInfo (and joinkit's travel rules) over discovery files. */
const CHECKS: [string, string, string | RegExp | { credentials: boolean }][] = [
  [
    "vector 15: cluster-info's kubeconfig as the kubeadm-join docs dump it",
    `apiVersion: v1\nclusters:\n${
      cluster("", caData + srv)
    }contexts: []\ncurrent-context: ""\nkind: Config\npreferences: {}\nusers: []\n`,
    { credentials: false },
  ],
  [
    "a token user in the current context",
    `clusters:\n${
      cluster("k", caData + srv)
    }contexts:\n- name: c\n  context: {cluster: k, user: u}\ncurrent-context: c\nusers:\n- name: u\n  user: {token: ${TOKEN}}\n`,
    { credentials: true },
  ],
  [
    "client certificate and key data",
    `clusters:\n${
      cluster("k", caData + srv)
    }contexts:\n- name: c\n  context: {cluster: k, user: u}\ncurrent-context: c\nusers:\n- name: u\n  user: {client-certificate-data: QUJD, client-key-data: QUJD}\n`,
    { credentials: true },
  ],
  [
    "a certificate without a key is no credentials",
    `clusters:\n${
      cluster("k", caData + srv)
    }contexts:\n- name: c\n  context: {cluster: k, user: u}\ncurrent-context: c\nusers:\n- name: u\n  user: {client-certificate-data: QUJD}\n`,
    { credentials: false },
  ],
  [
    "username and password",
    `clusters:\n${
      cluster("k", caData + srv)
    }contexts:\n- name: c\n  context: {cluster: k, user: u}\ncurrent-context: c\nusers:\n- name: u\n  user: {username: a, password: b}\n`,
    { credentials: true },
  ],
  [
    "no cluster",
    "kind: Config\n",
    "the provided kubeconfig file must have at least one Cluster defined",
  ],
  [
    "a named cluster and no current context",
    `clusters:\n${cluster("k", caData + srv)}`,
    /^the provided kubeconfig file is malformed: /,
  ],
  [
    "a context without a user",
    `clusters:\n${
      cluster("k", caData + srv)
    }contexts:\n- name: c\n  context: {cluster: k}\ncurrent-context: c\n`,
    'invalid configuration: user was not specified for context "c"',
  ],
  [
    "a context whose user is missing",
    `clusters:\n${
      cluster("k", caData + srv)
    }contexts:\n- name: c\n  context: {cluster: k, user: u}\ncurrent-context: c\n`,
    'invalid configuration: user "u" was not found for context "c"',
  ],
  [
    "a current context that does not exist, with the unnamed cluster",
    `clusters:\n${cluster("", caData + srv)}current-context: nope\n`,
    "invalid configuration: context was not found for specified context: nope",
  ],
  [
    "no server",
    `clusters:\n${cluster("", caData)}`,
    "invalid configuration: default cluster has no server defined",
  ],
  [
    "CA data and a CA file",
    `clusters:\n${cluster("", caData + srv + "    certificate-authority: /etc/ca.crt\n")}`,
    /^invalid configuration: certificate-authority-data and certificate-authority are both specified for \. /,
  ],
  [
    "a CA file (kubeadm reads it on the node; the file must travel alone)",
    `clusters:\n${cluster("", srv + "    certificate-authority: /etc/ca.crt\n")}`,
    /refers to the CA file "\/etc\/ca\.crt": a discovery file must embed it/,
  ],
  ["no CA", `clusters:\n${cluster("", srv)}`, 'cluster "" has no certificate-authority-data'],
  [
    "CA data that holds no certificate",
    `clusters:\n${cluster("", "    certificate-authority-data: QUJD\n" + srv)}`,
    /^cluster "": failed to parse its CA: data does not contain any valid RSA or ECDSA certificates/,
  ],
  [
    "credentials in files",
    `clusters:\n${
      cluster("k", caData + srv)
    }contexts:\n- name: c\n  context: {cluster: k, user: u}\ncurrent-context: c\nusers:\n- name: u\n  user: {client-certificate: /a.pem, client-key: /a.pem}\n`,
    /^user "u" refers to a file \(client-certificate\): a discovery file must embed its credentials$/,
  ],
  ["not a kubeconfig", "kind: Pod\napiVersion: v1\n", /^no kind "Pod" is registered/],
];

Deno.test("checkDiscoveryFile() applies kubeadm's file-discovery rules with kubeadm's texts", () => {
  for (const [what, text, want] of CHECKS) {
    if (typeof want === "object" && "credentials" in want) {
      const r = checkDiscoveryFile(text);
      assert.equal(r.hasCredentials, want.credentials, what);
      assert.equal(r.cluster.server, SERVER, what);
      continue;
    }
    assert.throws(
      () => checkDiscoveryFile(text),
      (e) => {
        assert.ok(e instanceof CheckError, what);
        if (typeof want === "string") assert.equal(e.message, want, what);
        else assert.match(e.message, want, what);
        return true;
      },
      what,
    );
  }
});

Deno.test("checkDiscoveryFile() accepts every file discoveryFileKubeconfig() makes", () => {
  const ca = fs.readFileSync(CA);
  for (const token of [undefined, TOKEN]) {
    const cfg = discoveryFileKubeconfig({
      server: SERVER,
      caData: ca,
      ...(token ? { token } : {}),
    });
    const r = checkDiscoveryFile(kubeconfigYaml(cfg));
    assert.equal(r.hasCredentials, token !== undefined);
    assert.equal(r.clusterName, token ? "kubernetes" : "");
    assert.deepEqual(Buffer.from(r.cluster.caData), ca);
  }
});

// ---------------------------------------------------------------------------
// CLI

async function initStream(dir: string, ca = CA): Promise<string> {
  const r = await runCli(["init", "--server", SERVER, "--ca", ca, "--token", TOKEN, ...NOW]);
  assert.equal(r.code, 0, r.stderr);
  const file = path.join(dir, "init.yaml");
  fs.writeFileSync(file, r.stdout);
  return file;
}

async function pinOf(ca: string): Promise<string> {
  const r = await runCli(["ca", "hash", ca]);
  return r.stdout.trim().split(/\s+/).pop()!;
}

Deno.test("CLI discovery-file is byte-identical to kubectl from cluster-info and from --server/--ca, written 0600", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const ci = await initStream(dir);
    const pin = await pinOf(CA);
    const ca = fs.readFileSync(CA);
    const plain = await runCli([
      "discovery-file",
      "--cluster-info",
      ci,
      "--discovery-token-ca-cert-hash",
      pin,
    ]);
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(
      plain.stdout,
      kubeconfigYaml(discoveryFileKubeconfig({ server: SERVER, caData: ca })),
    );
    assert.match(
      plain.stderr,
      /CA certificate 1 is pinned; API server "https:\/\/10\.0\.0\.1:6443"; no user/,
    );
    const withToken = await runCli([
      "discovery-file",
      "--cluster-info",
      ci,
      "--discovery-token-ca-cert-hash",
      pin,
      "--token",
      TOKEN,
    ]);
    assert.equal(withToken.code, 0, withToken.stderr);
    assert.match(withToken.stderr, /signature for token ID "abcdef" valid/);
    assert.doesNotMatch(withToken.stderr, /0123456789abcdef/);
    const direct = await runCli([
      "discovery-file",
      "--server",
      "10.0.0.1:6443",
      "--ca",
      CA,
      "--token",
      TOKEN,
    ]);
    assert.equal(direct.code, 0, direct.stderr);
    assert.equal(direct.stdout, withToken.stdout);
    if (KUBECTL) {
      assert.equal(plain.stdout, kubectlClusterInfoFile(dir, SERVER, ca));
      assert.equal(withToken.stdout, kubectlTokenFile(dir, SERVER, CA, TOKEN));
      // kubectl reads what was written.
      const f = path.join(dir, "view.conf");
      fs.writeFileSync(f, withToken.stdout);
      const view = execFileSync("kubectl", [
        "config",
        "view",
        "--kubeconfig",
        f,
        "-o",
        "jsonpath={.current-context}",
      ]);
      assert.equal(String(view), "tls-bootstrap-token-user@kubernetes");
    }

    // --out: 0600, atomically, no clobber without --force.
    const out = path.join(dir, "etc", "discovery.conf");
    const w = await runCli([
      "discovery-file",
      "--cluster-info",
      ci,
      "--discovery-token-ca-cert-hash",
      pin,
      "--token",
      TOKEN,
      "--out",
      out,
    ]);
    assert.equal(w.code, 0, w.stderr);
    assert.equal(w.stdout, "");
    assert.equal(fs.readFileSync(out, "utf8"), withToken.stdout);
    assert.equal(fs.statSync(out).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.dirname(out)).mode & 0o777, 0o700);
    assert.doesNotMatch(w.stderr, /0123456789abcdef/);
    const again = await runCli(["discovery-file", "--server", SERVER, "--ca", CA, "--out", out]);
    assert.equal(again.code, 1);
    assert.equal(again.stderr, `error: ${out}: already exists (use --force to overwrite)\n`);
    assert.equal(fs.readFileSync(out, "utf8"), withToken.stdout);
    const forced = await runCli([
      "discovery-file",
      "--server",
      SERVER,
      "--ca",
      CA,
      "--out",
      out,
      "--force",
    ]);
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(fs.readFileSync(out, "utf8"), plain.stdout);

    // -o json: the same kubeconfig; kubectl-sorted JSON.
    const json = await runCli(["discovery-file", "--server", SERVER, "--ca", CA, "-o", "json"]);
    assert.equal(json.code, 0, json.stderr);
    assert.equal(JSON.parse(json.stdout).clusters[0].name, "");

    // The file it wrote is itself an accepted input (re-checked, pinned).
    const re = await runCli([
      "discovery-file",
      "--cluster-info",
      out,
      "--discovery-token-ca-cert-hash",
      pin,
    ]);
    assert.equal(re.code, 0, re.stderr);
    assert.equal(re.stdout, plain.stdout);
  } finally {
    cleanup();
  }
});

Deno.test("CLI discovery-file keeps the whole CA bundle of cluster-info when one certificate is pinned", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const other = path.join(dir, "other");
    const c = await runCli([
      "ca",
      "create",
      "--out-dir",
      other,
      "--key-type",
      "ecdsa-p256",
      ...NOW,
    ]);
    assert.equal(c.code, 0, c.stderr);
    const bundle = path.join(dir, "bundle.crt");
    fs.writeFileSync(
      bundle,
      Buffer.concat([fs.readFileSync(CA), fs.readFileSync(path.join(other, "ca.crt"))]),
    );
    const ci = await initStream(dir, bundle);
    const pin2 = await pinOf(path.join(other, "ca.crt"));
    const r = await runCli([
      "discovery-file",
      "--cluster-info",
      ci,
      "--discovery-token-ca-cert-hash",
      pin2,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /CA certificate 2 is pinned/);
    assert.match(
      r.stdout,
      new RegExp(`certificate-authority-data: ${fs.readFileSync(bundle).toString("base64")}\n`),
    );
  } finally {
    cleanup();
  }
});

Deno.test("CLI discovery-file refuses a CA without the pinned key, a foreign token and bad flags; writes nothing", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const ci = await initStream(dir);
    const pin = await pinOf(CA);
    const out = path.join(dir, "out", "discovery.conf");
    const existing = path.join(dir, "existing.conf");
    fs.writeFileSync(
      existing,
      kubeconfigYaml(discoveryFileKubeconfig({ server: SERVER, caData: fs.readFileSync(CA) })),
    );
    const cases: [string, string[], number, RegExp][] = [
      [
        "cluster-info CA not pinned",
        ["--cluster-info", ci, "--discovery-token-ca-cert-hash", OTHER_PIN],
        3,
        /^error: .*init\.yaml: cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "sha256:[0-9a-f]{64}" are pinned$/,
      ],
      [
        "discovery file CA not pinned",
        ["--cluster-info", existing, "--discovery-token-ca-cert-hash", OTHER_PIN],
        3,
        /^error: .*existing\.conf: cluster CA found in cluster-info ConfigMap is invalid: none of the public keys/,
      ],
      [
        "--ca not pinned",
        ["--server", SERVER, "--ca", CA, "--discovery-token-ca-cert-hash", OTHER_PIN],
        3,
        /^error: .*ca\.crt: none of the public keys "sha256:[0-9a-f]{64}" are pinned$/,
      ],
      [
        "token the cluster-info did not sign",
        [
          "--cluster-info",
          ci,
          "--discovery-token-ca-cert-hash",
          pin,
          "--token",
          "abcdef.aaaaaaaaaaaaaaaa",
        ],
        3,
        /^error: .*: the cluster-info's signature for token ID "abcdef" does not verify with --token: it is not this cluster's token$/,
      ],
      [
        "no pin with --cluster-info",
        ["--cluster-info", ci],
        2,
        /^error: discovery\.bootstrapToken\.caCertHashes: Invalid value: "": using token-based discovery without caCertHashes can be unsafe/,
      ],
      [
        "malformed pin",
        ["--server", SERVER, "--ca", CA, "--discovery-token-ca-cert-hash", "sha256:xyz"],
        2,
        /^error: invalid discovery token CA certificate hash/,
      ],
      [
        "both sources",
        ["--cluster-info", ci, "--server", SERVER, "--discovery-token-ca-cert-hash", pin],
        2,
        /replaces --server and --ca/,
      ],
      [
        "unsafe without cluster-info",
        ["--server", SERVER, "--ca", CA, "--discovery-token-unsafe-skip-ca-verification"],
        2,
        /goes with --cluster-info/,
      ],
      [
        "names without a token",
        ["--server", SERVER, "--ca", CA, "--cluster-name", "prod"],
        2,
        /go with --token/,
      ],
      ["no source", [], 2, /missing required flag --cluster-info/],
      ["no CA", ["--server", SERVER], 2, /missing required flag --ca/],
      [
        "bad token",
        ["--server", SERVER, "--ca", CA, "--token", "ABCDEF.0123456789abcdef"],
        2,
        /--token/,
      ],
      ["not a CA file", ["--server", SERVER, "--ca", ci], 1, /^error: /],
      [
        "not a cluster-info",
        ["--cluster-info", CA, "--discovery-token-ca-cert-hash", pin],
        1,
        /^error: /,
      ],
    ];
    for (const [what, argv, code, want] of cases) {
      const r = await runCli(["discovery-file", ...argv, "--out", out]);
      assert.equal(r.code, code, `${what}: ${r.stderr}`);
      assert.equal(r.stdout, "", what);
      const lines = r.stderr.split("\n").filter(Boolean);
      assert.equal(lines.length, 1, `${what}: ${r.stderr}`);
      assert.match(lines[0]!, want, what);
      assert.doesNotMatch(r.stderr, /0123456789abcdef|aaaaaaaaaaaaaaaa/, what);
      assert.equal(fs.existsSync(path.dirname(out)), false, `${what}: something was written`);
    }
    // A cluster-info kubeadm's file discovery would refuse once written (no server).
    const noServer = path.join(dir, "no-server.yaml");
    fs.writeFileSync(
      noServer,
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-info, namespace: kube-public}\ndata:\n  kubeconfig: |\n    clusters:\n    - name: ""\n      cluster: {certificate-authority-data: ${CA_B64}}\n`,
    );
    const ns = await runCli([
      "discovery-file",
      "--cluster-info",
      noServer,
      "--discovery-token-unsafe-skip-ca-verification",
      "--out",
      out,
    ]);
    assert.equal(ns.code, 3, ns.stderr);
    assert.equal(
      ns.stderr,
      `error: ${noServer}: kubeadm's file discovery would refuse the result: invalid configuration: default cluster has no server defined\n`,
    );
    assert.equal(fs.existsSync(path.dirname(out)), false);
    // Explicitly unsafe: accepted, and said so.
    const u = await runCli([
      "discovery-file",
      "--cluster-info",
      ci,
      "--discovery-token-unsafe-skip-ca-verification",
    ]);
    assert.equal(u.code, 0, u.stderr);
    assert.match(u.stderr, /CA NOT pinned \(unsafe\)/);
  } finally {
    cleanup();
  }
});
