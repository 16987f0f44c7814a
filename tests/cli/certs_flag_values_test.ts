/**
 * The exit-code rule over the external-CA and renewal verbs (`certs
 * generate-csr`, `sign-csr`, `assemble`, `renew`): a malformed flag value is
 * a usage error (2), named before any file is read and before a missing
 * argument or flag (cobra's order); the same value in a --config file is bad
 * input (1); a run that did nothing is never a success.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { execFileSync } from "node:child_process";
import { repoPath, runCli, tempDir } from "../_cli.ts";

const ECDSA = repoPath("tests", "fixtures", "kubeadm_pki", "ecdsa_variations.yaml");
const NOW = ["--now", "2026-06-04T10:00:00Z"];

const root = tempDir("joinkit-certs-flags-");
globalThis.addEventListener("unload", root.cleanup);
const out = path.join(root.dir, "out");
/** A file that does not exist: a run that reads it first says so (exit 1) instead. */
const NOFILE = path.join(root.dir, "no-such-file");
const NODE = ["--node-name", "cp-1", "--apiserver-advertise-address", "10.0.0.10"];

/** [flag, malformed value, the kubeadm text after "--flag: "] */
const VALUE_FLAGS: [string, string, RegExp][] = [
  ["--service-cidr", "notacidr", /^networking\.serviceSubnet: Invalid value: "notacidr"/],
  ["--service-dns-domain", "A_B", /^networking\.dnsDomain: Invalid value: "A_B"/],
  ["--node-name", "Bad_Name", /^nodeRegistration\.name: Invalid value: "bad_name"/],
  [
    "--apiserver-advertise-address",
    "10.0.0.999",
    /^couldn't use "10\.0\.0\.999" as "apiserver-advertise-address", must be ipv4 or ipv6 address$/,
  ],
  ["--apiserver-advertise-address", "127.0.0.1", /is a loopback address/],
  ["--apiserver-advertise-address", "224.0.0.1", /^cannot use "224\.0\.0\.1" as the bind address/],
  ["--apiserver-bind-port", "70000", /^localAPIEndpoint\.bindPort: Invalid value: 70000/],
  // kubeadm v1.32.5's dynamic defaulting refuses it before validation, with this text.
  [
    "--control-plane-endpoint",
    "a:b:c",
    /^hostport a:b:c: host 'a:b:c' must be a valid IP address or a valid RFC-1123 DNS subdomain$/,
  ],
  ["--encryption-algorithm", "RSA-1024", /^encryptionAlgorithm: Invalid value: "RSA-1024"/],
  ["--apiserver-cert-extra-sans", "a..b", /^apiServer\.certSANs: Invalid value: "a\.\.b"/],
  [
    "--etcd-server-cert-extra-sans",
    "x-",
    /^etcd\.local\.serverCertSANs: Invalid value: "x-"/,
  ],
  ["--etcd-peer-cert-extra-sans", "a_b", /^etcd\.local\.peerCertSANs: Invalid value: "a_b"/],
];

/** The flags also tried with --out-dir or the node missing (a few: each run is a process). */
const ORDER_FLAGS = ["--service-cidr", "--node-name", "--encryption-algorithm"];

Deno.test("CLI certs generate-csr: every malformed value flag is exit 2 naming the flag, before a missing --out-dir or node, nothing written", async () => {
  const failures: string[] = [];
  await Promise.all(VALUE_FLAGS.map(async ([flag, value, want]) => {
    const others = flag === "--node-name" || flag === "--apiserver-advertise-address" ? [] : NODE;
    // Complete except for the bad value; for some, also without --out-dir and without the node
    // (the malformed value is named first).
    const forms = [[...others, flag, value, "--out-dir", out]];
    if (ORDER_FLAGS.includes(flag)) {
      forms.push([...others, flag, value], [flag, value, "--out-dir", out]);
    }
    for (const argv of forms) {
      const r = await runCli(["certs", "generate-csr", ...argv, ...NOW]);
      const line = r.stderr.trimEnd();
      if (
        r.code !== 2 || line.includes("\n") || !line.startsWith(`error: ${flag}: `) ||
        !want.test(line.slice(`error: ${flag}: `.length))
      ) {
        failures.push(`${argv.join(" ")}: exit ${r.code}: ${line}`);
      }
    }
  }));
  assert.deepEqual(failures, []);
  assert.equal(fs.existsSync(out), false);
});

Deno.test("CLI certs generate-csr: the same value in --config is bad input (exit 1, kubeadm's text); --node-name next to --config is checked before the file is read", async () => {
  const bad = path.join(root.dir, "bad-subnet.yaml");
  fs.writeFileSync(
    bad,
    fs.readFileSync(ECDSA, "utf8").replace("10.96.0.0/12,fd00:10:96::/112", "notacidr"),
  );
  const r = await runCli(["certs", "generate-csr", "--config", bad, "--out-dir", out, ...NOW]);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(
    r.stderr,
    `error: ${bad}: networking.serviceSubnet: Invalid value: "notacidr": couldn't parse subnet\n`,
  );
  const name = await runCli([
    "certs",
    "generate-csr",
    "--config",
    NOFILE,
    "--node-name",
    "Bad_Name",
    "--out-dir",
    out,
  ]);
  assert.equal(name.code, 2, name.stderr);
  assert.match(
    name.stderr,
    /^error: --node-name: nodeRegistration\.name: Invalid value: "bad_name"/,
  );
  // A loopback advertise address in the file: refused as certs generate refuses it.
  const lo = path.join(root.dir, "loopback.yaml");
  fs.writeFileSync(lo, fs.readFileSync(ECDSA, "utf8").replace("10.0.0.10\n", "127.0.0.1\n"));
  const l = await runCli(["certs", "generate-csr", "--config", lo, "--out-dir", out, ...NOW]);
  assert.equal(l.code, 1, l.stderr);
  assert.match(
    l.stderr,
    /^error: .*loopback\.yaml: localAPIEndpoint\.advertiseAddress: "127\.0\.0\.1" is a loopback address/,
  );
  assert.equal(fs.existsSync(out), false);
});

Deno.test("CLI certs sign-csr: a malformed duration or a CA without its key is exit 2 before any file is read", async () => {
  const cases: [string[], string][] = [
    [
      [
        NOFILE,
        "--ca",
        NOFILE,
        "--ca-key",
        NOFILE,
        "--out-dir",
        out,
        "--certificate-validity-period",
        "xyz",
      ],
      "--certificate-validity-period",
    ],
    [["--certificate-validity-period", "xyz"], "--certificate-validity-period"],
    [[NOFILE, "--ca", NOFILE, "--out-dir", out], "--ca and --ca-key go together"],
    [[NOFILE, "--etcd-ca-key", NOFILE, "--out-dir", out], "--etcd-ca and --etcd-ca-key"],
    [[NOFILE, "--out-dir", out], "give at least one CA"],
  ];
  for (const [argv, want] of cases) {
    const r = await runCli(["certs", "sign-csr", ...argv]);
    assert.equal(r.code, 2, `${argv.join(" ")}: ${r.stderr}`);
    assert.ok(r.stderr.startsWith("error: ") && r.stderr.includes(want), r.stderr);
    assert.equal(r.stderr.trimEnd().split("\n").length, 1);
  }
  // An empty directory holds no CSR: nothing to sign is an error, not an empty success.
  const empty = path.join(root.dir, "empty-csrs");
  fs.mkdirSync(empty);
  const ca = path.join(root.dir, "ca");
  assert.equal(
    (await runCli(["ca", "create", "--out-dir", ca, "--key-type", "ecdsa-p256"])).code,
    0,
  );
  const r = await runCli([
    "certs",
    "sign-csr",
    empty,
    "--ca",
    path.join(ca, "ca.crt"),
    "--ca-key",
    path.join(ca, "ca.key"),
    "--out-dir",
    out,
  ]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /^error: .*empty-csrs: no CSR of certs generate-csr/);
  assert.equal(fs.existsSync(out), false);
});

Deno.test("CLI certs assemble: SIGNED holding no certificate is exit 1, --node-name without --config exit 2", async () => {
  const empty = path.join(root.dir, "empty-signed");
  fs.mkdirSync(empty, { recursive: true });
  fs.writeFileSync(path.join(empty, "notes.txt"), "nothing signed yet\n");
  const r = await runCli(["certs", "assemble", "--out-dir", out, empty, ...NOW]);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stderr, `error: ${empty}: no certificate found\n`);
  const n = await runCli(["certs", "assemble", "--out-dir", out, "--node-name", "cp-1", empty]);
  assert.equal(n.code, 2, n.stderr);
  assert.equal(n.stderr, "error: --node-name overrides --config's name: give --config\n");
  assert.equal(fs.existsSync(out), false);
});

Deno.test("CLI certs renew that renews nothing exits 1: DIR missing (one line), or every named certificate MISSING! (kubeadm's lines, then the error, no 'Done')", async () => {
  const gone = await runCli(["certs", "renew", "all", "--out-dir", NOFILE, ...NOW]);
  assert.equal(gone.code, 1, gone.stderr);
  assert.equal(gone.stderr, `error: ${NOFILE}: no such file or directory\n`);
  const empty = path.join(root.dir, "empty-tree");
  fs.mkdirSync(empty);
  const all = await runCli(["certs", "renew", "all", "--out-dir", empty, ...NOW]);
  assert.equal(all.code, 1, all.stderr);
  const lines = all.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 12);
  assert.ok(lines.slice(0, 11).every((l) => l.startsWith("MISSING! ")), all.stderr);
  assert.equal(lines[11], `error: nothing renewed: no certificate of all under ${empty}`);
  assert.ok(!all.stderr.includes("Done renewing"));
  const one = await runCli(["certs", "renew", "apiserver", "--out-dir", empty, ...NOW]);
  assert.equal(one.code, 1, one.stderr);
  assert.equal(
    one.stderr,
    `MISSING! certificate for serving the Kubernetes API\nerror: nothing renewed: no certificate of apiserver under ${empty}\n`,
  );
  assert.deepEqual(fs.readdirSync(empty), []);
});

/**
 * kubeadm v1.32.5's reading of its flags (`kubeadm init phase certs all` and
 * `init phase kubeconfig admin`, run 2026-11-28): `--apiserver-cert-extra-sans ""`
 * adds no SAN (the apiserver certificate held only the defaults), `--apiserver-bind-port
 * 06443` is octal (admin.conf's server `https://10.0.0.10:3363`), and a stray quote is
 * pflag's CSV error, exit before any file. generate-csr reads them through the same
 * adapter as certs generate.
 */
Deno.test('CLI certs generate-csr reads --apiserver-cert-extra-sans "" and --apiserver-bind-port 06443 as kubeadm does', async () => {
  const dir = path.join(root.dir, "octal");
  const r = await runCli([
    ...["certs", "generate-csr", ...NODE, "--out-dir", dir],
    ...["--apiserver-cert-extra-sans", "", "--apiserver-bind-port", "06443", ...NOW],
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stderr,
    /^WARNING: --apiserver-bind-port 06443 is read as kubeadm reads it: 3363$/m,
  );
  for (
    const conf of ["admin.conf", "super-admin.conf", "controller-manager.conf", "scheduler.conf"]
  ) {
    assert.match(
      fs.readFileSync(path.join(dir, conf), "utf8"),
      /^ {4}server: https:\/\/10\.0\.0\.10:3363$/m,
      conf,
    );
  }
  // The SANs kubeadm wrote with "" (its host name "vm" there, the node name here): no extra one.
  const csr = fs.readFileSync(path.join(dir, "pki", "apiserver.csr"), "utf8");
  const text = execFileSync("openssl", ["req", "-noout", "-text"], { input: csr }).toString();
  const sans = /Subject Alternative Name:\s*\n\s*(.*)/.exec(text)?.[1]?.split(", ").sort();
  assert.deepEqual(sans, [
    "DNS:cp-1",
    "DNS:kubernetes",
    "DNS:kubernetes.default",
    "DNS:kubernetes.default.svc",
    "DNS:kubernetes.default.svc.cluster.local",
    "IP Address:10.0.0.10",
    "IP Address:10.96.0.1",
  ]);
});

Deno.test("CLI certs generate-csr refuses a value pflag cannot parse with pflag's text, exit 2, nothing written", async () => {
  const cases: [string[], string][] = [
    [
      ["--apiserver-bind-port", "x"],
      'invalid argument "x" for "--apiserver-bind-port" flag: strconv.ParseInt: parsing "x": invalid syntax',
    ],
    // kubeadm v1.32.5's text, verbatim.
    [
      ["--apiserver-cert-extra-sans", 'a"b'],
      'invalid argument "a\\"b" for "--apiserver-cert-extra-sans" flag: parse error on line 1, column 2: bare " in non-quoted-field',
    ],
  ];
  for (const [argv, want] of cases) {
    const r = await runCli(["certs", "generate-csr", ...NODE, ...argv, "--out-dir", out, ...NOW]);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, `error: ${want}\n`);
  }
  assert.equal(fs.existsSync(out), false);
});

Deno.test("CLI certs generate names a malformed value (exit 2) before the missing node address (exit 1)", async () => {
  const dir = path.join(root.dir, "cidr-first");
  const r = await runCli(["certs", "generate", "--service-cidr", "notacidr", "--out-dir", dir]);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(
    r.stderr,
    'error: --service-cidr: networking.serviceSubnet: Invalid value: "notacidr": couldn\'t parse subnet\n',
  );
  const missing = await runCli([
    "certs",
    "generate",
    "--service-cidr",
    "10.96.0.0/12",
    "--out-dir",
    dir,
  ]);
  assert.equal(missing.code, 1, missing.stderr);
  assert.equal(
    missing.stderr,
    "error: --apiserver-advertise-address: Required value: joinkit cannot detect the node's address as kubeadm does; give it\n",
  );
  assert.equal(fs.existsSync(dir), false);
});

Deno.test("CLI certs generate prints kubeadm's validity-period warnings once, from --config or from the flags", async () => {
  // kubeadm v1.32.5 (init phase certs all --config, certificateValidityPeriod 9000h, CA 8760h)
  // printed these two lines, once each.
  const want = [
    "WARNING: certificateValidityPeriod: the value 9000h0m0s is more than the recommended default for certificate expiration: 8760h0m0s",
    "WARNING: certificateValidityPeriod: the value 9000h0m0s is more than the caCertificateValidityPeriod: 8760h0m0s",
  ];
  const cfg = path.join(root.dir, "validity.yaml");
  fs.writeFileSync(
    cfg,
    fs.readFileSync(ECDSA, "utf8").replace(
      "certificateValidityPeriod: 48h",
      "certificateValidityPeriod: 9000h",
    ),
  );
  const runs = [
    ["--config", cfg],
    [
      ...NODE,
      ...["--encryption-algorithm", "ECDSA-P256", "--certificate-validity-period", "9000h"],
      ...["--ca-certificate-validity-period", "8760h"],
    ],
  ];
  for (const [i, argv] of runs.entries()) {
    const dir = path.join(root.dir, `validity-${i}`);
    const r = await runCli(["certs", "generate", ...argv, "--out-dir", dir, ...NOW]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stderr.split("\n").filter((l) => l.startsWith("WARNING:")), want);
  }
});
