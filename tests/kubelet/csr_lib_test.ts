import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { Buffer } from "node:buffer";
import { createCsr, csrPem, digestedName, parseCsrPem } from "../../lib/kubelet/csr.ts";
import { csrSignatureProblem } from "../../lib/kubelet/csr_judge.ts";
import {
  certificateProblem,
  validateConditions,
  validateExpirationSeconds,
  validateSignerName,
  validateUsages,
} from "../../lib/kubelet/csr_validation.ts";
import { exportSpki, generateKeyPair, type KeyType } from "../../lib/pki/keys.ts";
import { tempDir } from "../_cli.ts";

// Derived vector (reference 4.1): P-256 generator point as the public key.
const G_SPKI = Buffer.from(
  "3059301306072a8648ce3d020106082a8648ce3d030107034200046b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c2964fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5",
  "hex",
);
const BOOT = ["digital signature", "key encipherment", "client auth"];

Deno.test("digestedName() matches the derived vectors", () => {
  assert.equal(
    digestedName(G_SPKI, "system:node:node1", ["system:nodes"], BOOT),
    "node-csr-zALoEP_WUPKtL5VXBq-sFu1ab65CCiBTpkJY991irzA",
  );
  assert.equal(
    digestedName(G_SPKI, "system:node:node2", ["system:nodes"], BOOT),
    "node-csr-U5n8bTldVPW2H-L9gpVD3qHsXKFdsSiE6mTXGoPduU0",
  );
  assert.equal(digestedName(G_SPKI, "system:node:node1", ["system:nodes"], BOOT).length, 52);
});

const TYPES: KeyType[] = ["ecdsa-p256", "ecdsa-p384", "rsa-2048", "ed25519"];
for (const t of TYPES) {
  Deno.test(`createCsr() ${t}: openssl req -verify accepts it; it parses back`, async () => {
    const kp = await generateKeyPair(t);
    const spki = await exportSpki(kp.publicKey);
    const serving = t !== "ecdsa-p256";
    const der = await createCsr(kp.privateKey, spki, {
      commonName: "system:node:w1",
      organization: ["system:nodes"],
      dns: serving ? ["w1.example"] : [],
      ips: serving ? ["10.0.0.1", "fd00::1"] : [],
    });
    const pem = csrPem(der);
    const { dir, cleanup } = tempDir();
    try {
      const f = path.join(dir, "x.csr");
      fs.writeFileSync(f, pem);
      const out = execFileSync("openssl", ["req", "-in", f, "-noout", "-verify", "-subject"], {
        stdio: ["ignore", "pipe", "pipe"],
      }).toString();
      assert.match(out, /subject=O = system:nodes, CN = system:node:w1/);
    } finally {
      cleanup();
    }
    const csr = parseCsrPem(pem, "x.csr");
    assert.equal(csrSignatureProblem(csr), undefined);
    assert.equal(csr.subject.commonName, "system:node:w1");
    assert.deepEqual(csr.subject.organization, ["system:nodes"]);
    assert.deepEqual(csr.sans.dns, serving ? ["w1.example"] : []);
    assert.deepEqual(csr.sans.ips, serving ? ["10.0.0.1", "fd00::1"] : []);
    assert.deepEqual(csr.key.spki, spki);
  });
}

Deno.test("csrSignatureProblem() reports a tampered CSR", async () => {
  const kp = await generateKeyPair("ecdsa-p256");
  const spki = await exportSpki(kp.publicKey);
  const der = await createCsr(kp.privateKey, spki, {
    commonName: "system:node:w1",
    organization: ["system:nodes"],
  });
  const i = Buffer.from(der).indexOf(Buffer.from("w1"));
  der[i + 1] = "2".charCodeAt(0);
  const csr = parseCsrPem(csrPem(der), "x");
  assert.equal(csrSignatureProblem(csr), "x509: ECDSA verification failure");
});

Deno.test("parseCsrPem() refuses what Go's ParseCSR refuses", () => {
  assert.throws(() => parseCsrPem("invalid data", "a.csr"), {
    message: "a.csr: PEM block type must be CERTIFICATE REQUEST",
  });
  assert.throws(
    () => parseCsrPem("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", "b"),
    { message: "b: PEM block type must be CERTIFICATE REQUEST" },
  );
});

// validation_test.go TestValidateCertificateSigningRequestCreate (signerName cases)
const a = (n: number) => "a".repeat(n);
const maxFqdn = `${a(63)}.${a(63)}.${a(63)}.${a(61)}`;
const maxSigner = `${maxFqdn}/${a(63)}.${a(253)}`;
const SUB =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const F = "spec.signerName";
const FORM = "must be a fully qualified domain and path of the form 'example.com/signer-name'";
const SIGNERS: { name: string; value: string; errs: string[] }[] = [
  { name: "no signerName", value: "", errs: [`${F}: Required value`] },
  {
    name: "no '/'",
    value: "an-invalid-signer-name",
    errs: [`${F}: Invalid value: "an-invalid-signer-name": ${FORM}`],
  },
  {
    name: "two '/'",
    value: "an-invalid-signer-name.com/something/else",
    errs: [`${F}: Invalid value: "an-invalid-signer-name.com/something/else": ${FORM}`],
  },
  {
    name: "domain not fully qualified",
    value: "example/some-signer-name",
    errs: [
      `${F}: Invalid value: "example": should be a domain with at least two segments separated by dots`,
    ],
  },
  {
    name: "path empty",
    value: "example.com/",
    errs: [`${F}: Invalid value: "": validating label "": ${SUB}`],
  },
  {
    name: "path ends with symbol",
    value: "example.com/something-",
    errs: [`${F}: Invalid value: "something-": validating label "something-": ${SUB}`],
  },
  {
    name: "path is a symbol",
    value: "example.com/-",
    errs: [`${F}: Invalid value: "-": validating label "-": ${SUB}`],
  },
  { name: "path has no '.' but valid", value: "example.com/some-signer-name", errs: [] },
  {
    name: "total > 571",
    value: maxSigner + ".toolong",
    errs: [`${F}: Too long: may not be more than 571 bytes`],
  },
  {
    name: "fqdn > 253",
    value: maxFqdn + ".extra/valid-path",
    errs: [`${F}: Too long: may not be more than 253 bytes`],
  },
  { name: "longer path with short domain", value: `abc.io/${a(253)}.${a(253)}`, errs: [] },
  {
    name: "domain label > 63",
    value: `${a(66)}.example.io/valid-path`,
    errs: [
      `${F}: Invalid value: "${a(66)}.example.io": validating label "${
        a(66)
      }": must be no more than 63 characters`,
    ],
  },
  { name: "max length valid", value: maxSigner, errs: [] },
];
for (const c of SIGNERS) {
  Deno.test(`validateSignerName() ${c.name}`, () => {
    assert.deepEqual(validateSignerName(c.value), c.errs);
  });
}

const EXP: { v: number | undefined; ok: boolean }[] = [
  { v: -1, ok: false },
  { v: 0, ok: false },
  { v: 1, ok: false },
  { v: 60, ok: false },
  { v: 600, ok: true },
  { v: undefined, ok: true },
];
for (const c of EXP) {
  Deno.test(`validateExpirationSeconds() ${c.v}`, () => {
    const errs = validateExpirationSeconds(c.v);
    if (c.ok) assert.deepEqual(errs, []);
    else {
      assert.deepEqual(errs, [
        `spec.expirationSeconds: Invalid value: ${c.v}: may not specify a duration less than 600 seconds (10 minutes)`,
      ]);
    }
  });
}

Deno.test("validateUsages() required, unsupported and duplicate", () => {
  assert.deepEqual(validateUsages([]), ["spec.usages: Required value"]);
  const errs = validateUsages(["unknown", "unknown"]);
  assert.equal(errs.length, 3);
  assert.match(
    errs[0]!,
    /^spec\.usages\[0\]: Unsupported value: "unknown": supported values: "any", /,
  );
  assert.match(errs[1]!, /^spec\.usages\[1\]: Unsupported value: "unknown"/);
  assert.equal(errs[2], 'spec.usages[1]: Duplicate value: "unknown"');
  assert.deepEqual(validateUsages(["key encipherment"]), []);
});

Deno.test("validateConditions() strict create-time rules", () => {
  assert.deepEqual(validateConditions([{ type: "", status: "True" }]), [
    "status.conditions[0].type: Required value",
  ]);
  assert.deepEqual(
    validateConditions([{ type: "Approved", status: "True" }, { type: "Denied", status: "True" }]),
    [
      'status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive',
    ],
  );
  assert.deepEqual(
    validateConditions([{ type: "Approved", status: "True" }, {
      type: "Approved",
      status: "True",
    }]),
    ['status.conditions[1].type: Duplicate value: "Approved"'],
  );
  for (const t of ["Approved", "Denied", "Failed"]) {
    assert.deepEqual(validateConditions([{ type: t, status: "True" }]), []);
  }
});

// Test_validateCertificateSigningRequestOptions: status.certificate rules
const CERT_CASES: { name: string; pem: string; want: string | RegExp | undefined }[] = [
  { name: "empty", pem: "", want: undefined },
  { name: "no PEM", pem: "abc", want: "must contain at least one CERTIFICATE PEM block" },
  {
    name: "non-CERTIFICATE PEM",
    pem: "-----BEGIN CERTIFICATE1-----\nAAAA\n-----END CERTIFICATE1-----\n",
    want: 'only CERTIFICATE PEM blocks are allowed, found "CERTIFICATE1"',
  },
  {
    name: "PEM headers",
    pem: "-----BEGIN CERTIFICATE-----\nFoo: bar\n\nAAAA\n-----END CERTIFICATE-----\n",
    want: "no PEM block headers are permitted",
  },
  {
    name: "non-base64 PEM",
    pem: "-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n",
    want: "must contain at least one CERTIFICATE PEM block",
  },
  {
    name: "empty PEM block",
    pem: "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n",
    want: "found CERTIFICATE PEM block containing 0 certificates",
  },
  {
    name: "non-ASN1 data",
    pem: "-----BEGIN CERTIFICATE-----\nMIIBCg==\n-----END CERTIFICATE-----\n",
    want: /^x509: /,
  },
];
for (const c of CERT_CASES) {
  Deno.test(`certificateProblem() ${c.name}`, () => {
    const got = certificateProblem(c.pem);
    if (c.want instanceof RegExp) assert.match(got ?? "", c.want);
    else assert.equal(got, c.want);
  });
}

Deno.test("csrSignatureProblem() verifies RSASSA-PSS CSRs made by openssl", () => {
  const { dir, cleanup } = tempDir();
  try {
    const key = path.join(dir, "k.key");
    execFileSync("openssl", [
      "genpkey",
      "-algorithm",
      "RSA",
      "-pkeyopt",
      "rsa_keygen_bits:2048",
      "-out",
      key,
    ], { stdio: "ignore" });
    for (const [md, salt] of [["-sha256", "32"], ["-sha384", "-1"], ["-sha512", "64"]]) {
      const f = path.join(dir, `pss${md}.csr`);
      execFileSync("openssl", [
        "req",
        "-new",
        "-key",
        key,
        "-subj",
        "/O=system:nodes/CN=system:node:pss",
        "-sigopt",
        "rsa_padding_mode:pss",
        "-sigopt",
        `rsa_pss_saltlen:${salt}`,
        md!,
        "-out",
        f,
      ], { stdio: "ignore" });
      const csr = parseCsrPem(fs.readFileSync(f, "utf8"), f);
      assert.equal(csrSignatureProblem(csr), undefined, md);
      csr.signature[10] = csr.signature[10]! ^ 1;
      assert.equal(csrSignatureProblem(csr), "crypto/rsa: verification error");
    }
  } finally {
    cleanup();
  }
});
