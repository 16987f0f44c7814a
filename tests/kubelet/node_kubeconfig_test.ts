import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import process from "node:process";
import { Buffer } from "node:buffer";
import { JoinkitError } from "../../lib/base/errors.ts";
import { kubeconfigYaml } from "../../lib/k8s/kubeconfig_yaml.ts";
import {
  issueNodeCredentials,
  nodeKubeconfig,
  nodeNameProblem,
  pairFileName,
} from "../../lib/kubelet/node_kubeconfig.ts";
import { loadSigningCa } from "../../lib/kubelet/signer.ts";
import { usagesOfCert } from "../../lib/kubelet/cert_verify.ts";
import { createCa } from "../../lib/pki/ca.ts";
import { parseCertificate } from "../../lib/pki/cert_info.ts";
import { parseCertsPem } from "../../lib/pki/certsource.ts";
import { runCli, tempDir } from "../_cli.ts";

const NOW = "2026-06-01T12:34:56Z";
const SERVER = "https://10.0.0.1:6443";
const DAY = 86_400_000;
const YEAR_MS = 8760 * 3600 * 1000;

function has(cmd: string, args: string[]): boolean {
  return spawnSync(cmd, args, { stdio: "ignore" }).status === 0;
}
const KUBECTL = has("kubectl", ["version", "--client"]);
const OPENSSL = has("openssl", ["version"]);

/** What kubectl config writes for a kubelet.conf with the given credentials. */
function kubectlNodeConf(
  dir: string,
  caFile: string,
  cluster: string,
  node: string,
  creds: { certFile: string; keyFile: string; embed: boolean },
): string {
  const file = path.join(dir, `k-${Math.random().toString(36).slice(2)}.conf`);
  const env = { ...process.env, KUBECONFIG: file };
  const user = `system:node:${node}`;
  const k = (...args: string[]) =>
    execFileSync("kubectl", ["config", ...args], { env, stdio: ["ignore", "ignore", "pipe"] });
  k(
    "set-cluster",
    `--server=${SERVER}`,
    `--certificate-authority=${caFile}`,
    "--embed-certs=true",
    "--",
    cluster,
  );
  k(
    "set-credentials",
    `--client-certificate=${creds.certFile}`,
    `--client-key=${creds.keyFile}`,
    ...(creds.embed ? ["--embed-certs=true"] : []),
    "--",
    user,
  );
  k("set-context", `--cluster=${cluster}`, `--user=${user}`, "--", `${user}@${cluster}`);
  k("use-context", "--", `${user}@${cluster}`);
  return fs.readFileSync(file, "utf8");
}

Deno.test("pairFileName() names the pair as the kubelet's certificate store does (UTC)", () => {
  const cases: [string, string][] = [
    ["2026-08-21T13:29:23Z", "kubelet-client-2026-08-21-13-29-23.pem"], // the reference's example
    ["2006-01-02T15:04:05Z", "kubelet-client-2006-01-02-15-04-05.pem"], // Go's layout itself
    ["2027-03-04T05:06:07.999Z", "kubelet-client-2027-03-04-05-06-07.pem"], // fraction dropped
    ["2026-12-31T23:59:59+02:00", "kubelet-client-2026-12-31-21-59-59.pem"], // the offset applied
  ];
  for (const [at, want] of cases) assert.equal(pairFileName(new Date(at)), want, at);
});

Deno.test("nodeNameProblem() accepts exactly the DNS-1123 subdomains a Node may be named", () => {
  const ok = [
    "worker-1",
    "a",
    "node.example.com",
    "0",
    "a".repeat(63) + "." + "b".repeat(63),
    "x".repeat(253),
  ];
  const bad = [
    "",
    "Worker-1",
    "worker_1",
    "-a",
    "a-",
    "a..b",
    ".a",
    "a b",
    "x".repeat(254),
    "a/b",
    "système",
  ];
  for (const n of ok) assert.equal(nodeNameProblem(n), undefined, n);
  for (const n of bad) assert.notEqual(nodeNameProblem(n), undefined, n);
  assert.match(nodeNameProblem("Worker-1")!, /a lowercase RFC 1123 subdomain must consist of/);
});

Deno.test("nodeKubeconfig() has kubeadm's names in both credential forms", () => {
  const caData = Buffer.from("-----BEGIN CERTIFICATE-----\nQUJD\n-----END CERTIFICATE-----\n");
  const file = nodeKubeconfig({
    server: SERVER,
    caData,
    node: "w1",
    clusterName: "prod",
    pairFile: "/var/lib/kubelet/pki/kubelet-client-current.pem",
  });
  assert.equal(
    kubeconfigYaml(file),
    `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: ${caData.toString("base64")}
    server: ${SERVER}
  name: prod
contexts:
- context:
    cluster: prod
    user: system:node:w1
  name: system:node:w1@prod
current-context: system:node:w1@prod
kind: Config
preferences: {}
users:
- name: system:node:w1
  user:
    client-certificate: /var/lib/kubelet/pki/kubelet-client-current.pem
    client-key: /var/lib/kubelet/pki/kubelet-client-current.pem
`,
  );
  const embedded = nodeKubeconfig({
    server: SERVER,
    caData,
    node: "w1",
    embedded: { certPem: "C\n", keyPem: "K\n" },
  }) as { users: { user: Record<string, string> }[]; "current-context": string };
  assert.deepEqual(embedded.users[0]!.user, {
    "client-certificate-data": "Qwo=",
    "client-key-data": "Swo=",
  });
  assert.equal(embedded["current-context"], "system:node:w1@kubernetes");
});

Deno.test("issueNodeCredentials() signs as the kubelet-client signer: subject, usages, lifetime, CA cut", async () => {
  const now = new Date(NOW);
  for (const keyType of ["ecdsa-p256", "rsa-2048"] as const) {
    const created = await createCa({
      commonName: "kubernetes",
      keyType: "ecdsa-p256",
      now,
      validityMs: 10 * 365 * DAY,
    });
    const ca = await loadSigningCa(created.certPem, "ca.crt", created.keyPem, "ca.key");
    const creds = await issueNodeCredentials("worker-1", { ca, ttlMs: YEAR_MS, now, keyType });
    const cert = parseCertsPem(creds.certPem, parseCertificate)[0]!;
    assert.equal(cert.subject.commonName, "system:node:worker-1");
    assert.deepEqual(cert.subject.organization, ["system:nodes"]);
    assert.deepEqual(usagesOfCert(cert).sort(), [
      "client auth",
      "digital signature",
      "key encipherment",
    ]);
    assert.equal(cert.isCA, false);
    assert.equal(cert.notBefore.getTime(), now.getTime() - 5 * 60_000);
    assert.equal(cert.notAfter.getTime(), now.getTime() + YEAR_MS - 5 * 60_000);
    assert.match(
      creds.keyPem,
      keyType === "rsa-2048"
        ? /^-----BEGIN RSA PRIVATE KEY-----/
        : /^-----BEGIN EC PRIVATE KEY-----/,
    );
    assert.match(creds.csrPem, /^-----BEGIN CERTIFICATE REQUEST-----/);
  }
  // A short-lived CA cuts the certificate; an expired one refuses (the signer's rules).
  const short = await createCa({
    commonName: "kubernetes",
    keyType: "ecdsa-p256",
    now,
    validityMs: 30 * DAY,
  });
  const sca = await loadSigningCa(short.certPem, "ca.crt", short.keyPem, "ca.key");
  const cut = await issueNodeCredentials("w", {
    ca: sca,
    ttlMs: YEAR_MS,
    now,
    keyType: "ecdsa-p256",
  });
  assert.equal(
    parseCertsPem(cut.certPem, parseCertificate)[0]!.notAfter.getTime(),
    short.notAfter.getTime(),
  );
  await assert.rejects(
    issueNodeCredentials("w", {
      ca: sca,
      ttlMs: YEAR_MS,
      now: new Date(now.getTime() + 60 * DAY),
      keyType: "ecdsa-p256",
    }),
    (e) => e instanceof JoinkitError && e.exitCode === 3 && /^node "w": .*expired/.test(e.message),
  );
});

// ---------------------------------------------------------------------------
// CLI

async function makeCa(dir: string, keyType = "ecdsa-p256"): Promise<{ crt: string; key: string }> {
  const out = path.join(dir, `ca-${keyType}`);
  const r = await runCli([
    "ca",
    "create",
    "--out-dir",
    out,
    "--key-type",
    keyType,
    "--now",
    "2026-01-01T00:00:00Z",
  ]);
  assert.equal(r.code, 0, r.stderr);
  return { crt: path.join(out, "ca.crt"), key: path.join(out, "ca.key") };
}

const PAIR = "kubelet-client-2026-06-01-12-34-56.pem";

/** Splits a store pair file into its certificate and key PEM. */
function splitPair(text: string): { cert: string; key: string } {
  const i = text.indexOf("-----BEGIN ", text.indexOf("-----END CERTIFICATE-----"));
  return { cert: text.slice(0, i), key: text.slice(i) };
}

Deno.test("CLI kubeconfig node writes kubelet.conf and the kubelet's pair; openssl, cert verify and kubectl accept them", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const ca = await makeCa(dir);
    const list = path.join(dir, "nodes.txt");
    fs.writeFileSync(list, "# rack 7\nworker-2\n\n  worker-3  # spare\n");
    const out = path.join(dir, "nodes");
    const r = await runCli([
      "kubeconfig",
      "node",
      list,
      "--node",
      "worker-1",
      "--ca",
      ca.crt,
      "--ca-key",
      ca.key,
      "--server",
      "10.0.0.1:6443",
      "--out-dir",
      out,
      "--now",
      NOW,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "");
    assert.equal(r.stderr.split("\n").filter(Boolean).length, 3);
    assert.doesNotMatch(r.stderr, /PRIVATE KEY|client-key-data/);
    assert.equal(fs.statSync(out).mode & 0o777, 0o700);
    for (const node of ["worker-1", "worker-2", "worker-3"]) {
      const d = path.join(out, node);
      assert.deepEqual(fs.readdirSync(d).sort(), [
        PAIR,
        "kubelet-client-current.pem",
        "kubelet.conf",
      ]);
      assert.equal(fs.statSync(d).mode & 0o777, 0o700);
      for (const f of [PAIR, "kubelet.conf"]) {
        assert.equal(fs.statSync(path.join(d, f)).mode & 0o777, 0o600, f);
      }
      assert.equal(
        fs.readlinkSync(path.join(d, "kubelet-client-current.pem")),
        `/var/lib/kubelet/pki/${PAIR}`,
      );
      const pairText = fs.readFileSync(path.join(d, PAIR), "utf8");
      const { cert, key } = splitPair(pairText);
      assert.match(cert, /^-----BEGIN CERTIFICATE-----\n[\s\S]*-----END CERTIFICATE-----\n$/);
      assert.match(key, /^-----BEGIN EC PRIVATE KEY-----\n[\s\S]*-----END EC PRIVATE KEY-----\n$/);
      const conf = fs.readFileSync(path.join(d, "kubelet.conf"), "utf8");
      const certFile = path.join(dir, `${node}.crt`);
      const keyFile = path.join(dir, `${node}.key`);
      fs.writeFileSync(certFile, cert);
      fs.writeFileSync(keyFile, key);

      if (KUBECTL) {
        // Byte-identical to kubectl config with the same inputs, and kubectl reads it.
        assert.equal(
          conf,
          kubectlNodeConf(dir, ca.crt, "kubernetes", node, { certFile, keyFile, embed: true }),
        );
        const ctx = execFileSync("kubectl", [
          "config",
          "view",
          "--kubeconfig",
          path.join(d, "kubelet.conf"),
          "-o",
          "jsonpath={.current-context}",
        ]);
        assert.equal(String(ctx), `system:node:${node}@kubernetes`);
      }
      if (OPENSSL) {
        const v = spawnSync("openssl", [
          "verify",
          "-purpose",
          "sslclient",
          "-attime",
          String(Date.parse("2026-06-02T00:00:00Z") / 1000),
          "-CAfile",
          ca.crt,
          certFile,
        ]);
        assert.equal(v.status, 0, String(v.stderr));
        assert.match(String(v.stdout), /: OK\n$/);
      }
      // joinkit's own verifier: the pair file and the kubeconfig, with the node.
      const cv = await runCli([
        "cert",
        "verify",
        path.join(d, PAIR),
        path.join(d, "kubelet.conf"),
        "--ca",
        ca.crt,
        "--node",
        node,
        "--now",
        "2026-06-02T00:00:00Z",
      ]);
      assert.equal(cv.code, 0, cv.stdout + cv.stderr);
      assert.equal(cv.stdout.match(/verdict: ok/g)?.length, 2, cv.stdout);
      assert.match(cv.stdout, /ok {4}node {6}CN is system:node:/);
      assert.match(cv.stdout, /ok {4}key {7}private key .* matches/);
    }

    // No clobber: a second run refuses and leaves every file as it was; --force re-issues.
    const before = fs.readFileSync(path.join(out, "worker-1", PAIR), "utf8");
    const args = [
      "kubeconfig",
      "node",
      "--node",
      "worker-1",
      "--ca",
      ca.crt,
      "--ca-key",
      ca.key,
      "--server",
      SERVER,
      "--out-dir",
      out,
      "--now",
      NOW,
    ];
    const again = await runCli(args);
    assert.equal(again.code, 1);
    assert.match(
      again.stderr,
      /^error: .*kubelet\.conf: already exists \(use --force to overwrite\)\n$/,
    );
    assert.equal(fs.readFileSync(path.join(out, "worker-1", PAIR), "utf8"), before);
    const forced = await runCli([...args, "--force"]);
    assert.equal(forced.code, 0, forced.stderr);
    assert.notEqual(fs.readFileSync(path.join(out, "worker-1", PAIR), "utf8"), before);
    assert.equal(
      fs.readlinkSync(path.join(out, "worker-1", "kubelet-client-current.pem")),
      `/var/lib/kubelet/pki/${PAIR}`,
    );
  } finally {
    cleanup();
  }
});

Deno.test("CLI kubeconfig node --credentials file points both fields at the current pair, as kubeadm's rotated kubelet.conf", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const ca = await makeCa(dir, "rsa-2048");
    const out = path.join(dir, "nodes");
    const r = await runCli([
      "kubeconfig",
      "node",
      "--node",
      "cp-1.example.com",
      "--credentials",
      "file",
      "--cert-dir",
      "/srv/kubelet/pki",
      "--cluster-name",
      "prod",
      "--key-type",
      "rsa-2048",
      "--ttl",
      "24h",
      "--ca",
      ca.crt,
      "--ca-key",
      ca.key,
      "--server",
      SERVER,
      "--out-dir",
      out,
      "--now",
      NOW,
    ]);
    assert.equal(r.code, 0, r.stderr);
    const d = path.join(out, "cp-1.example.com");
    const conf = fs.readFileSync(path.join(d, "kubelet.conf"), "utf8");
    assert.match(
      conf,
      /client-certificate: \/srv\/kubelet\/pki\/kubelet-client-current\.pem\n {4}client-key: \/srv\/kubelet\/pki\/kubelet-client-current\.pem\n/,
    );
    assert.doesNotMatch(conf, /-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVk|client-key-data/);
    assert.equal(
      fs.readlinkSync(path.join(d, "kubelet-client-current.pem")),
      `/srv/kubelet/pki/${PAIR}`,
    );
    const { cert, key } = splitPair(fs.readFileSync(path.join(d, PAIR), "utf8"));
    assert.match(key, /^-----BEGIN RSA PRIVATE KEY-----/);
    const c = parseCertsPem(cert, parseCertificate)[0]!;
    // --ttl 24h: not short (>= 8h), so the end is backdated 5 minutes too.
    assert.equal(c.notAfter.getTime() - c.notBefore.getTime(), 24 * 3600 * 1000);
    if (KUBECTL) {
      assert.equal(
        conf,
        kubectlNodeConf(dir, ca.crt, "prod", "cp-1.example.com", {
          certFile: "/srv/kubelet/pki/kubelet-client-current.pem",
          keyFile: "/srv/kubelet/pki/kubelet-client-current.pem",
          embed: false,
        }),
      );
    }
  } finally {
    cleanup();
  }
});

Deno.test("CLI kubeconfig node refuses bad names, a foreign CA key, an expired CA; one line, nothing written", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const ca = await makeCa(dir);
    const other = await makeCa(dir, "rsa-2048");
    const badList = path.join(dir, "bad.txt");
    fs.writeFileSync(badList, "worker-1\nWorker_2\n");
    const emptyList = path.join(dir, "empty.txt");
    fs.writeFileSync(emptyList, "# nobody\n");
    const out = path.join(dir, "out");
    const base = [
      "--ca",
      ca.crt,
      "--ca-key",
      ca.key,
      "--server",
      SERVER,
      "--out-dir",
      out,
      "--now",
      NOW,
    ];
    const cases: [string, string[], number, RegExp][] = [
      [
        "upper-case --node",
        ["--node", "Worker-1", ...base],
        2,
        /^error: --node "Worker-1" cannot be a Node name: a lowercase RFC 1123 subdomain/,
      ],
      [
        "bad name in NODES",
        [badList, ...base],
        1,
        /^error: .*bad\.txt:2: not a Node name: a lowercase RFC 1123 subdomain/,
      ],
      ["empty NODES", [emptyList, ...base], 1, /^error: .*empty\.txt: no node names$/],
      ["no node", base, 2, /^error: missing required flag --node/],
      ["node twice", ["--node", "a", "--node", "a", ...base], 2, /^error: node "a" given twice$/],
      [
        "CA key of another CA",
        [
          "--node",
          "a",
          "--ca",
          ca.crt,
          "--ca-key",
          other.key,
          "--server",
          SERVER,
          "--out-dir",
          out,
        ],
        1,
        /^error: .*ca\.key: private key does not match .*ca\.crt$/,
      ],
      [
        "expired CA",
        ["--node", "a", ...base, "--now", "2040-01-01T00:00:00Z"],
        3,
        /^error: node "a": .*expired/,
      ],
      [
        "no server",
        ["--node", "a", "--ca", ca.crt, "--ca-key", ca.key, "--out-dir", out],
        2,
        /^error: missing required flag --server$/,
      ],
      [
        "relative cert dir",
        ["--node", "a", ...base, "--cert-dir", "pki"],
        2,
        /^error: --cert-dir must be an absolute path/,
      ],
      [
        "credentials form",
        ["--node", "a", ...base, "--credentials", "inline"],
        2,
        /^error: --credentials must be one of embedded\|file/,
      ],
      [
        "key type",
        ["--node", "a", ...base, "--key-type", "dsa"],
        2,
        /^error: --key-type must be one of/,
      ],
      [
        "ttl",
        ["--node", "a", ...base, "--ttl", "1y"],
        2,
        /^error: invalid argument "1y" for "--ttl" flag/,
      ],
    ];
    for (const [what, argv, code, want] of cases) {
      const r = await runCli(["kubeconfig", "node", ...argv]);
      assert.equal(r.code, code, `${what}: ${r.stderr}`);
      assert.equal(r.stdout, "", what);
      const lines = r.stderr.split("\n").filter(Boolean);
      assert.equal(lines.length, 1, `${what}: ${r.stderr}`);
      assert.match(lines[0]!, want, what);
      assert.doesNotMatch(r.stderr, /PRIVATE KEY/, what);
      assert.equal(fs.existsSync(out), false, `${what}: something was written`);
    }
  } finally {
    cleanup();
  }
});
