/**
 * `joinkit certs generate-csr` and `certs sign-csr` through the real CLI:
 * kubeadm's files, modes and lines; refusals as one stderr line with
 * nothing written; the signer's kubeadm profile, cross-checked with openssl.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { execFileSync } from "node:child_process";
import process from "node:process";
import { repoPath, runCli, tempDir } from "../_cli.ts";

const FIXTURES = repoPath("tests", "fixtures", "kubeadm_pki");
const ECDSA = path.join(FIXTURES, "ecdsa_variations.yaml");
const NOW = ["--now", "2026-06-04T10:00:00Z"];
const KUBEADM = "/opt/judges/kubeadm";

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
    `error: ${empty}: no CSR of certs generate-csr (pki/*.csr, *.conf.csr, or node directories holding them)\n`,
  );
});

Deno.test("CLI certs generate-csr with the ControlPlaneKubeletLocalMode and PublicKeysECDSA gates: kubeadm v1.32.5's generate-csr servers (kubelet.conf on the control-plane endpoint) and key type", async () => {
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
    // kubeadm's generate-csr leaves kubelet.conf on the control-plane endpoint even with the gate
    // (only init phase kubeconfig honours it), and its external-CA check at init expects that.
    assert.equal(server, want.server, file);
  }
  assert.equal(judged.generate_csr["kubelet.conf"]!.server, "https://cp.example.com:6443");
  assert.equal(judged.init_phase_kubeconfig["kubelet.conf"]!.server, "https://10.0.0.10:6443");
});

Deno.test("CLI certs generate-csr for several nodes (--node and a NODES file): each node its keys, CSRs and SANs, one sa pair; sign-csr signs every node directory; assemble and renew work per node", async () => {
  const cas = fresh();
  const g = await runCli(["certs", "generate", "--config", ECDSA, "--out-dir", cas, ...NOW]);
  assert.equal(g.code, 0, g.stderr);
  const nodesFile = path.join(root.dir, "nodes.txt");
  fs.writeFileSync(nodesFile, "# the other two\ncp-2 10.0.0.12\ncp-3=10.0.0.13\n");
  const ha = fresh();
  const args = ["certs", "generate-csr", "--config", ECDSA, "--out-dir", ha];
  const r = await runCli([...args, "--node", "CP-1=10.0.0.11", nodesFile, ...NOW]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(fs.readdirSync(ha).sort().join(" "), "cp-1 cp-2 cp-3");
  const lines = r.stderr.trimEnd().split("\n");
  assert.equal(lines[0], "generating keys and CSRs in cp-1/pki");
  assert.ok(lines.includes("generating keys and CSRs in cp-3"), r.stderr);
  assert.equal(lines.at(-2), '[certs] Generating "sa" key and public key (one for every node)');
  assert.equal(lines.at(-1), `wrote 78 file(s) under ${ha}`); // 3 × (24 + sa pair)
  const sa = fs.readFileSync(path.join(ha, "cp-1/pki/sa.key"), "utf8");
  for (
    const [node, addr] of [["cp-1", "10.0.0.11"], ["cp-2", "10.0.0.12"], [
      "cp-3",
      "10.0.0.13",
    ]] as const
  ) {
    assert.equal(listing(path.join(ha, node)).length, 26, node);
    assert.equal(fs.readFileSync(path.join(ha, node, "pki/sa.key"), "utf8"), sa, node);
    try {
      const text = (f: string) =>
        execFileSync("openssl", ["req", "-in", path.join(ha, node, f), "-noout", "-text"], {
          encoding: "utf8",
          stdio: "pipe",
        });
      const api = text("pki/apiserver.csr");
      assert.match(api, new RegExp(`DNS:${node}\\b`), node);
      assert.match(api, new RegExp(`IP Address:${addr.replace(/\./g, "\\.")}\\b`), node);
      assert.match(text("pki/etcd/peer.csr"), new RegExp(`CN ?= ?${node}\\b`), node);
      assert.match(text("kubelet.conf.csr"), new RegExp(`CN ?= ?system:node:${node}\\b`), node);
      const pub = execFileSync("openssl", [
        "pkey",
        "-in",
        path.join(ha, node, "pki/sa.key"),
        "-pubout",
      ], {
        encoding: "utf8",
      });
      assert.equal(pub, fs.readFileSync(path.join(ha, node, "pki/sa.pub"), "utf8"), node);
    } catch (e) {
      if ((e as { code?: string }).code === "ENOENT") break; // no openssl here
      throw e;
    }
  }
  // cp-2's directory is what kubeadm v1.32.5's generate-csr wrote on cp-2 (the file with cp-2's
  // name and address): every CSR's subject and SANs, every kubeconfig but its key.
  const cp2 = JSON.parse(
    fs.readFileSync(path.join(FIXTURES, "external_ca", "kubeadm_generate_csr_cp2.json"), "utf8"),
  ) as {
    csrs: Record<string, { subject: string; sans: string }>;
    kubeconfigs: Record<string, string>;
  };
  assert.equal(Object.keys(cp2.csrs).length, 12);
  for (const [f, text] of Object.entries(cp2.kubeconfigs)) {
    const mine = fs.readFileSync(path.join(ha, "cp-2", f), "utf8").split(/(?<=\n)/)
      .filter((l) => !l.includes("client-key-data")).join("");
    assert.equal(mine, text, f);
  }
  try {
    for (const [f, want] of Object.entries(cp2.csrs)) {
      const t = execFileSync("openssl", [
        ...["req", "-in", path.join(ha, "cp-2", f), "-noout", "-subject", "-text"],
      ], { encoding: "utf8", stdio: "pipe" });
      assert.equal(/^subject=(.*)$/m.exec(t)?.[1]?.trim(), want.subject, f);
      assert.equal(
        /Subject Alternative Name:.*?\n\s*(.*)\n/.exec(t)?.[1]?.trim() ?? "",
        want.sans,
        f,
      );
    }
  } catch (e) {
    if ((e as { code?: string }).code !== "ENOENT") throw e; // no openssl here
  }
  // Each node's client keys are its own (kubeadm makes them on each node).
  assert.notEqual(
    fs.readFileSync(path.join(ha, "cp-1/pki/front-proxy-client.key"), "utf8"),
    fs.readFileSync(path.join(ha, "cp-2/pki/front-proxy-client.key"), "utf8"),
  );
  // A rerun refuses what exists; a duplicate is refused before anything is written.
  const again = await runCli([...args, "--node", "cp-1=10.0.0.11", ...NOW]);
  assert.equal(again.code, 1);
  assert.equal(again.stderr, "error: file already exists: key or CSR pki/apiserver\n");
  const dup = fresh();
  const d = await runCli([
    ...["certs", "generate-csr", "--config", ECDSA, "--out-dir", dup],
    ...["--node", "a=10.0.0.1", "--node", "b=10.0.0.1", ...NOW],
  ]);
  assert.equal(d.code, 1);
  assert.equal(d.stderr, 'error: nodes "a" and "b" have the same advertise address 10.0.0.1\n');
  assert.equal(fs.existsSync(dup), false);
  const one = await runCli([...args, "--node", "a=10.0.0.1", "--node-name", "x", ...NOW]);
  assert.equal(one.code, 2);
  assert.equal(
    one.stderr,
    "error: --node-name cannot be used with --node or a NODES file (the list gives every node's name and address)\n",
  );
  const bad = await runCli([...args, "--node", "a=10.0.0.999", "--config", "/nonexistent", ...NOW]);
  assert.equal(bad.code, 2);
  assert.match(
    bad.stderr,
    /^error: --node "a=10\.0\.0\.999": couldn't use "10\.0\.0\.999" as "apiserver-advertise-address", must be ipv4 or ipv6 address$/m,
  );

  // sign-csr over the whole HA directory: one directory per node in --out-dir.
  const signed = fresh();
  const caFlags = (keys: boolean) =>
    (["ca", "front-proxy-ca", "etcd-ca"] as const).flatMap((n) => {
      const base = path.join(cas, "pki", n === "etcd-ca" ? "etcd/ca" : n);
      return [`--${n}`, `${base}.crt`, ...(keys ? [`--${n}-key`, `${base}.key`] : [])];
    });
  const s = await runCli(["certs", "sign-csr", ha, ...caFlags(true), "--out-dir", signed, ...NOW]);
  assert.equal(s.code, 0, s.stderr);
  assert.match(s.stderr, /^signed cp-2\/pki\/apiserver\.crt$/m);
  assert.match(s.stderr, /wrote 36 certificate\(s\) under /);
  // assemble per node directory; renew per node directory.
  const node2 = path.join(ha, "cp-2");
  // With --config, --node says which node this directory is: its servers are judged as its own.
  const a = await runCli([
    ...["certs", "assemble", "--out-dir", node2, ...caFlags(false)],
    ...["--config", ECDSA, "--node", "cp-2=10.0.0.12", path.join(signed, "cp-2"), ...NOW],
  ]);
  assert.equal(a.code, 0, a.stderr);
  assert.deepEqual(a.stderr.split("\n").filter((l) => l && !l.startsWith("[")), [
    `wrote 15 file(s) under ${node2}`,
  ]);
  // Real kubeadm (when here, as root: --rootfs is a chroot) takes cp-2's directory in
  // external-CA mode with cp-2's configuration, as recorded: "Using existing" for everything.
  if (fs.existsSync(KUBEADM) && process.getuid?.() === 0) {
    const chroot = fresh();
    fs.mkdirSync(path.join(chroot, "etc"), { recursive: true });
    fs.cpSync(node2, path.join(chroot, "etc", "kubernetes"), { recursive: true });
    fs.writeFileSync(
      path.join(chroot, "cfg.yaml"),
      fs.readFileSync(ECDSA, "utf8").replace("10.0.0.10\n", "10.0.0.12\n")
        .replace("name: CP-1", "name: cp-2")
        .replace(/certificatesDir: .*/, "certificatesDir: /etc/kubernetes/pki"),
    );
    const kubeadm = (...a: string[]) =>
      execFileSync(KUBEADM, [...a, "--config", "/cfg.yaml", "--rootfs", chroot], {
        encoding: "utf8",
        stdio: "pipe",
      }).trimEnd().split("\n");
    const recorded = JSON.parse(
      fs.readFileSync(path.join(FIXTURES, "external_ca", "kubeadm_ha_node_verdicts.json"), "utf8"),
    );
    assert.deepEqual(kubeadm("init", "phase", "certs", "all"), recorded.initPhaseCertsAll);
    assert.deepEqual(
      kubeadm("init", "phase", "kubeconfig", "all"),
      recorded.initPhaseKubeconfigAll,
    );
  }
  const wrong = await runCli([
    ...["certs", "assemble", "--out-dir", path.join(ha, "cp-3"), ...caFlags(false)],
    path.join(signed, "cp-2"),
    ...NOW,
  ]);
  assert.equal(wrong.code, 1, "cp-2's certificates match no key of cp-3");
  // The whole HA directory in one run: each node with SIGNED/<node>; with --config, each node's
  // address by --node (missing one: a usage error naming it).
  const whole = ["certs", "assemble", "--out-dir", ha, ...caFlags(false), "--config", ECDSA];
  const noAddr = await runCli([...whole, "--node", "cp-1=10.0.0.11", signed, ...NOW]);
  assert.equal(noAddr.code, 2);
  assert.equal(
    noAddr.stderr,
    `error: --config with node directories: give --node cp-2=ADDRESS (its advertise address) for ${ha}/cp-2\n`,
  );
  const all = await runCli([
    ...whole,
    ...["--node", "cp-1=10.0.0.11", "--node", "cp-2=10.0.0.12", "--node", "cp-3=10.0.0.13"],
    ...[signed, ...NOW],
  ]);
  assert.equal(all.code, 0, all.stderr);
  const allLines = all.stderr.trimEnd().split("\n");
  assert.equal(allLines.at(-1), `wrote 30 file(s) under ${ha}`); // cp-1 and cp-3; cp-2 was done
  assert.ok(
    allLines.includes("cp-2: [certs] Using existing apiserver certificate and key on disk"),
  );
  assert.ok(
    allLines.includes(
      "cp-3: [certs] pki/apiserver.crt: " + path.join(signed, "cp-3/pki/apiserver.crt"),
    ),
    all.stderr,
  );
  assert.equal(allLines.filter((l) => !/^cp-\d: \[/.test(l)).length, 1, all.stderr); // no warning
  const rn = await runCli(["certs", "renew", "apiserver", "--out-dir", node2, ...NOW]);
  // An assembled tree holds no CA key: kubeadm's refusal (external CA), per node.
  assert.equal(rn.code, 1);
  assert.match(
    rn.stderr,
    /^error: Detected external ca, certificate for serving the Kubernetes API can't be renewed/,
  );
});
