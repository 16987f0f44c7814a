import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { parseCertificate, serialBits } from "../../lib/pki/cert_info.ts";
import { createCsr, parseCsrPem } from "../../lib/kubelet/csr.ts";
import { exportSpki, generateKeyPair, type KeyType } from "../../lib/pki/keys.ts";
import { encodePem } from "../../lib/pki/pem.ts";
import { colonHex } from "../../lib/pki/pkix.ts";
import {
  goTimeString,
  loadSigningCa,
  policyWindow,
  signCsr,
  signerDuration,
  signerValidator,
} from "../../lib/kubelet/signer.ts";
import { ekuName, keyUsageNames } from "../../lib/pki/usages.ts";
import { tempDir } from "../_cli.ts";
import { openssl, opensslCa, run } from "../_csr_pki.ts";

const M = 60_000;
const H = 60 * M;

// signer_test.go Test_signer_duration (certTTL = 1h)
const DURATIONS: { name: string; exp: number | undefined; want: number }[] = [
  { name: "can request shorter duration than TTL", exp: 1800, want: 30 * M },
  { name: "cannot request longer duration than TTL", exp: 10800, want: H },
  { name: "cannot request negative duration", exp: -60, want: 10 * M },
  { name: "cannot request duration less than 10 mins", exp: 599, want: 10 * M },
  { name: "can request duration of exactly 10 mins", exp: 600, want: 10 * M },
  { name: "can request duration equal to the default", exp: 3600, want: H },
  { name: "can choose not to request a duration to get the default", exp: undefined, want: H },
];
for (const c of DURATIONS) {
  Deno.test(`signerDuration() ${c.name}`, () => {
    assert.equal(signerDuration(H, c.exp), c.want);
  });
}

const now = new Date("2026-11-22T00:00:00Z");
const far = new Date("2036-01-01T00:00:00Z");

Deno.test("policyWindow() backdates NotBefore 5m; short certs keep their full end", () => {
  const w = policyWindow(now, H, far);
  assert.equal(w.notBefore.getTime(), now.getTime() - 5 * M);
  assert.equal(w.notAfter.getTime(), now.getTime() + H);
});

Deno.test("policyWindow() backdates NotAfter too from 8h on", () => {
  const w8 = policyWindow(now, 8 * H, far);
  assert.equal(w8.notAfter.getTime(), now.getTime() + 8 * H - 5 * M);
  const y = policyWindow(now, 8760 * H, far);
  assert.equal(y.notAfter.getTime() - y.notBefore.getTime(), 8760 * H);
});

Deno.test("policyWindow() truncates at the CA's NotAfter", () => {
  const caEnd = new Date(now.getTime() + 24 * H);
  assert.equal(policyWindow(now, 48 * H, caEnd).notAfter.getTime(), caEnd.getTime());
});

Deno.test("policyWindow() refuses with upstream's messages when the CA has expired", () => {
  const caEnd = new Date(now.getTime() - H);
  assert.throws(() => policyWindow(now, H, caEnd), {
    message: "the signer has expired: NotAfter=2026-11-21 23:00:00 +0000 UTC",
  });
  const justEnded = new Date(now.getTime() - M);
  assert.throws(() => policyWindow(now, H, justEnded), {
    message: "refusing to sign a certificate that expired in the past: NotAfter=" +
      goTimeString(justEnded),
  });
});

Deno.test("signerValidator() refuses unknown signer names as NewCSRSigningController does", () => {
  for (const n of ["kubernetes.io/not-recognised", "example.com/sample-name"]) {
    assert.throws(() => signerValidator(n), { message: `unrecognized signerName: "${n}"` });
  }
  assert.equal(
    signerValidator("kubernetes.io/legacy-unknown")(
      {
        subject: { commonName: "", organization: [] },
        sans: { dns: [], ips: [], emails: [], uris: [] },
        key: { type: "ECDSA", bits: 256 },
      },
      [],
    ),
    undefined,
  );
});

async function makeCsr(
  type: KeyType,
  t: { cn: string; o: string[]; dns?: string[]; ips?: string[] },
) {
  const kp = await generateKeyPair(type);
  const spki = await exportSpki(kp.publicKey);
  const der = await createCsr(kp.privateKey, spki, {
    commonName: t.cn,
    organization: t.o,
    dns: t.dns ?? [],
    ips: t.ips ?? [],
  });
  return parseCsrPem(encodePem("CERTIFICATE REQUEST", der), "test.csr");
}

Deno.test("signCsr() TestSigner: legacy-unknown, RSA CA, 1h TTL, expirationSeconds 3h ignored", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const ca = opensslCa(dir, "ca", { type: "rsa" });
    const signing = await loadSigningCa(
      fs.readFileSync(ca.crt, "utf8"),
      "ca.crt",
      fs.readFileSync(ca.key, "utf8"),
      "ca.key",
    );
    const csr = await makeCsr("ecdsa-p256", {
      cn: "system:node:k-a-node-s36b",
      o: ["system:nodes"],
    });
    const caNow = new Date();
    const der = await signCsr(signing, {
      csr,
      usages: ["signing", "key encipherment", "server auth", "client auth"],
      expirationSeconds: 3 * 3600,
      certTtlMs: H,
      now: caNow,
    });
    const c = parseCertificate(der);
    assert.equal(c.version, 3);
    assert.equal(c.subject.commonName, "system:node:k-a-node-s36b");
    assert.deepEqual(c.subject.organization, ["system:nodes"]);
    assert.deepEqual(keyUsageNames(c.keyUsage!), ["DigitalSignature", "KeyEncipherment"]);
    assert.deepEqual(c.extKeyUsage!.map(ekuName), ["ServerAuth", "ClientAuth"]);
    assert.deepEqual(c.basicConstraints, { isCA: false, maxPathLen: -1 });
    const sec = Math.floor(caNow.getTime() / 1000) * 1000;
    assert.equal(c.notBefore.getTime(), sec - 5 * M);
    assert.equal(c.notAfter.getTime(), sec + H);
    assert.equal(c.key.type, "ECDSA");
    assert.equal(c.sigOid, "1.2.840.113549.1.1.11"); // SHA256WithRSA
    assert.ok(serialBits(c.serial) <= 128);
    assert.deepEqual(c.authorityKeyId, signing.cert.subjectKeyId);
  } finally {
    cleanup();
  }
});

Deno.test("signCsr() drops every extension the CSR asks for", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const ca = opensslCa(dir, "ca");
    const key = path.join(dir, "n.key");
    const csrFile = path.join(dir, "n.csr");
    openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key);
    openssl(
      "req",
      "-new",
      "-key",
      key,
      "-subj",
      "/O=system:nodes/CN=system:node:evil",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign",
      "-addext",
      "subjectAltName=DNS:evil.example,IP:10.1.2.3,email:a@b.c,URI:spiffe://x/y",
      "-out",
      csrFile,
    );
    const signing = await loadSigningCa(
      fs.readFileSync(ca.crt, "utf8"),
      "ca.crt",
      fs.readFileSync(ca.key, "utf8"),
      "ca.key",
    );
    const csr = parseCsrPem(fs.readFileSync(csrFile, "utf8"), "n.csr");
    assert.equal(csr.extensions.length, 3);
    const c = parseCertificate(
      await signCsr(signing, {
        csr,
        usages: ["digital signature", "server auth"],
        certTtlMs: H,
        now: new Date(),
      }),
    );
    assert.equal(c.basicConstraints?.isCA, false);
    assert.deepEqual(keyUsageNames(c.keyUsage!), ["DigitalSignature"]);
    assert.deepEqual(c.sans, {
      dns: ["evil.example"],
      ips: ["10.1.2.3"],
      emails: ["a@b.c"],
      uris: ["spiffe://x/y"],
    });
    assert.deepEqual(
      c.extensions.map((e) => e.oid),
      ["2.5.29.15", "2.5.29.37", "2.5.29.19", "2.5.29.35", "2.5.29.17"],
    );
  } finally {
    cleanup();
  }
});

const KINDS: { type: KeyType; serving: boolean; caType: "rsa" | "ec" }[] = [
  { type: "ecdsa-p256", serving: false, caType: "ec" },
  { type: "ecdsa-p384", serving: true, caType: "ec" },
  { type: "rsa-2048", serving: false, caType: "rsa" },
  { type: "ed25519", serving: true, caType: "rsa" },
];
for (const k of KINDS) {
  Deno.test(`signCsr() ${k.type} ${k.serving ? "serving" : "client"} cert: openssl verify accepts it, another CA's check rejects it`, async () => {
    const { dir, cleanup } = tempDir();
    try {
      const ca = opensslCa(dir, "ca", { type: k.caType });
      const other = opensslCa(dir, "other", { type: k.caType });
      const signing = await loadSigningCa(
        fs.readFileSync(ca.crt, "utf8"),
        "ca.crt",
        fs.readFileSync(ca.key, "utf8"),
        "ca.key",
      );
      const csr = await makeCsr(k.type, {
        cn: "system:node:w1",
        o: ["system:nodes"],
        dns: k.serving ? ["w1.example"] : [],
        ips: k.serving ? ["10.0.0.1"] : [],
      });
      const usages = [
        "digital signature",
        ...(k.type.startsWith("rsa") ? ["key encipherment"] : []),
        k.serving ? "server auth" : "client auth",
      ];
      const der = await signCsr(signing, { csr, usages, certTtlMs: 24 * H, now: new Date() });
      const crt = path.join(dir, "w1.crt");
      fs.writeFileSync(crt, encodePem("CERTIFICATE", der));
      const purpose = k.serving ? "sslserver" : "sslclient";
      const ok = run("openssl", ["verify", "-CAfile", ca.crt, "-purpose", purpose, crt]);
      assert.equal(ok.code, 0, ok.out);
      assert.match(ok.out, /w1\.crt: OK/);
      const wrongPurpose = k.serving ? "sslclient" : "sslserver";
      assert.notEqual(
        run("openssl", ["verify", "-CAfile", ca.crt, "-purpose", wrongPurpose, crt]).code,
        0,
      );
      assert.notEqual(run("openssl", ["verify", "-CAfile", other.crt, crt]).code, 0);
      const text = openssl("x509", "-in", crt, "-noout", "-text");
      assert.match(
        text,
        k.serving ? /TLS Web Server Authentication/ : /TLS Web Client Authentication/,
      );
      assert.match(text, /CA:FALSE/);
      assert.match(text, /Digital Signature/);
      if (k.serving) assert.match(text, /DNS:w1\.example, IP Address:10\.0\.0\.1/);
      const c = parseCertificate(der);
      const serialLine = /Serial Number:\s*\n?\s*([0-9a-f:]+)/.exec(text)?.[1] ?? "";
      assert.equal(
        serialLine.toUpperCase().replace(/^00:/, ""),
        colonHex(c.serial).replace(/^00:/, ""),
      );
      assert.ok(serialBits(c.serial) <= 128 && serialBits(c.serial) > 64);
      const dates = openssl("x509", "-in", crt, "-noout", "-startdate", "-enddate");
      const nb = Date.parse(/notBefore=(.*)/.exec(dates)![1]!);
      const na = Date.parse(/notAfter=(.*)/.exec(dates)![1]!);
      assert.equal(na - nb, 24 * H); // >= 8h: NotAfter backdated too, lifetime exactly the TTL
    } finally {
      cleanup();
    }
  });
}

Deno.test("loadSigningCa() refuses a CA without the CA bit and a key that is not the CA's", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const notCa = opensslCa(dir, "leaf", { ca: false });
    const ca = opensslCa(dir, "ca");
    await assert.rejects(
      loadSigningCa(
        fs.readFileSync(notCa.crt, "utf8"),
        "leaf.crt",
        fs.readFileSync(notCa.key, "utf8"),
        "leaf.key",
      ),
      { message: "leaf.crt: certificate is not a CA (basicConstraints CA:FALSE or absent)" },
    );
    await assert.rejects(
      loadSigningCa(
        fs.readFileSync(ca.crt, "utf8"),
        "ca.crt",
        fs.readFileSync(notCa.key, "utf8"),
        "leaf.key",
      ),
      { message: "leaf.key: private key does not match ca.crt" },
    );
  } finally {
    cleanup();
  }
});

Deno.test("signCsr() honours expirationSeconds below the TTL: short certs end at now+ttl", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const ca = opensslCa(dir, "ca");
    const signing = await loadSigningCa(
      fs.readFileSync(ca.crt, "utf8"),
      "ca.crt",
      fs.readFileSync(ca.key, "utf8"),
      "ca.key",
    );
    const csr = await makeCsr("ecdsa-p256", { cn: "system:node:a", o: ["system:nodes"] });
    const t = new Date(Math.floor(Date.now() / 1000) * 1000);
    for (
      const [exp, life] of [[3600, H], [600, 10 * M], [599, 10 * M], [9 * 3600, 9 * H - 5 * M]]
    ) {
      const c = parseCertificate(
        await signCsr(signing, {
          csr,
          usages: ["digital signature", "client auth"],
          expirationSeconds: exp,
          certTtlMs: 8760 * H,
          now: t,
        }),
      );
      assert.equal(c.notBefore.getTime(), t.getTime() - 5 * M);
      assert.equal(c.notAfter.getTime(), t.getTime() + life!, `expirationSeconds ${exp}`);
    }
  } finally {
    cleanup();
  }
});

Deno.test("policyWindow() NotAfter at the CA's NotAfter: equal, 1 s before, 1 s after the computed end", () => {
  const S = 1000;
  for (const ttl of [H, 8760 * H]) {
    const computed = policyWindow(now, ttl, far).notAfter.getTime();
    // CA ends exactly at the computed end: kept (`!Before` truncates to the same instant).
    assert.equal(policyWindow(now, ttl, new Date(computed)).notAfter.getTime(), computed);
    // CA ends 1 s earlier: truncated to the CA's end. Kills a mutation that drops or
    // inverts the truncation, or compares with a tolerance.
    assert.equal(
      policyWindow(now, ttl, new Date(computed - S)).notAfter.getTime(),
      computed - S,
    );
    // CA ends 1 s later: the computed end stands. Kills `notAfter = caEnd` unconditionally.
    assert.equal(policyWindow(now, ttl, new Date(computed + S)).notAfter.getTime(), computed);
  }
});

Deno.test("policyWindow() refusal boundaries: NotBefore and now against the CA's NotAfter", () => {
  const S = 1000;
  const notBefore = now.getTime() - 5 * M;
  // CA ends exactly at NotBefore: "the signer has expired" (`!NotBefore.Before(caEnd)`).
  // Kills `>=` → `>` on that check (the second check would answer with the other message).
  assert.throws(() => policyWindow(now, H, new Date(notBefore)), {
    message: `the signer has expired: NotAfter=${goTimeString(new Date(notBefore))}`,
  });
  // 1 s after NotBefore but before now: only the second check refuses. Kills its removal.
  assert.throws(() => policyWindow(now, H, new Date(notBefore + S)), {
    message: /^refusing to sign a certificate that expired in the past: NotAfter=/,
  });
  // CA ends exactly now: refused (`!now.Before(caEnd)`). Kills `>=` → `>` on the second check.
  assert.throws(() => policyWindow(now, H, now), {
    message: `refusing to sign a certificate that expired in the past: NotAfter=${
      goTimeString(now)
    }`,
  });
  // CA ends 1 s after now: signed, NotAfter cut at the CA's end.
  const w = policyWindow(now, H, new Date(now.getTime() + S));
  assert.equal(w.notAfter.getTime(), now.getTime() + S);
  assert.equal(w.notBefore.getTime(), notBefore);
});
