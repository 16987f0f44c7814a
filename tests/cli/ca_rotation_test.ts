/**
 * The manual CA rotation procedure (policy-lifecycle.md §4) through joinkit's
 * artefacts, end to end: before (old CA), during (old+new trust bundle,
 * certificates from the new CA) and after (new CA only), with
 * `ca rotation-check` telling at each step what still depends on the old CA
 * alone, and the reference's join-pin vector (§6 F).
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { Buffer } from "node:buffer";
import { runCli, tempDir } from "../_cli.ts";
import { parseManifests } from "../../lib/k8s/manifest.ts";

const CA_NOW = ["--now", "2026-01-01T00:00:00Z"];
const NOW = ["--now", "2026-02-01T00:00:00Z"];
const TOKEN = "abcdef.0123456789abcdef";
const SERVER = "https://10.0.0.1:6443";

const { dir, cleanup } = tempDir("joinkit-rotation-");
const p = (...n: string[]) => path.join(dir, ...n);

async function ok(argv: string[]): Promise<string> {
  const r = await runCli(argv);
  assert.equal(r.code, 0, `joinkit ${argv.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

async function pinOf(file: string): Promise<string> {
  return (await ok(["ca", "hash", file])).trim();
}

/** The rotation-check rows as {artefact suffix → status}. */
async function check(files: string[]): Promise<{ code: number; rows: Map<string, string> }> {
  const r = await runCli([
    "ca",
    "rotation-check",
    "--ca",
    p("new", "ca.crt"),
    ...files,
    "-o",
    "json",
  ]);
  assert.ok(r.code === 0 || r.code === 3, r.stderr);
  const rows = new Map<string, string>();
  for (const f of JSON.parse(r.stdout) as { artefact: string; status: string }[]) {
    rows.set(path.relative(dir, f.artefact), f.status);
  }
  return { code: r.code, rows };
}

function caCount(kubeconfigText: string): number {
  const m = /certificate-authority-data: (\S+)/.exec(kubeconfigText);
  assert.ok(m, kubeconfigText);
  return (Buffer.from(m[1]!, "base64").toString("utf8").match(/BEGIN CERTIFICATE/g) ?? []).length;
}

Deno.test("CLI ca rotation-check and the whole CA rotation flow: before, during, after", async () => {
  try {
    // Before: the cluster runs on the old CA.
    await ok(["ca", "create", "--out-dir", p("old"), ...CA_NOW]);
    await ok(["ca", "create", "--out-dir", p("new"), ...CA_NOW]);
    const oldPin = await pinOf(p("old", "ca.crt"));
    const newPin = await pinOf(p("new", "ca.crt"));
    await ok([
      "init",
      "--server",
      SERVER,
      "--ca",
      p("old", "ca.crt"),
      "--token",
      TOKEN,
      "--out-dir",
      p("before"),
      ...NOW,
    ]);
    await ok(["csr", "create", "--node", "worker-1", "--out-dir", p("node")]);
    fs.writeFileSync(
      p("old-issued.crt"),
      await ok([
        "csr",
        "sign",
        p("node", "kubelet-client.csr"),
        "--ca",
        p("old", "ca.crt"),
        "--ca-key",
        p("old", "ca.key"),
        ...NOW,
      ]),
    );
    const before = await check([p("before"), p("old-issued.crt")]);
    assert.equal(before.code, 3);
    assert.deepEqual(Object.fromEntries(before.rows), {
      'before/bootstrap-kubelet.conf: cluster "kubernetes"': "old-only",
      'before/bootstrap-token.yaml: ConfigMap kube-public/cluster-info: cluster ""': "old-only",
      "before/join-command.txt": "old-only",
      // init writes a JoinConfiguration too (join-config.yaml) where it has one.
      ...(fs.existsSync(p("before", "join-config.yaml"))
        ? { "before/join-config.yaml: JoinConfiguration (unnamed)": "old-only" }
        : {}),
      "old-issued.crt": "other-ca",
    });

    // During: trust bundle old+new everywhere a CA is read.
    fs.writeFileSync(
      p("bundle.crt"),
      fs.readFileSync(p("old", "ca.crt"), "utf8") + fs.readFileSync(p("new", "ca.crt"), "utf8"),
    );
    // cluster-info carries both, re-signed for the existing tokens (the bootstrapsigner's job).
    fs.writeFileSync(
      p("during-cluster-info.yaml"),
      await ok([
        "cluster-info",
        "create",
        "--server",
        SERVER,
        "--ca",
        p("bundle.crt"),
        "--secrets",
        p("before", "bootstrap-token.yaml"),
        ...NOW,
      ]),
    );
    const ci = parseManifests(fs.readFileSync(p("during-cluster-info.yaml"), "utf8"))[0]!;
    assert.equal(caCount(String((ci.data as Record<string, string>).kubeconfig)), 2);
    // A joiner pinned to either CA's key passes discovery (kubeadm's CheckAny).
    for (const pin of [oldPin, newPin]) {
      await ok([
        "cluster-info",
        "verify",
        p("during-cluster-info.yaml"),
        "--token",
        TOKEN,
        "--discovery-token-ca-cert-hash",
        pin,
        ...NOW,
      ]);
    }
    // §6 F: a pin of neither fails with kubeadm's text, every observed hash joined with ":".
    const other = "sha256:" + "ab".repeat(32);
    const bad = await runCli([
      "cluster-info",
      "verify",
      p("during-cluster-info.yaml"),
      "--token",
      TOKEN,
      "--discovery-token-ca-cert-hash",
      other,
      ...NOW,
    ]);
    assert.equal(bad.code, 3);
    assert.ok(
      bad.stderr.includes(
        `cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${oldPin}:${newPin}" are pinned`,
      ),
      bad.stderr,
    );
    // The bootstrap kubeconfig from it carries both CAs.
    const kb = await ok([
      "kubeconfig",
      "bootstrap",
      "--cluster-info",
      p("during-cluster-info.yaml"),
      "--token",
      TOKEN,
      "--discovery-token-ca-cert-hash",
      newPin,
      ...NOW,
    ]);
    fs.writeFileSync(p("during-bootstrap-kubelet.conf"), kb);
    assert.equal(caCount(kb), 2);
    const kb2 = await ok([
      "kubeconfig",
      "bootstrap",
      "--server",
      SERVER,
      "--ca",
      p("bundle.crt"),
      "--token",
      TOKEN,
      "--out",
      p("during-bootstrap-2.conf"),
      ...NOW,
    ]);
    void kb2;
    assert.equal(caCount(fs.readFileSync(p("during-bootstrap-2.conf"), "utf8")), 2);
    // The join command pins both, one flag per CA certificate, in bundle order.
    const join = await ok([
      "join-command",
      "--server",
      SERVER,
      "--token",
      TOKEN,
      "--ca",
      p("bundle.crt"),
      ...NOW,
    ]);
    assert.ok(
      join.includes(
        `--discovery-token-ca-cert-hash ${oldPin} --discovery-token-ca-cert-hash ${newPin}`,
      ),
      join,
    );
    fs.writeFileSync(p("during-join.txt"), join);
    // init with the bundle: the whole phase at once, self-checked.
    await ok([
      "init",
      "--server",
      SERVER,
      "--ca",
      p("bundle.crt"),
      "--token",
      TOKEN,
      "--out-dir",
      p("during-init"),
      ...NOW,
    ]);
    // New certificates come from the new CA; cert verify accepts either during the rotation.
    fs.writeFileSync(
      p("new-issued.crt"),
      await ok([
        "csr",
        "sign",
        p("node", "kubelet-client.csr"),
        "--ca",
        p("new", "ca.crt"),
        "--ca-key",
        p("new", "ca.key"),
        ...NOW,
      ]),
    );
    for (const c of ["old-issued.crt", "new-issued.crt"]) {
      await ok(["cert", "verify", p(c), "--ca", p("bundle.crt"), ...NOW]);
    }
    const during = await check([
      p("during-cluster-info.yaml"),
      p("during-bootstrap-kubelet.conf"),
      p("during-join.txt"),
      p("during-init"),
      p("new-issued.crt"),
      p("bundle.crt"),
    ]);
    assert.equal(during.code, 0);
    assert.deepEqual([...new Set(during.rows.values())].sort(), ["new-ca", "old+new"]);
    // The old certificate is still there to replace.
    assert.equal((await check([p("old-issued.crt")])).code, 3);

    // After: trust shrinks to the new CA.
    fs.writeFileSync(
      p("after-cluster-info.yaml"),
      await ok([
        "cluster-info",
        "create",
        "--server",
        SERVER,
        "--ca",
        p("new", "ca.crt"),
        "--secrets",
        p("before", "bootstrap-token.yaml"),
        ...NOW,
      ]),
    );
    fs.writeFileSync(
      p("after-join.txt"),
      await ok([
        "join-command",
        "--server",
        SERVER,
        "--token",
        TOKEN,
        "--ca",
        p("new", "ca.crt"),
        ...NOW,
      ]),
    );
    const after = await check([
      p("after-cluster-info.yaml"),
      p("after-join.txt"),
      p("new-issued.crt"),
    ]);
    assert.equal(after.code, 0);
    assert.deepEqual([...new Set(after.rows.values())].sort(), ["new-ca", "new-only"]);
    const oldPinned = await runCli([
      "cluster-info",
      "verify",
      p("after-cluster-info.yaml"),
      "--token",
      TOKEN,
      "--discovery-token-ca-cert-hash",
      oldPin,
      ...NOW,
    ]);
    assert.equal(oldPinned.code, 3);
    const oldCert = await runCli([
      "cert",
      "verify",
      p("old-issued.crt"),
      "--ca",
      p("new", "ca.crt"),
      ...NOW,
    ]);
    assert.equal(oldCert.code, 3);
  } finally {
    cleanup();
  }
});

Deno.test("CLI ca rotation-check text table, summary line; unreadable and foreign files skipped", async () => {
  const t = tempDir("joinkit-rotation-b-");
  try {
    const q = (...n: string[]) => path.join(t.dir, ...n);
    await ok(["ca", "create", "--out-dir", q("old"), ...CA_NOW]);
    await ok(["ca", "create", "--out-dir", q("new"), ...CA_NOW]);
    fs.mkdirSync(q("arts"));
    fs.writeFileSync(
      q("arts", "broken.crt"),
      "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
    );
    fs.writeFileSync(q("arts", "notes.txt"), "nothing here\n");
    fs.writeFileSync(q("arts", ".hidden.crt"), fs.readFileSync(q("old", "ca.crt")));
    fs.copyFileSync(q("old", "ca.crt"), q("arts", "ca.crt"));
    fs.copyFileSync(q("old", "ca.key"), q("arts", "ca.key"));
    fs.symlinkSync("ca.crt", q("arts", "link.crt")); // followed, as kubelet-client-current.pem
    fs.writeFileSync(
      q("arts", "join.sh"),
      "kubeadm join 10.0.0.1:6443 --token x --discovery-token-unsafe-skip-ca-verification\n",
    );
    const r = await runCli(["ca", "rotation-check", "--ca", q("new", "ca.crt"), q("arts")]);
    assert.equal(r.code, 3, r.stderr);
    const lines = r.stdout.trimEnd().split("\n");
    assert.match(lines[0]!, /^ARTEFACT {3,}KIND {3,}STATUS {3,}DETAIL$/);
    assert.equal(lines.length, 4, r.stdout);
    assert.match(
      lines[1]!,
      /arts\/ca\.crt +CA bundle +old-only +1 CA certificate, 0 of them the new CA$/,
    );
    assert.match(lines[2]!, /arts\/join\.sh +join command pins +unpinned +no CA pins$/);
    assert.match(lines[3]!, /arts\/link\.crt +CA bundle +old-only /);
    const err = r.stderr.trimEnd().split("\n");
    assert.equal(err.length, 3, r.stderr);
    assert.match(err[0]!, /^skipped: .*broken\.crt: /);
    assert.match(err[1]!, /^skipped: .*notes\.txt: /);
    assert.equal(
      err[2],
      "error: 2 artefact(s) still trust, pin or were issued by the old CA only (3 artefact(s) checked in 4 file(s), 2 skipped)",
    );
    assert.doesNotMatch(r.stdout + r.stderr, /PRIVATE KEY/);

    const missing = await runCli(["ca", "rotation-check", "--ca", q("new", "ca.crt"), q("nope")]);
    assert.equal(missing.code, 1);
    assert.equal(missing.stdout, "");
    const noCa = await runCli(["ca", "rotation-check", q("arts")]);
    assert.equal(noCa.code, 2);
    assert.equal(noCa.stderr, "error: missing required flag --ca\n");
  } finally {
    t.cleanup();
  }
});

Deno.test("CLI ca rotation-check walks a directory reached again through a symlink loop once (each artefact one row, exit 0)", async () => {
  const t = tempDir("joinkit-rotation-loop-");
  try {
    const q = (...n: string[]) => path.join(t.dir, ...n);
    await ok(["ca", "create", "--out-dir", q("new"), ...CA_NOW]);
    fs.mkdirSync(q("tree", "pki"), { recursive: true });
    fs.copyFileSync(q("new", "ca.crt"), q("tree", "pki", "ca.crt"));
    fs.symlinkSync("..", q("tree", "pki", "up")); // tree/pki/up/pki/up/... loops
    const r = await runCli(["ca", "rotation-check", "--ca", q("new", "ca.crt"), q("tree")]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split("\n");
    assert.equal(lines.length, 2, r.stdout);
    assert.match(lines[1]!, /tree\/pki\/ca\.crt +CA bundle +new-only /);
    assert.equal(
      r.stderr.trim(),
      "1 artefact(s) checked in 1 file(s); none depends on the old CA only",
    );
  } finally {
    t.cleanup();
  }
});

Deno.test("CLI ca rotation-check: a file of join commands where one still pins only the old CA fails (exit 3), whatever the others pin or a comment says", async () => {
  const t = tempDir("joinkit-rotation-cmds-");
  try {
    const q = (...n: string[]) => path.join(t.dir, ...n);
    await ok(["ca", "create", "--out-dir", q("old"), ...CA_NOW]);
    await ok(["ca", "create", "--out-dir", q("new"), ...CA_NOW]);
    const oldPin = await pinOf(q("old", "ca.crt"));
    const newPin = await pinOf(q("new", "ca.crt"));
    const cmd = (pin: string) =>
      `kubeadm join 10.0.0.1:6443 --token ${TOKEN} --discovery-token-ca-cert-hash ${pin}\n`;
    fs.writeFileSync(q("nodes.sh"), `# ${cmd(newPin)}${cmd(oldPin)}`);
    const r = await runCli(["ca", "rotation-check", "--ca", q("new", "ca.crt"), q("nodes.sh")]);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stdout, /nodes\.sh +join command pins +old-only +1 pin, 0 of them the new CA's/);
    fs.writeFileSync(q("two.sh"), `${cmd(`'${newPin}'`)}${cmd(oldPin)}`);
    const two = await runCli(["ca", "rotation-check", "--ca", q("new", "ca.crt"), q("two.sh")]);
    assert.equal(two.code, 3, two.stderr);
    const rows = two.stdout.trimEnd().split("\n").slice(1);
    assert.equal(rows.length, 2, two.stdout);
    assert.match(rows[0]!, /two\.sh \(line 1\) +join command pins +new-only /);
    assert.match(rows[1]!, /two\.sh \(line 2\) +join command pins +old-only /);
  } finally {
    t.cleanup();
  }
});
