/**
 * `joinkit certs generate-csr` and `certs sign-csr` through the real CLI:
 * kubeadm's files, modes and lines; refusals as one stderr line with
 * nothing written; the signer's kubeadm profile, cross-checked with openssl.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { execFileSync } from "node:child_process";
import { repoPath, runCli, tempDir } from "../_cli.ts";

const FIXTURES = repoPath("tests", "fixtures", "kubeadm_pki");
const ECDSA = path.join(FIXTURES, "ecdsa_variations.yaml");
const NOW = ["--now", "2026-06-04T10:00:00Z"];

const root = tempDir("joinkit-certs-csr-");
globalThis.addEventListener("unload", root.cleanup);
let n = 0;
const fresh = () => path.join(root.dir, `t${n++}`);
const mode = (f: string) => (fs.statSync(f).mode & 0o777).toString(8);
function listing(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(`${path.relative(dir, p)} ${mode(p)}`);
    }
  };
  walk(dir);
  return out.sort();
}

Deno.test("CLI certs generate-csr writes kubeadm's keys, CSRs and key-only kubeconfigs (and sa), with its modes and lines", async () => {
  const out = fresh();
  const r = await runCli(["certs", "generate-csr", "--config", ECDSA, "--out-dir", out, ...NOW]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "");
  const want = JSON.parse(
    fs.readFileSync(path.join(FIXTURES, "external_ca", "kubeadm_generate_csr_ecdsa.json"), "utf8"),
  ) as Record<string, { mode: string }>;
  const kubeadmFiles = Object.entries(want).filter(([p]) => !p.endsWith("/")).map(([p, f]) =>
    `${p} ${f.mode}`
  );
  assert.deepEqual(listing(out), [...kubeadmFiles, "pki/sa.key 600", "pki/sa.pub 600"].sort());
  assert.equal(mode(path.join(out, "pki")), want["pki/"]!.mode);
  assert.equal(mode(path.join(out, "pki", "etcd")), want["pki/etcd/"]!.mode);
  const lines = r.stderr.trimEnd().split("\n");
  assert.equal(lines[0], "generating keys and CSRs in pki");
  assert.deepEqual(lines.slice(1, 8).map((l) => l.trim()).sort(), [
    "apiserver",
    "apiserver-etcd-client",
    "apiserver-kubelet-client",
    "etcd/healthcheck-client",
    "etcd/peer",
    "etcd/server",
    "front-proxy-client",
  ]);
  assert.equal(lines.at(-1), `wrote 26 file(s) under ${out}`);
  // openssl reads every CSR and says its signature verifies.
  for (const f of listing(out).map((l) => l.split(" ")[0]!).filter((p) => p.endsWith(".csr"))) {
    try {
      execFileSync("openssl", ["req", "-in", path.join(out, f), "-noout", "-verify"], {
        stdio: "pipe",
      });
    } catch (e) {
      if ((e as { code?: string }).code === "ENOENT") break; // no openssl here
      throw e;
    }
  }
});

Deno.test("CLI certs generate-csr refuses an existing key, CSR or kubeconfig (exit 1, one line, nothing written) unless --force", async () => {
  const out = fresh();
  fs.mkdirSync(path.join(out, "pki"), { recursive: true });
  fs.writeFileSync(path.join(out, "pki", "apiserver.key"), "mine\n", { mode: 0o600 });
  const r = await runCli(["certs", "generate-csr", "--config", ECDSA, "--out-dir", out, ...NOW]);
  assert.equal(r.code, 1);
  assert.equal(r.stderr, "error: file already exists: key or CSR pki/apiserver\n");
  assert.deepEqual(listing(out), ["pki/apiserver.key 600"]);
  assert.equal(fs.readFileSync(path.join(out, "pki", "apiserver.key"), "utf8"), "mine\n");
  const forced = await runCli([
    "certs",
    "generate-csr",
    "--config",
    ECDSA,
    "--out-dir",
    out,
    "--force",
    ...NOW,
  ]);
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(fs.readFileSync(path.join(out, "pki", "apiserver.key"), "utf8"), /^-----BEGIN EC/);
  const usage = await runCli(["certs", "generate-csr", "--out-dir", fresh(), ...NOW]);
  assert.equal(usage.code, 2);
  assert.equal(
    usage.stderr,
    "error: give --config FILE, or --node-name and --apiserver-advertise-address (and the other values as flags)\n",
  );
  const mixed = await runCli([
    "certs",
    "generate-csr",
    "--config",
    ECDSA,
    "--service-cidr",
    "10.0.0.0/16",
    "--out-dir",
    fresh(),
  ]);
  assert.equal(mixed.code, 2);
  assert.equal(mixed.stderr, "error: can not mix '--config' with arguments [service-cidr]\n");
});

Deno.test("CLI certs generate-csr with kubeadm's flags instead of --config writes the same requests and kubeconfigs", async () => {
  const byConfig = fresh();
  const byFlags = fresh();
  assert.equal(
    (await runCli(["certs", "generate-csr", "--config", ECDSA, "--out-dir", byConfig, ...NOW]))
      .code,
    0,
  );
  const r = await runCli([
    "certs",
    "generate-csr",
    "--node-name",
    "CP-1",
    "--apiserver-advertise-address",
    "10.0.0.10",
    "--apiserver-bind-port",
    "7443",
    "--cluster-name",
    "prod",
    "--control-plane-endpoint",
    "192.0.2.100",
    "--encryption-algorithm",
    "ECDSA-P256",
    "--service-cidr",
    "10.96.0.0/12,fd00:10:96::/112",
    "--service-dns-domain",
    "corp.internal",
    "--apiserver-cert-extra-sans",
    "KUBERNETES,10.0.0.10,*.Example.com",
    "--etcd-server-cert-extra-sans",
    "etcd.example.com,10.0.0.11",
    "--etcd-peer-cert-extra-sans",
    "peer.example.com",
    "--out-dir",
    byFlags,
    ...NOW,
  ]);
  assert.equal(r.code, 0, r.stderr);
  const mask = (f: string) => fs.readFileSync(f, "utf8").replace(/(client-key-data: ).*/, "$1X");
  for (const k of ["admin.conf", "kubelet.conf", "scheduler.conf"]) {
    assert.equal(mask(path.join(byFlags, k)), mask(path.join(byConfig, k)), k);
  }
  for (
    const csr of [
      "pki/apiserver.csr",
      "pki/etcd/server.csr",
      "pki/etcd/peer.csr",
      "kubelet.conf.csr",
    ]
  ) {
    const facts = (dir: string) => {
      try {
        return execFileSync("openssl", [
          "req",
          "-in",
          path.join(dir, csr),
          "-noout",
          "-subject",
          "-text",
        ], { encoding: "utf8", stdio: "pipe" }).split("\n").filter((l) =>
          /subject=|DNS:|IP Address:/.test(l)
        ).join("\n");
      } catch (e) {
        if ((e as { code?: string }).code === "ENOENT") return "";
        throw e;
      }
    };
    assert.equal(facts(byFlags), facts(byConfig), csr);
  }
});

Deno.test("CLI certs sign-csr signs with each CA as kubeadm does (openssl verify with its purpose), passes over CSRs whose CA is absent", async () => {
  const cas = fresh();
  const g = await runCli(["certs", "generate", "--config", ECDSA, "--out-dir", cas, ...NOW]);
  assert.equal(g.code, 0, g.stderr);
  const node = fresh();
  assert.equal(
    (await runCli(["certs", "generate-csr", "--config", ECDSA, "--out-dir", node, ...NOW])).code,
    0,
  );
  const signed = fresh();
  const only = await runCli([
    "certs",
    "sign-csr",
    node,
    "--ca",
    path.join(cas, "pki/ca.crt"),
    "--ca-key",
    path.join(cas, "pki/ca.key"),
    "--out-dir",
    signed,
    ...NOW,
  ]);
  assert.equal(only.code, 0, only.stderr);
  assert.match(only.stderr, /^warning: pki\/etcd\/server\.csr: not signed: no --etcd-ca given$/m);
  assert.match(
    only.stderr,
    /^warning: pki\/front-proxy-client\.csr: not signed: no --front-proxy-ca given$/m,
  );
  assert.match(only.stderr, /wrote 7 certificate\(s\) under /);
  const all = await runCli([
    "certs",
    "sign-csr",
    node,
    "--ca",
    path.join(cas, "pki/ca.crt"),
    "--ca-key",
    path.join(cas, "pki/ca.key"),
    "--front-proxy-ca",
    path.join(cas, "pki/front-proxy-ca.crt"),
    "--front-proxy-ca-key",
    path.join(cas, "pki/front-proxy-ca.key"),
    "--etcd-ca",
    path.join(cas, "pki/etcd/ca.crt"),
    "--etcd-ca-key",
    path.join(cas, "pki/etcd/ca.key"),
    "--out-dir",
    signed,
    "--force",
    ...NOW,
  ]);
  assert.equal(all.code, 0, all.stderr);
  assert.match(all.stderr, /wrote 12 certificate\(s\) under /);
  const checks: [string, string, string][] = [
    ["pki/apiserver.crt", "pki/ca.crt", "sslserver"],
    ["pki/apiserver-kubelet-client.crt", "pki/ca.crt", "sslclient"],
    ["pki/front-proxy-client.crt", "pki/front-proxy-ca.crt", "sslclient"],
    ["pki/etcd/server.crt", "pki/etcd/ca.crt", "sslserver"],
    ["pki/etcd/peer.crt", "pki/etcd/ca.crt", "sslclient"],
    ["pki/apiserver-etcd-client.crt", "pki/etcd/ca.crt", "sslclient"],
    ["super-admin.conf.crt", "pki/ca.crt", "sslclient"],
  ];
  for (const [crt, ca, purpose] of checks) {
    try {
      const o = execFileSync("openssl", [
        "verify",
        "-attime",
        String(Date.parse("2026-06-04T10:00:00Z") / 1000),
        "-purpose",
        purpose,
        "-CAfile",
        path.join(cas, ca),
        path.join(signed, crt),
      ], { encoding: "utf8", stdio: "pipe" });
      assert.match(o, /: OK\n$/, crt);
    } catch (e) {
      if ((e as { code?: string }).code === "ENOENT") return; // no openssl here
      throw e;
    }
  }
  // A CA flag without its key is a usage error; no CSR directory is bad input.
  const half = await runCli([
    "certs",
    "sign-csr",
    node,
    "--ca",
    path.join(cas, "pki/ca.crt"),
    "--out-dir",
    fresh(),
    ...NOW,
  ]);
  assert.equal(half.code, 2);
  assert.equal(half.stderr, "error: --ca and --ca-key go together\n");
  const empty = fresh();
  fs.mkdirSync(empty);
  const none = await runCli([
    "certs",
    "sign-csr",
    empty,
    "--ca",
    path.join(cas, "pki/ca.crt"),
    "--ca-key",
    path.join(cas, "pki/ca.key"),
    "--out-dir",
    fresh(),
    ...NOW,
  ]);
  assert.equal(none.code, 1);
  assert.equal(
    none.stderr,
    `error: ${empty}: no CSR of certs generate-csr (pki/*.csr, *.conf.csr)\n`,
  );
});

Deno.test("CLI certs generate-csr with the ControlPlaneKubeletLocalMode and PublicKeysECDSA gates: kubeadm v1.32.5's servers and key type; kubelet.conf at the local endpoint as kubeadm init writes it", async () => {
  const judged = JSON.parse(
    fs.readFileSync(path.join(FIXTURES, "external_ca", "kubelet_local_mode.json"), "utf8"),
  ) as {
    config: string;
    generate_csr: Record<string, { server?: string; pemType?: string }>;
    init_phase_kubeconfig: Record<string, { server: string }>;
  };
  const config = path.join(root.dir, "gates.yaml");
  fs.writeFileSync(config, judged.config);
  const out = fresh();
  const r = await runCli(["certs", "generate-csr", "--config", config, "--out-dir", out, ...NOW]);
  assert.equal(r.code, 0, r.stderr);
  for (const [file, want] of Object.entries(judged.generate_csr)) {
    const text = fs.readFileSync(path.join(out, file), "utf8");
    if (want.pemType) assert.equal(text.split("\n")[0], want.pemType, file); // the gate: P-256
    if (!want.server) continue;
    const server = /server: (\S+)/.exec(text)?.[1];
    // kubeadm's generate-csr leaves kubelet.conf on the control-plane endpoint; with the gate,
    // kubeadm init points it at the node's own API server, and so does joinkit (docs/kubeadm-pki.md).
    const expected = file === "kubelet.conf"
      ? judged.init_phase_kubeconfig["kubelet.conf"]!.server
      : want.server;
    assert.equal(server, expected, file);
  }
  assert.equal(judged.init_phase_kubeconfig["kubelet.conf"]!.server, "https://10.0.0.10:6443");
});
