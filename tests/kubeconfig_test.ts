import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { Buffer } from "node:buffer";
import {
  clusterInfoKubeconfig,
  clusterOf,
  goResolvesNonString,
  kubeconfigYaml,
  parseKubeconfig,
  tokenKubeconfig,
} from "../lib/kubeconfig.ts";
import { repoPath, runCli, tempDir } from "./_cli.ts";

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
  assert.throws(() => parseKubeconfig("clusters: [", "kc"), /kc: not YAML or JSON/);
  assert.throws(() => parseKubeconfig("- a\n", "kc"), /kc: not a kubeconfig/);
  assert.throws(() => parseKubeconfig("kind: Pod\n", "kc"), /kc: not a kubeconfig \(kind "Pod"\)/);
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
    assert.match(pinned.stderr, /signature for token ID "abcdef" is valid; CA pinned/);

    const unpinned = await runCli([
      "kubeconfig",
      "bootstrap",
      "--cluster-info",
      file,
      "--token",
      token,
    ]);
    assert.equal(unpinned.code, 0);
    assert.equal(unpinned.stdout, want.stdout);
    assert.match(unpinned.stderr, /CA NOT pinned/);

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
      const r = await runCli(["kubeconfig", "bootstrap", "--cluster-info", file, ...args]);
      assert.equal(r.code, code, args.join(" ") + ": " + r.stderr);
      assert.equal(r.stdout, "");
      assert.match(r.stderr, re);
      assert.ok(!r.stderr.includes("0123456789"));
    }
  } finally {
    cleanup();
  }
});
