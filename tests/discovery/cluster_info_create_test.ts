import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { Buffer } from "node:buffer";
import { computeDetachedSignature } from "../../lib/discovery/jws.ts";
import { parseManifests } from "../../lib/k8s/manifest.ts";
import { repoPath, runCli, tempDir } from "../_cli.ts";

const CA = repoPath("examples/demo/ca.crt");
const NOW = ["--now", "2026-01-01T00:00:00Z"];
const T1 = "abcdef.0123456789abcdef";
const T2 = "zyxwvu.zyxwvutsrqponmlk";

type ConfigMap = {
  apiVersion: string;
  kind: string;
  metadata: Record<string, string>;
  data: Record<string, string>;
};

function expectedKubeconfig(server: string): string {
  const pem = fs.readFileSync(CA);
  return `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: ${Buffer.from(pem).toString("base64")}
    server: ${server}
  name: ""
contexts: null
current-context: ""
kind: Config
users: null
`;
}

Deno.test("CLI cluster-info create renders kubeadm's ConfigMap signed for each --token", async () => {
  const r = await runCli([
    "cluster-info",
    "create",
    "--server",
    "https://10.0.0.1:6443",
    "--ca",
    CA,
    "--token",
    T1,
    "--token",
    T2,
    ...NOW,
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stderr,
    `[bootstrap-signer] signed cluster-info for token ID "abcdef"\n[bootstrap-signer] signed cluster-info for token ID "zyxwvu"\n`,
  );
  const [cm, ...rest] = parseManifests(r.stdout, "out") as ConfigMap[];
  assert.equal(rest.length, 0);
  assert.equal(cm!.kind, "ConfigMap");
  assert.deepEqual(cm!.metadata, { name: "cluster-info", namespace: "kube-public" });
  const kc = expectedKubeconfig("https://10.0.0.1:6443");
  assert.deepEqual(cm!.data, {
    "jws-kubeconfig-abcdef": computeDetachedSignature(kc, "abcdef", "0123456789abcdef"),
    "jws-kubeconfig-zyxwvu": computeDetachedSignature(kc, "zyxwvu", "zyxwvutsrqponmlk"),
    kubeconfig: kc,
  });
  assert.ok(r.stdout.startsWith("apiVersion: v1\ndata:\n  jws-kubeconfig-abcdef: eyJ"));
  assert.match(r.stdout, /^ {2}kubeconfig: \|\n {4}apiVersion: v1\n/m);

  const j = await runCli([
    "cluster-info",
    "create",
    "--server",
    "https://10.0.0.1:6443",
    "--ca",
    CA,
    "--token",
    T1,
    "-o",
    "json",
    ...NOW,
  ]);
  assert.equal(j.code, 0);
  assert.deepEqual((JSON.parse(j.stdout) as ConfigMap).data.kubeconfig, kc);
});

Deno.test("CLI cluster-info create output parses with kubectl (objects and inner kubeconfig)", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const r = await runCli([
      "cluster-info",
      "create",
      "--server",
      "https://cp.example:6443",
      "--ca",
      CA,
      "--token",
      T1,
      ...NOW,
    ]);
    const file = path.join(dir, "ci.yaml");
    fs.writeFileSync(file, r.stdout);
    const env = { ...process.env, KUBECONFIG: path.join(dir, "none") };
    const names = execFileSync("kubectl", ["label", "--local", "-f", file, "x=y", "-o", "name"], {
      env,
    }).toString();
    assert.equal(names, "configmap/cluster-info\n");
    const json = JSON.parse(
      execFileSync("kubectl", ["label", "--local", "-f", file, "x=y", "-o", "json"], { env })
        .toString(),
    ) as ConfigMap;
    const [ours] = parseManifests(r.stdout, "out") as ConfigMap[];
    assert.deepEqual(json.data, ours!.data);
    const inner = path.join(dir, "inner.conf");
    fs.writeFileSync(inner, json.data.kubeconfig!);
    const view = JSON.parse(
      execFileSync("kubectl", ["config", "view", "--kubeconfig", inner, "--raw", "-o", "json"], {
        env,
      }).toString(),
    ) as { clusters: { name: string; cluster: Record<string, string> }[] };
    assert.equal(view.clusters.length, 1);
    assert.equal(view.clusters[0]!.name, "");
    assert.equal(view.clusters[0]!.cluster.server, "https://cp.example:6443");
    assert.equal(
      view.clusters[0]!.cluster["certificate-authority-data"],
      Buffer.from(fs.readFileSync(CA)).toString("base64"),
    );
  } finally {
    cleanup();
  }
});

Deno.test("CLI cluster-info create signs only the Secrets the controller would", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const mk = async (args: string[], now: string) => {
      const r = await runCli(["token", "create", ...args, "--now", now]);
      assert.equal(r.code, 0, r.stderr);
      return r.stdout;
    };
    const secrets = path.join(dir, "tokens.yaml");
    fs.writeFileSync(
      secrets,
      [
        await mk(["aaaaaa.aaaaaaaaaaaaaaaa"], "2026-01-01T00:00:00Z"), // valid for 24h
        await mk(["bbbbbb.bbbbbbbbbbbbbbbb", "--ttl", "1h"], "2025-12-31T00:00:00Z"), // expired
        await mk(["cccccc.cccccccccccccccc", "--usages", "authentication"], "2026-01-01T00:00:00Z"),
        // Signing only, never expires (stringData, as kubectl apply accepts).
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: bootstrap-token-dddddd\n  namespace: kube-system\n" +
        "type: bootstrap.kubernetes.io/token\nstringData:\n  token-id: dddddd\n" +
        '  token-secret: dddddddddddddddd\n  usage-bootstrap-signing: "true"\n',
      ].join("---\n"),
    );
    const r = await runCli([
      "cluster-info",
      "create",
      "--server",
      "https://10.0.0.1:6443",
      "--ca",
      CA,
      "--secrets",
      secrets,
      ...NOW,
    ]);
    assert.equal(r.code, 0, r.stderr);
    const [cm] = parseManifests(r.stdout, "out") as ConfigMap[];
    assert.deepEqual(Object.keys(cm!.data).sort(), [
      "jws-kubeconfig-aaaaaa",
      "jws-kubeconfig-dddddd",
      "kubeconfig",
    ]);
    assert.match(r.stderr, /skipping Secret kube-system\/bootstrap-token-bbbbbb: expired/);
    assert.match(
      r.stderr,
      /skipping Secret kube-system\/bootstrap-token-cccccc: usage-bootstrap-signing is not "true"/,
    );
    for (
      const s of ["aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb", "cccccccccccccccc", "dddddddddddddddd"]
    ) {
      assert.ok(!r.stderr.includes(s));
    }
  } finally {
    cleanup();
  }
});

Deno.test("CLI cluster-info create rejects bad --server, CA files and tokens", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const noCert = path.join(dir, "none.crt");
    fs.writeFileSync(noCert, "not a certificate\n");
    const withKey = path.join(dir, "withkey.crt");
    fs.writeFileSync(
      withKey,
      fs.readFileSync(CA, "utf8") +
        "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
    );
    const base = ["cluster-info", "create"];
    const cases: [string[], number, RegExp][] = [
      [
        // HOST:PORT alone is accepted (https implied), the same --server rule everywhere.
        ["--server", "http://10.0.0.1:6443", "--ca", CA],
        2,
        /invalid --server "http:\/\/10\.0\.0\.1:6443": must start with https:\/\//,
      ],
      [
        ["--server", "https://10.0.0.1:70000", "--ca", CA],
        2,
        /port must be a number from 1 to 65535/,
      ],
      [["--server", "https://:6443", "--ca", CA], 2, /missing host/],
      [["--server", "https://10.0.0.1:6443/api", "--ca", CA], 2, /invalid --server/],
      [["--server", "https://10.0.0.1:6443", "--ca", noCert], 1, /none\.crt: no certificate found/],
      [
        ["--server", "https://10.0.0.1:6443", "--ca", withKey],
        1,
        /withkey\.crt: holds a PRIVATE KEY block/,
      ],
      [
        ["--server", "https://10.0.0.1:6443", "--ca", path.join(dir, "missing.crt")],
        1,
        /missing\.crt: no such file/,
      ],
      [
        ["--server", "https://10.0.0.1:6443", "--ca", CA, "--token", "abcdef.SECRETSECRETSECR"],
        2,
        /invalid --token/,
      ],
      [["--ca", CA], 2, /missing required flag --server/],
      // Flags are judged before --ca is read: a usage error wins over a missing file.
      [
        ["--server", "https://10.0.0.1:6443", "--ca", "missing.crt", "--token", "nope"],
        2,
        /invalid --token/,
      ],
    ];
    for (const [args, code, re] of cases) {
      const r = await runCli([...base, ...args]);
      assert.equal(r.code, code, args.join(" ") + ": " + r.stderr);
      assert.equal(r.stdout, "");
      assert.match(r.stderr, /^error: [^\n]+\n$/);
      assert.match(r.stderr, re);
      assert.ok(!r.stderr.includes("SECRETSECRETSECR"));
    }
  } finally {
    cleanup();
  }
});

Deno.test("CLI cluster-info create refuses a --ca Go cannot load or that is not a CA, in one line", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const leaf = repoPath("tests/fixtures/discovery/leaf-not-ca.pem");
    const garbage = path.join(dir, "garbage.pem");
    fs.writeFileSync(
      garbage,
      fs.readFileSync(CA, "utf8") +
        "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
    );
    const cases: [string, string][] = [
      [leaf, `error: ${leaf}: ca certificate is not a certificate authority\n`],
      [garbage, `error: ${garbage}: x509: malformed certificate\n`],
    ];
    for (const [ca, stderr] of cases) {
      const r = await runCli([
        "cluster-info",
        "create",
        "--server",
        "https://10.0.0.1:6443",
        "--ca",
        ca,
        "--token",
        T1,
        ...NOW,
      ]);
      assert.equal(r.code, 1);
      assert.equal(r.stdout, "");
      assert.equal(r.stderr, stderr);
    }
  } finally {
    cleanup();
  }
});

Deno.test("CLI cluster-info create embeds exactly the certificates Go loads from --ca", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const pem = fs.readFileSync(CA, "utf8");
    const file = path.join(dir, "ca.pem");
    // Text around the block and an invisible broken block: neither is embedded.
    fs.writeFileSync(
      file,
      "# the cluster CA\n" + pem + "-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n",
    );
    const r = await runCli([
      "cluster-info",
      "create",
      "--server",
      "https://10.0.0.1:6443",
      "--ca",
      file,
      ...NOW,
    ]);
    assert.equal(r.code, 0, r.stderr);
    const cm = parseManifests(r.stdout, "out")[0] as { data: { kubeconfig: string } };
    const b64 = /certificate-authority-data: (\S+)/.exec(cm.data.kubeconfig)![1]!;
    assert.equal(Buffer.from(b64, "base64").toString(), pem);
  } finally {
    cleanup();
  }
});
