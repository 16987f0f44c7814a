/**
 * External-CA mode end to end through the real CLI: `certs generate-csr`
 * on the node, the CSRs signed elsewhere (joinkit's `certs sign-csr`, or
 * openssl as "any CA"), `certs assemble` back on the node; then `doctor`
 * and `certs check-expiration` over the tree, each refusal as one line with
 * nothing written, and — when /opt/judges/kubeadm is there and the test
 * runs as root — real kubeadm reading the tree in external-CA mode through
 * `--rootfs` (a chroot into a temp dir: the real /etc/kubernetes is never
 * touched), compared with its recorded verdict.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import process from "node:process";
import { execFileSync } from "node:child_process";
import { repoPath, runCli, tempDir } from "../_cli.ts";

const FIXTURES = repoPath("tests", "fixtures", "kubeadm_pki");
const ECDSA = path.join(FIXTURES, "ecdsa_variations.yaml");
const NOW = ["--now", "2026-06-04T10:00:00Z"];
const KUBEADM = "/opt/judges/kubeadm";

const root = tempDir("joinkit-certs-assemble-");
globalThis.addEventListener("unload", root.cleanup);
let n = 0;
const fresh = () => path.join(root.dir, `t${n++}`);

/** Every file under `dir` with its bytes, for "nothing was written". */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(path.relative(dir, p), fs.readFileSync(p, "latin1"));
    }
  };
  walk(dir);
  return out;
}

// The CA's machine: a tree whose CA pairs stand in for the offline CAs.
const cas = fresh();
const made = await runCli(["certs", "generate", "--config", ECDSA, "--out-dir", cas, ...NOW]);
if (made.code !== 0) throw new Error(made.stderr);
const caFlags = (keys: boolean) => [
  "--ca",
  path.join(cas, "pki/ca.crt"),
  ...(keys ? ["--ca-key", path.join(cas, "pki/ca.key")] : []),
  "--front-proxy-ca",
  path.join(cas, "pki/front-proxy-ca.crt"),
  ...(keys ? ["--front-proxy-ca-key", path.join(cas, "pki/front-proxy-ca.key")] : []),
  "--etcd-ca",
  path.join(cas, "pki/etcd/ca.crt"),
  ...(keys ? ["--etcd-ca-key", path.join(cas, "pki/etcd/ca.key")] : []),
];

/** A generate-csr directory and its CSRs signed by sign-csr into another. */
async function csrsAndSigned(): Promise<{ node: string; signed: string }> {
  const node = fresh();
  const g = await runCli(["certs", "generate-csr", "--config", ECDSA, "--out-dir", node, ...NOW]);
  assert.equal(g.code, 0, g.stderr);
  const signed = fresh();
  const s = await runCli([
    "certs",
    "sign-csr",
    node,
    ...caFlags(true),
    "--out-dir",
    signed,
    ...NOW,
  ]);
  assert.equal(s.code, 0, s.stderr);
  return { node, signed };
}

Deno.test("CLI certs assemble completes the tree; doctor and check-expiration --config pass it; a rerun writes nothing", async () => {
  const { node, signed } = await csrsAndSigned();
  const r = await runCli([
    "certs",
    "assemble",
    "--out-dir",
    node,
    "--config",
    ECDSA,
    ...caFlags(false),
    signed,
    ...NOW,
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /\[kubeconfig\] super-admin\.conf: .*super-admin\.conf\.crt\n/);
  assert.match(r.stderr, /wrote 15 file\(s\) under /); // 3 CA certificates, 7 leaves, 5 kubeconfigs
  for (const ca of ["pki/ca.key", "pki/front-proxy-ca.key", "pki/etcd/ca.key"]) {
    assert.ok(!fs.existsSync(path.join(node, ca)), ca);
  }
  const doc = await runCli(["doctor", node, "--config", ECDSA, ...NOW]);
  assert.equal(doc.code, 0, doc.stdout + doc.stderr);
  assert.match(doc.stdout, /1 kubeadm PKI tree, .*: 0 findings, 0 files skipped\n$/);
  const exp = await runCli(["certs", "check-expiration", node, "--config", ECDSA, ...NOW]);
  assert.equal(exp.code, 0, exp.stderr);
  // kubeadm's rows for an external CA: every certificate externally managed.
  assert.match(exp.stdout, /^apiserver +Jun 04, 2027 10:00 UTC +\S+ +ca +yes {5}$/m);
  // joinkit's extra kubelet.conf row: its CA's key is absent too.
  assert.match(exp.stdout, /^kubelet\.conf +.* ca +yes {5}$/m);
  assert.match(exp.stdout, /^super-admin\.conf +\S+ \d\d, \d{4} \d\d:\d\d UTC +\S+ +ca +yes {5}$/m);
  assert.match(exp.stdout, /^front-proxy-ca +\S+ \d\d, \d{4} \d\d:\d\d UTC +\S+ +yes {5}$/m);
  const before = snapshot(node);
  const again = await runCli(["certs", "assemble", "--out-dir", node, "--config", ECDSA, ...NOW]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, /wrote 0 file\(s\) under /);
  assert.deepEqual(snapshot(node), before);
});

Deno.test("CLI certs assemble takes certificates any CA signed (openssl x509 -req), under any file names", async () => {
  const node = fresh();
  assert.equal(
    (await runCli(["certs", "generate-csr", "--config", ECDSA, "--out-dir", node, ...NOW])).code,
    0,
  );
  const signed = fresh();
  fs.mkdirSync(signed);
  const ca: Record<string, string> = {
    "front-proxy-client": "front-proxy-ca",
    "etcd/server": "etcd/ca",
    "etcd/peer": "etcd/ca",
    "etcd/healthcheck-client": "etcd/ca",
    "apiserver-etcd-client": "etcd/ca",
  };
  const csrsList = [
    "pki/apiserver",
    "pki/apiserver-kubelet-client",
    "pki/front-proxy-client",
    "pki/etcd/server",
    "pki/etcd/peer",
    "pki/etcd/healthcheck-client",
    "pki/apiserver-etcd-client",
    "admin.conf",
    "super-admin.conf",
    "kubelet.conf",
    "controller-manager.conf",
    "scheduler.conf",
  ];
  for (const [i, c] of csrsList.entries()) {
    const name = c.replace(/^pki\//, "");
    const caBase = ca[name] ?? "ca";
    const eku = name === "apiserver"
      ? "serverAuth"
      : name === "etcd/server" || name === "etcd/peer"
      ? "serverAuth,clientAuth"
      : "clientAuth";
    const ext = path.join(signed, `ext${i}.cnf`);
    fs.writeFileSync(
      ext,
      `keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=${eku}\nbasicConstraints=critical,CA:FALSE\n`,
    );
    try {
      execFileSync("openssl", [
        "x509",
        "-req",
        "-in",
        path.join(node, `${c}.csr`),
        "-CA",
        path.join(cas, `pki/${caBase}.crt`),
        "-CAkey",
        path.join(cas, `pki/${caBase}.key`),
        "-days",
        "365",
        "-copy_extensions",
        "copy",
        "-extfile",
        ext,
        "-out",
        path.join(signed, `cert-${i}.pem`),
      ], { stdio: "pipe" });
    } catch (e) {
      if ((e as { code?: string }).code === "ENOENT") return; // no openssl here
      throw e;
    }
    fs.rmSync(ext);
  }
  const r = await runCli(["certs", "assemble", "--out-dir", node, ...caFlags(false), signed]);
  assert.equal(r.code, 0, r.stderr);
  const doc = await runCli(["doctor", node, "--config", ECDSA]);
  assert.equal(doc.code, 0, doc.stdout + doc.stderr);
});

Deno.test("CLI certs assemble refuses with one line and writes nothing: a CA key here, a missing or foreign certificate", async () => {
  const { node, signed } = await csrsAndSigned();
  const other = fresh();
  assert.equal(
    (await runCli(["certs", "generate", "--config", ECDSA, "--out-dir", other, ...NOW])).code,
    0,
  );
  const run = (args: string[]) => runCli(["certs", "assemble", "--out-dir", node, ...args, ...NOW]);
  const before = snapshot(node);
  // A check that says no is 3 (the CA key here, a certificate that does not chain); a missing file 1.
  const cases: [string, () => void, string[], RegExp, number][] = [
    [
      "ca.key in the tree",
      () => fs.copyFileSync(path.join(cas, "pki/ca.key"), path.join(node, "pki/ca.key")),
      [...caFlags(false), signed],
      /^error: invalid or incomplete external CA: pki\/ca\.key exists: in external-CA mode the CA key must not be on this machine/,
      3,
    ],
    [
      "no signed certificate for etcd/peer",
      () => fs.rmSync(path.join(signed, "pki/etcd/peer.crt")),
      [...caFlags(false), signed],
      /^error: invalid or incomplete external etcd CA: failure loading certificate for etcd peer: pki\/etcd\/peer\.crt: missing: no signed certificate for pki\/etcd\/peer\.key among the inputs$/,
      1,
    ],
    [
      "the cluster CA is another",
      () => {},
      [
        "--ca",
        path.join(other, "pki/ca.crt"),
        "--front-proxy-ca",
        path.join(cas, "pki/front-proxy-ca.crt"),
        "--etcd-ca",
        path.join(cas, "pki/etcd/ca.crt"),
        signed,
      ],
      /^error: invalid or incomplete external CA: .*apiserver\.crt: certificate API server is not signed by corresponding CA: x509: certificate signed by unknown authority/,
      3,
    ],
  ];
  for (const [what, setup, args, want, code] of cases) {
    const saved = snapshot(signed);
    setup();
    const r = await run(args);
    assert.equal(r.code, code, `${what}: ${r.stderr}`);
    assert.match(r.stderr.trimEnd(), want, what);
    assert.equal(r.stderr.trimEnd().split("\n").length, 1, what);
    fs.rmSync(path.join(node, "pki/ca.key"), { force: true });
    assert.deepEqual(snapshot(node), before, `${what}: nothing written`);
    for (const [p, data] of saved) {
      fs.mkdirSync(path.dirname(path.join(signed, p)), { recursive: true });
      fs.writeFileSync(path.join(signed, p), data, "latin1");
    }
  }
});

/** kubeadm's --rootfs is a chroot: it needs the judge and root. */
const JUDGE = fs.existsSync(KUBEADM) && process.getuid?.() === 0;

Deno.test({
  name:
    "CLI certs assemble: real kubeadm v1.32.5 takes the tree in external-CA mode, as recorded (--rootfs; ignored without kubeadm or root)",
  ignore: !JUDGE,
  fn: async () => {
    const { node, signed } = await csrsAndSigned();
    const r = await runCli(["certs", "assemble", "--out-dir", node, ...caFlags(false), signed]);
    assert.equal(r.code, 0, r.stderr);
    const chroot = fresh();
    fs.mkdirSync(path.join(chroot, "etc"), { recursive: true });
    fs.cpSync(node, path.join(chroot, "etc", "kubernetes"), { recursive: true });
    fs.copyFileSync(ECDSA, path.join(chroot, "cfg.yaml"));
    const before = snapshot(chroot);
    const kubeadm = (...args: string[]) =>
      execFileSync(KUBEADM, [...args, "--config", "/cfg.yaml", "--rootfs", chroot], {
        encoding: "utf8",
        stdio: "pipe",
      }).trimEnd().split("\n");
    const recorded = JSON.parse(
      fs.readFileSync(path.join(FIXTURES, "external_ca", "kubeadm_verdicts.json"), "utf8"),
    ).assembled;
    assert.deepEqual(kubeadm("init", "phase", "certs", "all"), recorded.initPhaseCertsAll);
    assert.deepEqual(
      kubeadm("init", "phase", "kubeconfig", "all"),
      recorded.initPhaseKubeconfigAll,
    );
    assert.deepEqual(snapshot(chroot), before, "kubeadm generated or changed nothing");
  },
});
