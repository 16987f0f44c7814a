import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { computeDetachedSignature } from "../../lib/discovery/jws.ts";
import { certificatesFromPem } from "../../lib/pki/certsource.ts";
import { caCertHash } from "../../lib/pki/pin.ts";
import { repoPath, runCli, tempDir } from "../_cli.ts";

const CA = repoPath("examples/demo/ca.crt");
const HASH = caCertHash(certificatesFromPem(fs.readFileSync(CA, "utf8"), "ca")[0]!);
const NOW = ["--now", "2026-01-01T00:00:00Z"];
const T1 = "abcdef.0123456789abcdef";
const PREFIX = "couldn't validate the identity of the API Server: ";

async function setup(dir: string): Promise<string> {
  const r = await runCli([
    "cluster-info",
    "create",
    "--server",
    "https://10.0.0.1:6443",
    "--ca",
    CA,
    "--token",
    T1,
    ...NOW,
  ]);
  assert.equal(r.code, 0, r.stderr);
  const file = path.join(dir, "ci.yaml");
  fs.writeFileSync(file, r.stdout);
  return file;
}

Deno.test("CLI cluster-info verify prints the bootstrap kubeconfig kubeconfig bootstrap would", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const file = await setup(dir);
    const want = await runCli([
      "kubeconfig",
      "bootstrap",
      "--server",
      "https://10.0.0.1:6443",
      "--ca",
      CA,
      "--token",
      T1,
    ]);
    assert.equal(want.code, 0);
    const r = await runCli(["cluster-info", "verify", file, "--token", T1, "--ca-cert-hash", HASH]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, want.stdout);
    assert.equal(
      r.stderr,
      `[discovery] cluster-info signature for token ID "abcdef" is valid; CA certificate 1 is pinned; API server "https://10.0.0.1:6443"\n`,
    );
    // kubeadm's flag spellings, stdin, JSON.
    const k = await runCli(
      [
        "cluster-info",
        "verify",
        "-",
        "--token",
        T1,
        "--discovery-token-ca-cert-hash",
        HASH,
        "-o",
        "json",
      ],
      { stdin: fs.readFileSync(file) },
    );
    assert.equal(k.code, 0, k.stderr);
    const json = JSON.parse(k.stdout) as {
      users: { user: { token: string } }[];
      "current-context": string;
    };
    assert.equal(json.users[0]!.user.token, T1);
    assert.equal(json["current-context"], "tls-bootstrap-token-user@kubernetes");
    // Unsafe: no pins.
    const u = await runCli([
      "cluster-info",
      "verify",
      file,
      "--token",
      T1,
      "--unsafe-skip-ca-verification",
    ]);
    assert.equal(u.code, 0);
    assert.equal(u.stdout, want.stdout);
    assert.match(u.stderr, /CA NOT pinned \(unsafe\)/);
  } finally {
    cleanup();
  }
});

Deno.test("CLI cluster-info verify accepts the upstream discovery testdata", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const kc = fs.readFileSync(
      repoPath("tests/fixtures/discovery/expected-kubeconfig.yaml"),
      "utf8",
    );
    const file = path.join(dir, "ci.json");
    fs.writeFileSync(
      file,
      JSON.stringify({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "cluster-info", namespace: "kube-public" },
        data: {
          kubeconfig: kc,
          "jws-kubeconfig-123456": computeDetachedSignature(kc, "123456", "abcdef1234567890"),
        },
      }),
    );
    const r = await runCli([
      "cluster-info",
      "verify",
      file,
      "--token",
      "123456.abcdef1234567890",
      "--ca-cert-hash",
      "sha256:98be2e6d4d8a89aa308fb15de0c07e2531ce549c68dec1687cdd5c06f0826658",
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^ {4}server: https:\/\/127\.0\.0\.1$/m);
  } finally {
    cleanup();
  }
});

Deno.test("CLI cluster-info verify fails with kubeadm's texts (exit 3 for the check, 2 for its flags, 1 for a FILE that is no cluster-info), never showing the secret", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const file = await setup(dir);
    const text = fs.readFileSync(file, "utf8");
    const tampered = path.join(dir, "tampered.yaml");
    fs.writeFileSync(
      tampered,
      text.replace("server: https://10.0.0.1:6443", "server: https://10.6.6.6:6443"),
    );
    const notCm = path.join(dir, "secret.yaml");
    fs.writeFileSync(
      notCm,
      "apiVersion: v1\nkind: Secret\nmetadata:\n  name: bootstrap-token-abcdef\n  namespace: kube-system\n",
    );
    const broken = path.join(dir, "broken.yaml");
    fs.writeFileSync(broken, "kind: ConfigMap\ndata: [\n");
    const cases: [string[], string][] = [
      [
        [file, "--token", "zyxwvu.0123456789abcdef", "--ca-cert-hash", HASH],
        `error: ${file}: ${PREFIX}could not find a JWS signature in the cluster-info ConfigMap for token ID "zyxwvu"`,
      ],
      [
        [file, "--token", "abcdef.0123456789abcdee", "--ca-cert-hash", HASH],
        `error: ${file}: ${PREFIX}failed to verify JWS signature of received cluster info object, can't trust this API Server`,
      ],
      [
        [tampered, "--token", T1, "--ca-cert-hash", HASH],
        `error: ${tampered}: ${PREFIX}failed to verify JWS signature of received cluster info object, can't trust this API Server`,
      ],
      [
        [
          file,
          "--token",
          T1,
          "--ca-cert-hash",
          "sha256:345959acb2c3b2feb87d281961c893f62a314207ef02599f1cc4a5fb255480b3",
        ],
        `error: ${file}: ${PREFIX}cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${HASH}" are pinned`,
      ],
    ];
    // Issue 10's exit-code rule: the flags kubeadm validates first are usage errors (2, they
    // were 3), and a FILE that is no cluster-info is bad input (1, it was 3).
    const notChecks: [string[], string, number][] = [
      [
        [file, "--token", T1],
        `error: discovery.bootstrapToken.caCertHashes: Invalid value: "": using token-based discovery without caCertHashes can be unsafe. Set unsafeSkipCAVerification as true in your kubeadm config file or pass --discovery-token-unsafe-skip-ca-verification flag to continue`,
        2,
      ],
      [
        [file, "--token", "abcdef.0123456789ABCDEF", "--ca-cert-hash", HASH],
        `error: invalid --token: must match [a-z0-9]{6}.[a-z0-9]{16} (value not shown)`,
        2,
      ],
      [
        [file, "--token", T1, "--ca-cert-hash", "sha256:abc"],
        `error: invalid discovery token CA certificate hash: invalid hash "sha256:abc", expected a 32 byte SHA-256 hash, found 1 bytes`,
        2,
      ],
      [
        [notCm, "--token", T1, "--ca-cert-hash", HASH],
        `error: ${notCm}: not a ConfigMap (found Secret)`,
        1,
      ],
    ];
    for (const [args, want, code] of notChecks) {
      const r = await runCli(["cluster-info", "verify", ...args]);
      assert.equal(r.code, code, args.join(" ") + ": " + r.stderr);
      assert.equal(r.stdout, "");
      assert.equal(r.stderr, want + "\n");
      assert.ok(!r.stderr.includes("0123456789"), "secret leaked");
    }
    for (const [args, want] of cases) {
      const r = await runCli(["cluster-info", "verify", ...args]);
      assert.equal(r.code, 3, args.join(" ") + ": " + r.stderr);
      assert.equal(r.stdout, "");
      assert.equal(r.stderr, want + "\n");
      assert.ok(!r.stderr.includes("0123456789"), "secret leaked");
    }
    const b = await runCli([
      "cluster-info",
      "verify",
      broken,
      "--token",
      T1,
      "--ca-cert-hash",
      HASH,
    ]);
    assert.equal(b.code, 1); // a FILE that does not parse is bad input (issue 10; it was 3)
    assert.match(b.stderr, /broken\.yaml: document 1 is not valid YAML/);
    const missing = await runCli([
      "cluster-info",
      "verify",
      path.join(dir, "nope.yaml"),
      "--token",
      T1,
      "--ca-cert-hash",
      HASH,
    ]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /nope\.yaml: no such file or directory/);
    const noToken = await runCli(["cluster-info", "verify", file]);
    assert.equal(noToken.code, 2);
  } finally {
    cleanup();
  }
});

Deno.test("CLI cluster-info verify and kubeconfig bootstrap refuse a second, unpinned cluster (exit 3, one line)", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const b64 = (f: string) => fs.readFileSync(f).toString("base64");
    const evil = repoPath("tests/fixtures/pin/test-cert2.pem");
    // The pinned CA sits in the unnamed cluster kubeadm uses; an attacker CA in another one
    // that kubeadm's validateClusterCA may check instead (Go map order).
    const kubeconfig =
      `apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    certificate-authority-data: ${
        b64(CA)
      }\n    server: https://10.0.0.1:6443\n  name: ""\n- cluster:\n    certificate-authority-data: ${
        b64(evil)
      }\n    server: https://10.6.6.6:6443\n  name: other\n`;
    const sig = computeDetachedSignature(kubeconfig, "abcdef", "0123456789abcdef");
    const file = path.join(dir, "ci.json");
    fs.writeFileSync(
      file,
      JSON.stringify({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "cluster-info", namespace: "kube-public" },
        data: { kubeconfig, "jws-kubeconfig-abcdef": sig },
      }),
    );
    const why = PREFIX +
      'cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "sha256:d1ef16989563fe7775f81a7dc55ce16a467ca9baedae2d081cb0a068b6a81971" are pinned';
    const verify = await runCli([
      "cluster-info",
      "verify",
      file,
      "--token",
      T1,
      "--ca-cert-hash",
      HASH,
    ]);
    assert.equal(verify.code, 3);
    assert.equal(verify.stdout, "");
    assert.equal(verify.stderr, `error: ${file}: ${why}\n`);
    const out = path.join(dir, "bootstrap.conf");
    const boot = await runCli([
      "kubeconfig",
      "bootstrap",
      "--cluster-info",
      file,
      "--token",
      T1,
      "--ca-cert-hash",
      HASH,
      "--out",
      out,
    ]);
    assert.equal(boot.code, 3);
    assert.equal(boot.stdout, "");
    assert.match(
      boot.stderr,
      /^error: [^\n]*none of the public keys "sha256:d1ef1698[0-9a-f]+" are pinned\n$/,
    );
    assert.equal(fs.existsSync(out), false);
    // Unsafe and unpinned: kubeadm's cluster (the unnamed one) is taken, nothing is parsed.
    const unsafe = await runCli([
      "cluster-info",
      "verify",
      file,
      "--token",
      T1,
      "--unsafe-skip-ca-verification",
    ]);
    assert.equal(unsafe.code, 0, unsafe.stderr);
    assert.match(unsafe.stdout, /server: https:\/\/10\.0\.0\.1:6443/);
  } finally {
    cleanup();
  }
});
