import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { Buffer } from "node:buffer";
import { runCli, tempDir } from "../_cli.ts";
import { openssl, opensslCa, run } from "../_csr_pki.ts";
import { assertRefused } from "../_check.ts";

const NOW = "2026-11-22T00:00:00Z";

function noKey(...texts: string[]) {
  for (const t of texts) assert.doesNotMatch(t, /PRIVATE KEY|MHcCAQEE|MIIEv/);
}

function oneErrorLine(stderr: string, re: RegExp) {
  const lines = stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, stderr);
  assert.match(lines[0]!, re);
}

Deno.test("CLI csr create writes a 0600 key and a CSR openssl accepts; prints the object", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const out = path.join(dir, "pki");
    const r = await runCli(["csr", "create", "--node", "worker-1", "--out-dir", out]);
    assert.equal(r.code, 0, r.stderr);
    noKey(r.stdout, r.stderr);
    assert.match(
      r.stdout,
      /^apiVersion: certificates\.k8s\.io\/v1\nkind: CertificateSigningRequest\n/,
    );
    assert.match(r.stdout, /name: node-csr-[A-Za-z0-9_-]{43}\n/);
    assert.match(r.stdout, /signerName: kubernetes\.io\/kube-apiserver-client-kubelet\n/);
    assert.match(r.stdout, /usages:\n {2}- digital signature\n {2}- client auth\n/);
    assert.equal(fs.statSync(path.join(out, "kubelet-client.key")).mode & 0o777, 0o600);
    assert.equal(fs.statSync(out).mode & 0o777, 0o700);
    const v = run("openssl", [
      "req",
      "-in",
      path.join(out, "kubelet-client.csr"),
      "-noout",
      "-verify",
    ]);
    assert.equal(v.code, 0, v.out);
    // The name is digestedName over what the CSR carries: same key → same name.
    const again = await runCli(["csr", "create", "--node", "worker-1", "--out-dir", out]);
    assert.equal(again.code, 1);
    assert.equal(again.stdout, "");
    oneErrorLine(
      again.stderr,
      /^error: .*kubelet-client\.key: already exists \(use --force to overwrite\)$/,
    );
  } finally {
    cleanup();
  }
});

Deno.test("CLI csr create --serving RSA: usages with key encipherment, SANs, generateName", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const r = await runCli([
      "csr",
      "create",
      "--node",
      "w2",
      "--serving",
      "--ip",
      "10.0.0.12",
      "--dns",
      "w2.example",
      "--key-type",
      "rsa-2048",
      "--expiration-seconds",
      "3600",
      "--out-dir",
      dir,
      "-o",
      "json",
    ]);
    assert.equal(r.code, 0, r.stderr);
    const obj = JSON.parse(r.stdout);
    assert.deepEqual(obj.metadata, { generateName: "csr-" });
    assert.equal(obj.spec.signerName, "kubernetes.io/kubelet-serving");
    assert.deepEqual(obj.spec.usages, ["digital signature", "key encipherment", "server auth"]);
    assert.equal(obj.spec.expirationSeconds, 3600);
    const text = openssl("req", "-in", path.join(dir, "kubelet-server.csr"), "-noout", "-text");
    assert.match(text, /DNS:w2\.example, IP Address:10\.0\.0\.12/);
    assert.match(Buffer.from(obj.spec.request, "base64").toString(), /BEGIN CERTIFICATE REQUEST/);
  } finally {
    cleanup();
  }
});

Deno.test("CLI csr create refuses bad flags with exit 2 and writes nothing", async () => {
  const { dir, cleanup } = tempDir();
  try {
    for (
      const args of [
        ["--node", "w"],
        ["--node", "w", "--out-dir", dir, "--ip", "1.2.3.4"],
        ["--node", "w", "--out-dir", dir, "--serving"],
        ["--node", "w", "--out-dir", dir, "--serving", "--ip", "nope"],
        ["--node", "w", "--out-dir", dir, "--expiration-seconds", "599"],
        ["--node", "w", "--out-dir", dir, "--key-type", "dsa"],
      ]
    ) {
      const r = await runCli(["csr", "create", ...args]);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.equal(r.stdout, "");
      oneErrorLine(r.stderr, /^error: /);
    }
    assert.deepEqual(fs.readdirSync(dir), []);
  } finally {
    cleanup();
  }
});

async function setup(dir: string) {
  const ca = opensslCa(dir, "ca");
  const pki = path.join(dir, "pki");
  const c = await runCli(["csr", "create", "--node", "w1", "--out-dir", pki]);
  assert.equal(c.code, 0, c.stderr);
  const yaml = path.join(dir, "csr.yaml");
  fs.writeFileSync(yaml, c.stdout);
  return { ca, pki, yaml, csr: path.join(pki, "kubelet-client.csr") };
}

Deno.test("CLI csr sign: PEM in, certificate out; openssl verify -purpose sslclient accepts it", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const s = await setup(dir);
    const out = path.join(dir, "w1.crt");
    const r = await runCli([
      "csr",
      "sign",
      s.csr,
      "--ca",
      s.ca.crt,
      "--ca-key",
      s.ca.key,
      "--out",
      out,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "");
    const v = run("openssl", ["verify", "-CAfile", s.ca.crt, "-purpose", "sslclient", out]);
    assert.equal(v.code, 0, v.out);
  } finally {
    cleanup();
  }
});

Deno.test("CLI csr sign: object in, --approve adds kubectl's Approved condition and the certificate", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const s = await setup(dir);
    const r = await runCli([
      "csr",
      "sign",
      s.yaml,
      "--ca",
      s.ca.crt,
      "--ca-key",
      s.ca.key,
      "--approve",
      "-o",
      "json",
      "--now",
      NOW,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
    const obj = JSON.parse(r.stdout);
    // kube-apiserver's populateConditionTimestamps fills lastTransitionTime for a new condition.
    assert.deepEqual(obj.status.conditions, [{
      lastTransitionTime: NOW,
      lastUpdateTime: NOW,
      message: "This CSR was approved by kubectl certificate approve.",
      reason: "KubectlApprove",
      status: "True",
      type: "Approved",
    }]);
    const pem = Buffer.from(obj.status.certificate, "base64").toString();
    const f = path.join(dir, "issued.crt");
    fs.writeFileSync(f, pem);
    const dates = openssl("x509", "-in", f, "-noout", "-startdate", "-enddate");
    assert.match(dates, /notBefore=Nov 21 23:55:00 2026 GMT/);
    assert.match(dates, /notAfter=Nov 21 23:55:00 2027 GMT/);
  } finally {
    cleanup();
  }
});

Deno.test("CLI csr sign: a List of several keeps its shape; a refused one gets Failed and one stderr line", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const s = await setup(dir);
    const good = fs.readFileSync(s.yaml, "utf8");
    const bad = good.replace(
      /usages:\n {2}- digital signature\n {2}- client auth/,
      "usages:\n  - server auth",
    );
    const indent = (t: string) =>
      t.trimEnd().split("\n").map((l, i) => (i === 0 ? "- " : "  ") + l).join("\n");
    const list = `apiVersion: v1\nkind: List\nitems:\n${indent(good)}\n${indent(bad)}\n`;
    const f = path.join(dir, "list.yaml");
    fs.writeFileSync(f, list);
    const r = await runCli(["csr", "sign", f, "--ca", s.ca.crt, "--ca-key", s.ca.key, "--approve"]);
    assert.equal(r.code, 3);
    oneErrorLine(
      r.stderr,
      /^error: .*list\.yaml: object 2 \(node-csr-.*\): usages did not match \[client auth digital signature key encipherment\]$/,
    );
    assert.match(r.stdout, /^apiVersion: v1\nitems:\n/);
    assert.match(r.stdout, /reason: SignerValidationFailure/);
    assert.match(r.stdout, /certificate: LS0t/);
    assert.match(r.stdout, /kind: List\n/);
  } finally {
    cleanup();
  }
});

Deno.test("CLI csr sign refuses bad input: one stderr line, empty stdout, nothing written", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const s = await setup(dir);
    const other = opensslCa(dir, "other");
    const leaf = opensslCa(dir, "leaf", { ca: false });
    // a CSR whose signature does not verify: change one byte of the CN
    const csrPem = fs.readFileSync(s.csr, "utf8");
    const der = Buffer.from(csrPem.replace(/-----[^-]+-----/g, "").replace(/\s/g, ""), "base64");
    der[der.indexOf(Buffer.from("w1"))] = "x".charCodeAt(0);
    const tampered = path.join(dir, "tampered.csr");
    fs.writeFileSync(
      tampered,
      `-----BEGIN CERTIFICATE REQUEST-----\n${
        der.toString("base64")
      }\n-----END CERTIFICATE REQUEST-----\n`,
    );
    const garbled = path.join(dir, "garbled.yaml");
    fs.writeFileSync(
      garbled,
      fs.readFileSync(s.yaml, "utf8").replace(/request: \S+/, "request: '%%%not-base64%%%'"),
    );
    const notCsr = path.join(dir, "notcsr.yaml");
    fs.writeFileSync(
      notCsr,
      fs.readFileSync(s.yaml, "utf8").replace(
        /request: \S+/,
        `request: ${Buffer.from("hello").toString("base64")}`,
      ),
    );
    const enc = path.join(dir, "enc.key");
    openssl(
      "pkcs8",
      "-topk8",
      "-in",
      s.ca.key,
      "-v2",
      "aes-256-cbc",
      "-passout",
      "pass:x",
      "-out",
      enc,
    );
    const dsa = path.join(dir, "dsa.key");
    openssl(
      "genpkey",
      "-genparam",
      "-algorithm",
      "DSA",
      "-pkeyopt",
      "dsa_paramgen_bits:1024",
      "-out",
      path.join(dir, "dsa.param"),
    );
    openssl("genpkey", "-paramfile", path.join(dir, "dsa.param"), "-out", dsa);
    const out = path.join(dir, "out.crt");
    const cases: { args: string[]; code: number; re: RegExp; reason?: string }[] = [
      {
        // kube-apiserver refuses it (validation runs CheckSignature), so no signer ever sees it
        args: [tampered, "--ca", s.ca.crt, "--ca-key", s.ca.key],
        code: 3,
        re: /tampered\.csr$/,
        reason: 'CertificateSigningRequest.certificates.k8s.io "csr-" is invalid: ' +
          'spec.request: Invalid value: "<request data>": x509: ECDSA verification failure',
      },
      {
        args: [garbled, "--ca", s.ca.crt, "--ca-key", s.ca.key],
        code: 1,
        re: /^error: .*garbled\.yaml: spec\.request is not valid base64$/,
      },
      {
        args: [notCsr, "--ca", s.ca.crt, "--ca-key", s.ca.key],
        code: 3,
        re:
          /notcsr\.yaml \((node-csr-[\w-]+)\): CertificateSigningRequest\.certificates\.k8s\.io "\1" is invalid: spec\.request: Invalid value: "<request data>": PEM block type must be CERTIFICATE REQUEST$/,
      },
      {
        args: [s.csr, "--ca", s.ca.crt, "--ca-key", other.key],
        code: 1,
        re: /^error: .*other\.key: private key does not match .*ca\.crt$/,
      },
      {
        args: [s.csr, "--ca", s.ca.crt, "--ca-key", enc],
        code: 1,
        re: /^error: .*enc\.key: encrypted private keys are not supported; decrypt it first$/,
      },
      {
        args: [s.csr, "--ca", s.ca.crt, "--ca-key", dsa],
        code: 1,
        re: /^error: .*dsa\.key: unsupported private key type dsa$/,
      },
      {
        args: [s.csr, "--ca", leaf.crt, "--ca-key", leaf.key],
        code: 1,
        re: /^error: .*leaf\.crt: certificate is not a CA \(basicConstraints CA:FALSE or absent\)$/,
      },
      {
        args: [s.csr, "--ca", s.ca.crt, "--ca-key", s.ca.key, "--now", "2040-01-01T00:00:00Z"],
        code: 3,
        re:
          /^.*kubelet-client\.csr: the signer has expired: NotAfter=20\d\d-\d\d-\d\d \d\d:\d\d:\d\d \+0000 UTC$/,
      },
      {
        args: [
          s.csr,
          "--ca",
          s.ca.crt,
          "--ca-key",
          s.ca.key,
          "--signer-name",
          "kubernetes.io/kubelet-serving",
        ],
        code: 3,
        re: /kubelet-client\.csr$/,
        reason: "DNS or IP subjectAltName is required",
      },
    ];
    for (const c of cases) {
      const r = await runCli(["csr", "sign", ...c.args, "--out", out]);
      if (c.code === 3 && c.reason !== undefined) {
        assertRefused(r, c.reason, { where: new RegExp(`${c.re.source.replace(/\$$/, "")}: $`) });
      } else if (c.code === 3) assertRefused(r, c.re);
      else {
        assert.equal(r.code, c.code, `${c.args.join(" ")}: ${r.stderr}`);
        assert.equal(r.stdout, "");
        oneErrorLine(r.stderr, c.re);
      }
      noKey(r.stderr);
      assert.equal(fs.existsSync(out), false);
    }
  } finally {
    cleanup();
  }
});

Deno.test("CLI csr inspect judges API, signer and approver; exit 3 for a rejected CSR", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const s = await setup(dir);
    const ok = await runCli(["csr", "inspect", s.yaml, "--requester", "system:node:w1"]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /api: +valid/);
    assert.match(ok.stdout, /signer: +kubernetes\.io\/kube-apiserver-client-kubelet would sign it/);
    assert.match(ok.stdout, /approver: +selfnodeclient: /);
    const other = await runCli([
      "csr",
      "inspect",
      s.yaml,
      "--requester",
      "system:bootstrap:abcdef",
    ]);
    assert.match(other.stdout, /approver: +nodeclient: /);
    const bad = path.join(dir, "bad.yaml");
    fs.writeFileSync(
      bad,
      fs.readFileSync(s.yaml, "utf8").replace(
        "usages:",
        "expirationSeconds: 60\n  usages:\n  - client auth",
      ).replace(
        "signerName: kubernetes.io/kube-apiserver-client-kubelet",
        "signerName: kubernetes.io/nope",
      ),
    );
    const r = await runCli(["csr", "inspect", bad, "-o", "json"]);
    assert.equal(r.code, 3);
    const rep = JSON.parse(r.stdout);
    assert.deepEqual(rep.apiErrors, [
      'spec.usages[2]: Duplicate value: "client auth"',
      "spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 seconds (10 minutes)",
    ]);
    // Validation runs before the signer: the signer is never reached.
    assert.equal(rep.signer, "not reached: refused by the API server");
    assert.equal(rep.rejected, true);
    assert.equal(rep.verdict.stage, "api");
    assert.equal(
      rep.verdict.reason,
      `CertificateSigningRequest.certificates.k8s.io ${JSON.stringify(rep.name)} is invalid: [` +
        'spec.usages[2]: Duplicate value: "client auth", ' +
        "spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 seconds (10 minutes)]",
    );
    // Valid for the API server, but kube-controller-manager has no such signer.
    fs.writeFileSync(
      bad,
      fs.readFileSync(bad, "utf8").replace("expirationSeconds: 60\n  ", "").replace(
        "  - client auth\n",
        "",
      ),
    );
    const nope = await runCli(["csr", "inspect", bad, "-o", "json"]);
    assert.equal(nope.code, 3, nope.stderr);
    const nopeRep = JSON.parse(nope.stdout);
    assert.deepEqual(nopeRep.apiErrors, []);
    assert.deepEqual(nopeRep.verdict, {
      outcome: "refuse",
      stage: "signer",
      reason: 'unrecognized signerName: "kubernetes.io/nope"',
    });
    const pem = await runCli(["csr", "inspect", s.csr]);
    assert.equal(pem.code, 0);
    assert.match(pem.stdout, /signature: +ECDSA-SHA256, valid/);
  } finally {
    cleanup();
  }
});

Deno.test("CLI csr sign keeps a YAML stream a stream and JSON JSON; refuses issued objects", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const s = await setup(dir);
    const one = fs.readFileSync(s.yaml, "utf8");
    const stream = path.join(dir, "stream.yaml");
    fs.writeFileSync(stream, one + "---\n" + one.replace(/name: node-csr-\S+/, "name: second"));
    const r = await runCli([
      "csr",
      "sign",
      stream,
      "--ca",
      s.ca.crt,
      "--ca-key",
      s.ca.key,
      "--approve",
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.split("\n---\n").length, 2);
    assert.doesNotMatch(r.stdout, /kind: List/);
    const json = path.join(dir, "one.json");
    const obj = JSON.parse(
      (await runCli([
        "csr",
        "sign",
        s.yaml,
        "--ca",
        s.ca.crt,
        "--ca-key",
        s.ca.key,
        "--approve",
        "-o",
        "json",
      ])).stdout,
    );
    fs.writeFileSync(json, JSON.stringify(obj));
    const again = await runCli(["csr", "sign", json, "--ca", s.ca.crt, "--ca-key", s.ca.key]);
    assertRefused(again, "csr already has a certificate", {
      where: new RegExp(`^${json.replace(/[.]/g, "\\.")} \\(node-csr-[\\w-]+\\): $`),
    });
  } finally {
    cleanup();
  }
});

Deno.test("CLI csr sign signs each PEM CSR of a file on its own; csr inspect flags weak keys", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const s = await setup(dir);
    const weakKey = path.join(dir, "weak.key");
    const weakCsr = path.join(dir, "weak.csr");
    openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-out", weakKey);
    openssl(
      "req",
      "-new",
      "-key",
      weakKey,
      "-subj",
      "/O=system:nodes/CN=system:node:weak",
      "-addext",
      "subjectAltName=DNS:weak.example",
      "-out",
      weakCsr,
    );
    const mixed = path.join(dir, "mixed.csr");
    fs.writeFileSync(mixed, fs.readFileSync(weakCsr, "utf8") + fs.readFileSync(s.csr, "utf8"));
    const r = await runCli([
      "csr",
      "sign",
      mixed,
      "--ca",
      s.ca.crt,
      "--ca-key",
      s.ca.key,
      "--signer-name",
      "kubernetes.io/kube-apiserver-client-kubelet",
    ]);
    assert.equal(r.code, 3);
    oneErrorLine(r.stderr, /^error: .*mixed\.csr\[0\]: DNS subjectAltNames are not allowed$/);
    assert.equal(r.stdout.match(/BEGIN CERTIFICATE-----/g)?.length, 1);
    const i = await runCli(["csr", "inspect", weakCsr, "-o", "json"]);
    assert.equal(i.code, 0);
    const rep = JSON.parse(i.stdout);
    assert.equal(rep.weakKey, "RSA key too weak: 1024 bits, need at least 2048");
    assert.equal(rep.key, "RSA 1024");
    assert.deepEqual(rep.dnsNames, ["weak.example"]);
  } finally {
    cleanup();
  }
});

Deno.test("CLI csr inspect applies CertificateSubjectRestriction to system:masters client CSRs", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const key = path.join(dir, "k.key");
    const csr = path.join(dir, "k.csr");
    openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key);
    openssl("req", "-new", "-key", key, "-subj", "/O=system:masters/CN=pooh", "-out", csr);
    const obj = {
      apiVersion: "certificates.k8s.io/v1",
      kind: "CertificateSigningRequest",
      metadata: { name: "pooh" },
      spec: {
        request: fs.readFileSync(csr).toString("base64"),
        signerName: "kubernetes.io/kube-apiserver-client",
        usages: ["client auth"],
      },
    };
    const f = path.join(dir, "pooh.json");
    fs.writeFileSync(f, JSON.stringify(obj));
    const r = await runCli(["csr", "inspect", f, "-o", "json"]);
    assert.equal(r.code, 3);
    const rep = JSON.parse(r.stdout);
    assert.deepEqual(rep.apiErrors, []);
    assert.equal(
      rep.admission,
      "use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed",
    );
    assert.equal(
      rep.verdict.reason,
      'certificatesigningrequests.certificates.k8s.io "pooh" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed',
    );
    assert.equal(rep.signer, "not reached: refused by the API server");
    assert.deepEqual(rep.approver, []);
    // csr sign refuses it with the same reason, and writes nothing.
    const ca = opensslCa(dir, "ca");
    const s = await runCli(["csr", "sign", f, "--ca", ca.crt, "--ca-key", ca.key, "--approve"]);
    assertRefused(s, rep.verdict.reason, { where: `${f} (pooh)` });
  } finally {
    cleanup();
  }
});
