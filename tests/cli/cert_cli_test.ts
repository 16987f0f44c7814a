import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { runCli, tempDir } from "../_cli.ts";
import { openssl, opensslCa } from "../_csr_pki.ts";

// A whole minute a day from now: after the openssl CAs' NotBefore (the real clock).
const NOW_MS = Math.floor(Date.now() / 60_000) * 60_000 + 86_400_000;
const NOW = iso(NOW_MS);
const YEAR = 365 * 86_400_000;
const MIN5 = 5 * 60_000;

function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

function kubeadmTime(ms: number): string {
  const d = new Date(ms);
  const m = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  const p = (n: number) => String(n).padStart(2, "0");
  return `${m[d.getUTCMonth()]} ${p(d.getUTCDate())}, ${d.getUTCFullYear()} ${p(d.getUTCHours())}:${
    p(d.getUTCMinutes())
  } UTC`;
}

async function issue(dir: string, node: string, ca: { crt: string; key: string }) {
  const pki = path.join(dir, node);
  const c = await runCli(["csr", "create", "--node", node, "--out-dir", pki]);
  assert.equal(c.code, 0, c.stderr);
  const crt = path.join(pki, "kubelet-client.crt");
  const s = await runCli([
    "csr",
    "sign",
    path.join(pki, "kubelet-client.csr"),
    "--ca",
    ca.crt,
    "--ca-key",
    ca.key,
    "--out",
    crt,
    "--now",
    NOW,
  ]);
  assert.equal(s.code, 0, s.stderr);
  const key = path.join(pki, "kubelet-client.key");
  const combined = path.join(pki, "kubelet-client-current.pem");
  fs.writeFileSync(combined, fs.readFileSync(crt, "utf8") + fs.readFileSync(key, "utf8"));
  return { crt, key, combined };
}

Deno.test("CLI cert verify passes an issued cert, the combined cert+key file and a kubeconfig", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const ca = opensslCa(dir, "ca");
    const w = await issue(dir, "w1", ca);
    const kubeconfig = path.join(dir, "kubelet.conf");
    const b64 = (f: string) => fs.readFileSync(f).toString("base64");
    fs.writeFileSync(
      kubeconfig,
      `apiVersion: v1
kind: Config
clusters:
- name: default-cluster
  cluster:
    server: https://10.0.0.1:6443
    certificate-authority-data: ${b64(ca.crt)}
users:
- name: default-auth
  user:
    client-certificate-data: ${b64(w.crt)}
    client-key-data: ${b64(w.key)}
contexts:
- name: default-context
  context: {cluster: default-cluster, user: default-auth}
current-context: default-context
`,
    );
    const r = await runCli([
      "cert",
      "verify",
      w.crt,
      w.combined,
      kubeconfig,
      "--ca",
      ca.crt,
      "--node",
      "w1",
      "--now",
      iso(NOW_MS + 86_400_000),
    ]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(r.stderr, "");
    assert.equal(r.stdout.match(/verdict: ok/g)?.length, 3);
    assert.match(r.stdout, /ok {4}key {7}private key \(.*kubelet-client-current\.pem\) matches/);
    assert.match(r.stdout, /user "default-auth": CN=system:node:w1,O=system:nodes/);
    const nb0 = NOW_MS - MIN5;
    assert.ok(
      r.stdout.includes(
        `info  rotation  the kubelet rotates it between ${iso(nb0 + 0.7 * YEAR)} and ${
          iso(nb0 + 0.9 * YEAR)
        }`,
      ),
      r.stdout,
    );
    const j = await runCli(["cert", "verify", w.crt, "--ca", ca.crt, "-o", "json", "--now", NOW]);
    const rep = JSON.parse(j.stdout);
    assert.equal(rep.ok, true);
    assert.deepEqual(rep.checks.map((c: { check: string }) => c.check), [
      "chain",
      "validity",
      "ca-flag",
      "eku",
      "signer",
    ]);
    // rotation window = NotBefore + [70 %, 90 %] of the lifetime (1 year here)
    const nb = NOW_MS - MIN5;
    const life = YEAR;
    assert.equal(Date.parse(rep.rotation.start), nb + 0.7 * life);
    assert.equal(Date.parse(rep.rotation.end), nb + 0.9 * life);
  } finally {
    cleanup();
  }
});

Deno.test("CLI cert verify fails a cert from another CA, a wrong node, a foreign key, an expired cert", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const ca = opensslCa(dir, "ca");
    const other = opensslCa(dir, "other", { cn: "other-ca" });
    const w = await issue(dir, "w1", ca);
    const x = await issue(dir, "x1", other);
    const cases: { args: string[]; fail: RegExp }[] = [
      {
        args: [x.crt, "--ca", ca.crt],
        fail:
          /^error: .*x1\/kubelet-client\.crt: chain: x509: certificate signed by unknown authority$/,
      },
      {
        args: [w.crt, "--ca", ca.crt, "--node", "w2"],
        fail: /^error: .*: node: CN is "system:node:w1", want system:node:w2$/,
      },
      {
        args: [w.crt, "--ca", ca.crt, "--key", x.key],
        fail:
          /^error: .*: key: private key \(.*x1\/kubelet-client\.key\) does not match the certificate's public key$/,
      },
      {
        args: [w.crt, "--ca", ca.crt, "--at", iso(NOW_MS + 400 * 86_400_000)],
        // Go's Verify judges the leaf's validity first; the validity line says it plainly.
        fail: new RegExp(
          `^error: .*w1/kubelet-client\\.crt: chain: x509: certificate has expired or is not yet valid: current time ${
            iso(NOW_MS + 400 * 86_400_000)
          } is after ${iso(NOW_MS + YEAR - MIN5)}; validity: ${iso(NOW_MS - MIN5)} to ${
            iso(NOW_MS + YEAR - MIN5)
          }, at ${iso(NOW_MS + 400 * 86_400_000)}: expired$`,
        ),
      },
      {
        args: [w.crt, "--ca", ca.crt, "--signer-name", "kubernetes.io/kubelet-serving"],
        fail:
          /^error: .*: chain: x509: certificate specifies an incompatible key usage; eku: ServerAuth required .*; signer: kubernetes\.io\/kubelet-serving: DNS or IP subjectAltName is required$/,
      },
    ];
    for (const c of cases) {
      const r = await runCli(["cert", "verify", ...c.args, "--now", NOW]);
      assert.equal(r.code, 3, r.stderr);
      const lines = r.stderr.trimEnd().split("\n");
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0]!, c.fail);
      assert.match(r.stdout, /FAIL/);
      assert.match(r.stdout, /verdict: FAILED/);
      assert.doesNotMatch(r.stdout + r.stderr, /PRIVATE KEY/);
    }
  } finally {
    cleanup();
  }
});

Deno.test("CLI cert verify reads many files in one run and judges each", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const ca = opensslCa(dir, "ca");
    const other = opensslCa(dir, "other", { cn: "other-ca" });
    const a = await issue(dir, "a", ca);
    const b = await issue(dir, "b", other);
    const r = await runCli([
      "cert",
      "verify",
      a.crt,
      b.crt,
      a.combined,
      "--ca",
      ca.crt,
      "--now",
      NOW,
    ]);
    assert.equal(r.code, 3);
    assert.equal(r.stdout.match(/verdict: ok/g)?.length, 2);
    assert.equal(r.stdout.match(/verdict: FAILED/g)?.length, 1);
    assert.equal(r.stderr.trimEnd().split("\n").length, 1);
  } finally {
    cleanup();
  }
});

Deno.test("CLI cert inspect shows fields openssl agrees with, and the SPKI pin", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const ca = opensslCa(dir, "ca", { type: "rsa" });
    const w = await issue(dir, "w1", ca);
    const r = await runCli(["cert", "inspect", w.crt, "-o", "json", "--now", NOW]);
    assert.equal(r.code, 0, r.stderr);
    const [c] = JSON.parse(r.stdout);
    assert.equal(c.subject, "CN=system:node:w1,O=system:nodes");
    assert.equal(c.issuer, "CN=kubernetes");
    assert.deepEqual(c.keyUsage, ["DigitalSignature"]);
    assert.deepEqual(c.extKeyUsage, ["ClientAuth"]);
    assert.equal(c.key, "ECDSA P-256");
    assert.equal(c.isCA, false);
    assert.equal(c.timeLeft, "364d");
    assert.equal(c.signatureAlgorithm, "SHA256-RSA");
    const serial = openssl("x509", "-in", w.crt, "-noout", "-serial").trim().replace("serial=", "");
    assert.equal(c.serialHex.replace(/:/g, "").replace(/^00/, ""), serial.replace(/^00/, ""));
    const pub = openssl("x509", "-in", w.crt, "-noout", "-pubkey");
    const spki = Buffer.from(pub.replace(/-----[^-]+-----/g, "").replace(/\s/g, ""), "base64");
    assert.equal(c.spkiPin, "sha256:" + createHash("sha256").update(spki).digest("hex"));
    const t = await runCli(["cert", "inspect", w.crt, "--now", NOW]);
    assert.ok(
      t.stdout.includes(`not after:     ${iso(NOW_MS + YEAR - MIN5)} (364d left)`),
      t.stdout,
    );
    assert.match(t.stdout, /ext key usage: ClientAuth/);
  } finally {
    cleanup();
  }
});

Deno.test("CLI cert inspect over a directory prints a kubeadm-style expiry table, skipping keys", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const pki = path.join(dir, "pki");
    fs.mkdirSync(pki);
    const ca = opensslCa(pki, "ca");
    const w = await issue(dir, "w1", ca);
    fs.copyFileSync(w.crt, path.join(pki, "kubelet.crt"));
    fs.copyFileSync(w.key, path.join(pki, "kubelet.key"));
    const r = await runCli(["cert", "inspect", pki, "--now", NOW]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split("\n");
    assert.match(lines[0]!, /^CERTIFICATE +EXPIRES +RESIDUAL TIME +CERTIFICATE AUTHORITY$/);
    assert.match(
      lines[1]!,
      new RegExp(`^kubelet +${kubeadmTime(NOW_MS + YEAR - MIN5)} +364d +ca$`),
    );
    assert.equal(lines[2], "");
    assert.match(lines[3]!, /^CERTIFICATE AUTHORITY +EXPIRES +RESIDUAL TIME$/);
    assert.match(lines[4]!, /^ca +\w{3} \d\d, 20\d\d \d\d:\d\d UTC +\d+y$/);
  } finally {
    cleanup();
  }
});

Deno.test("CLI cert inspect refuses a file without certificates", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const f = path.join(dir, "x.txt");
    fs.writeFileSync(f, "hello\n");
    const r = await runCli(["cert", "inspect", f]);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "");
    assert.equal(r.stderr.trimEnd().split("\n").length, 1);
  } finally {
    cleanup();
  }
});

Deno.test("CLI cert inspect reads the CA and client certificates embedded in a kubeconfig", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const ca = opensslCa(dir, "ca");
    const w = await issue(dir, "w1", ca);
    const b64 = (f: string) => fs.readFileSync(f).toString("base64");
    const kc = path.join(dir, "kubelet.conf");
    fs.writeFileSync(
      kc,
      `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://x:6443\n` +
        `    certificate-authority-data: ${b64(ca.crt)}\nusers:\n- name: u\n  user:\n` +
        `    client-certificate-data: ${b64(w.crt)}\n    client-key-data: ${b64(w.key)}\n`,
    );
    const r = await runCli(["cert", "inspect", kc, "-o", "json", "--now", NOW]);
    assert.equal(r.code, 0, r.stderr);
    const rows = JSON.parse(r.stdout);
    assert.deepEqual(rows.map((x: { subject: string }) => x.subject), [
      "CN=kubernetes",
      "CN=system:node:w1,O=system:nodes",
    ]);
    assert.doesNotMatch(r.stdout, /PRIVATE KEY/);
  } finally {
    cleanup();
  }
});

Deno.test("CLI cert verify follows intermediates in the file and fails when the CA is expired", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const root = opensslCa(dir, "root", { cn: "root-ca" });
    const interKey = path.join(dir, "inter.key");
    const interCsr = path.join(dir, "inter.csr");
    const interCrt = path.join(dir, "inter.crt");
    const ext = path.join(dir, "ext.cnf");
    fs.writeFileSync(
      ext,
      "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,digitalSignature\n" +
        "subjectKeyIdentifier=hash\n",
    );
    openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", interKey);
    openssl("req", "-new", "-key", interKey, "-subj", "/CN=intermediate", "-out", interCsr);
    openssl(
      "x509",
      "-req",
      "-in",
      interCsr,
      "-CA",
      root.crt,
      "-CAkey",
      root.key,
      "-CAcreateserial",
      "-days",
      "30",
      "-extfile",
      ext,
      "-out",
      interCrt,
    );
    const w = await issue(dir, "w1", { crt: interCrt, key: interKey });
    const chain = path.join(dir, "chain.pem");
    fs.writeFileSync(chain, fs.readFileSync(w.crt, "utf8") + fs.readFileSync(interCrt, "utf8"));
    const ok = await runCli(["cert", "verify", chain, "--ca", root.crt, "--now", NOW]);
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.match(
      ok.stdout,
      /ok {4}chain {5}signed by CN=root-ca \(.*root\.crt\) via 1 intermediate\(s\)/,
    );
    const alone = await runCli(["cert", "verify", w.crt, "--ca", root.crt, "--now", NOW]);
    assert.equal(alone.code, 3);
    assert.match(alone.stderr, /: chain: x509: certificate signed by unknown authority$/m);
    const late = await runCli([
      "cert",
      "verify",
      w.crt,
      "--ca",
      interCrt,
      "--at",
      iso(NOW_MS + 60 * 86_400_000),
    ]);
    assert.equal(late.code, 3);
    assert.match(
      late.stderr,
      new RegExp(
        `: chain: x509: certificate has expired or is not yet valid: current time ${
          iso(NOW_MS + 60 * 86_400_000)
        } is after \\S+Z(;|$)`,
        "m",
      ),
    );
  } finally {
    cleanup();
  }
});

Deno.test("CLI cert verify: CAs sharing a subject (bundle), and a same-named foreign CA", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const a = opensslCa(dir, "a");
    const b = opensslCa(dir, "b");
    const c = opensslCa(dir, "c");
    const bundle = path.join(dir, "bundle.crt");
    fs.writeFileSync(bundle, fs.readFileSync(a.crt, "utf8") + fs.readFileSync(b.crt, "utf8"));
    const wb = await issue(dir, "wb", b);
    const wc = await issue(dir, "wc", c);
    const ok = await runCli(["cert", "verify", wb.crt, "--ca", bundle, "--now", NOW]);
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    const bad = await runCli(["cert", "verify", wc.crt, "--ca", bundle, "--now", NOW]);
    assert.equal(bad.code, 3);
    assert.match(
      bad.stderr,
      /^error: .*wc\/kubelet-client\.crt: chain: x509: certificate signed by unknown authority \(possibly because of "x509: ECDSA verification failure" while trying to verify candidate authority certificate "kubernetes"\)\n$/,
    );
  } finally {
    cleanup();
  }
});

Deno.test("CLI cert verify: an expired CA and its renewal under the same key verify, as in Go and openssl", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const old = opensslCa(dir, "old", { days: 30 });
    // The renewal: same key, same subject, longer validity.
    const renewed = path.join(dir, "renewed.crt");
    openssl(
      "req",
      "-x509",
      "-new",
      "-key",
      old.key,
      "-subj",
      "/CN=kubernetes",
      "-days",
      "3650",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,digitalSignature,keyEncipherment,keyCertSign",
      "-out",
      renewed,
    );
    const w = await issue(dir, "w1", { crt: renewed, key: old.key });
    const at = iso(NOW_MS + 60 * 86_400_000); // the old CA has expired by then
    for (const order of [[old.crt, renewed], [renewed, old.crt]]) {
      const bundle = path.join(dir, "bundle.crt");
      fs.writeFileSync(bundle, order.map((f) => fs.readFileSync(f, "utf8")).join(""));
      const r = await runCli(["cert", "verify", w.crt, "--ca", bundle, "--at", at]);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.equal(r.stderr, "");
      const o = openssl(
        "verify",
        "-attime",
        String(NOW_MS / 1000 + 60 * 86_400),
        "-CAfile",
        bundle,
        w.crt,
      );
      assert.match(String(o), /OK/);
    }
    // Only the expired one: Go's Expired error about the CA, not "unknown authority".
    const r = await runCli(["cert", "verify", w.crt, "--ca", old.crt, "--at", at]);
    assert.equal(r.code, 3);
    assert.match(
      r.stderr,
      new RegExp(
        `^error: .*w1/kubelet-client\\.crt: chain: x509: certificate has expired or is not yet valid: current time ${at} is after \\S+Z\n$`,
      ),
    );
  } finally {
    cleanup();
  }
});

/** Go's verdicts (tests/fixtures/verify/cases.json, with Go 1.25's texts) through the CLI. */
const FIXTURE_REFUSALS: Record<string, string> = {
  "root pathlen 0 with one intermediate": "x509: too many intermediates for path length constraint",
  "NC excluded ip 10.0.0.0/8, leaf 10.0.0.1":
    'x509: a root or intermediate certificate is not authorized to sign for this name: IP address "10.0.0.1" is excluded by constraint "10.0.0.0/8"',
  "SHA-1 signed intermediate":
    'x509: certificate signed by unknown authority (possibly because of "x509: cannot verify signature: insecure algorithm SHA1-RSA" while trying to verify candidate authority certificate "RSA Root")',
  "critical unknown extension on the leaf": "x509: unhandled critical extension",
  "intermediate with cA FALSE":
    'x509: certificate signed by unknown authority (possibly because of "x509: invalid signature: parent certificate cannot sign this kind of certificate" while trying to verify candidate authority certificate "NotCA Inter")',
  "NC excluded foo.example.com, leaf *.example.com":
    'x509: a root or intermediate certificate is not authorized to sign for this name: DNS name "*.example.com" is excluded by constraint "foo.example.com"',
};

Deno.test("CLI cert verify refuses with Go's reason: one stderr line naming the file, exit 3", async () => {
  const cases: {
    name: string;
    leaf: string;
    intermediates: string[];
    roots: string[];
    time: string;
  }[] = JSON.parse(
    fs.readFileSync(
      path.join(
        path.dirname(new URL(import.meta.url).pathname),
        "..",
        "fixtures",
        "verify",
        "cases.json",
      ),
      "utf8",
    ),
  );
  const { dir, cleanup } = tempDir();
  try {
    for (const [name, reason] of Object.entries(FIXTURE_REFUSALS)) {
      const c = cases.find((x) => x.name === name)!;
      const certFile = path.join(dir, "chain.pem");
      const caFile = path.join(dir, "roots.pem");
      fs.writeFileSync(certFile, c.leaf + c.intermediates.join(""));
      fs.writeFileSync(caFile, c.roots.join(""));
      const r = await runCli(["cert", "verify", certFile, "--ca", caFile, "--at", c.time]);
      assert.equal(r.code, 3, name);
      assert.equal(r.stderr, `error: ${certFile}: chain: ${reason}\n`, name);
      assert.match(r.stdout, /FAIL {2}chain/);
      assert.match(r.stdout, /verdict: FAILED\n$/);
    }
    const ok = cases.find((x) => x.name === "basic chain through one intermediate")!;
    const certFile = path.join(dir, "ok.pem");
    fs.writeFileSync(certFile, ok.leaf + ok.intermediates.join(""));
    fs.writeFileSync(path.join(dir, "roots.pem"), ok.roots.join(""));
    const r = await runCli([
      "cert",
      "verify",
      certFile,
      "--ca",
      path.join(dir, "roots.pem"),
      "--at",
      ok.time,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /ok {4}chain {5}signed by CN=Root \(.*roots\.pem\) via 1 intermediate\(s\)/,
    );
  } finally {
    cleanup();
  }
});
