/**
 * Fuzz tests for the binary and PKI parsers: DER walking, certificates,
 * CSRs (PEM and DER), private keys (PKCS#1, SEC 1, PKCS#8), certificate
 * sources (PEM, DER, kubeconfig, cluster-info), CA bundles and pins.
 * Samples are made fresh with openssl and node:crypto. See tests/_fuzz.ts.
 */

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { Buffer } from "node:buffer";
import { certificateParts, children, readTlv, type Tlv } from "../../lib/pki/der.ts";
import {
  parseAuthorityKeyId,
  parseBasicConstraints,
  parseExtKeyUsage,
  parseKeyUsage,
  parseSans,
  parseSubjectKeyId,
} from "../../lib/pki/pkix.ts";
import { describeSpki } from "../../lib/pki/pkix_key.ts";
import { parseCertificate, summarize } from "../../lib/pki/cert_info.ts";
import { parseCsrDer, parseCsrPem } from "../../lib/kubelet/csr.ts";
import { csrSignatureProblem } from "../../lib/kubelet/csr_judge.ts";
import { importPrivateKeyPem } from "../../lib/pki/keys.ts";
import { extractCertificates } from "../../lib/pki/certsource.ts";
import { caBundle } from "../../lib/discovery/bootstrap_kubeconfig.ts";
import { caCertHash, PinSet, spkiOf } from "../../lib/pki/pin.ts";
import { decodePem } from "../../lib/pki/pem.ts";
import { fuzz } from "../_fuzz.ts";
import { tempDir } from "../_cli.ts";

const NOW = new Date("2026-11-22T00:00:00Z");

function samples() {
  const { dir, cleanup } = tempDir("joinkit-fuzz-");
  try {
    const f = (n: string) => path.join(dir, n);
    const ssl = (...args: string[]) => execFileSync("openssl", args, { stdio: "pipe" });
    ssl(
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-keyout",
      f("ca.key"),
      "-out",
      f("ca.crt"),
      "-subj",
      "/CN=kubernetes",
      "-days",
      "3650",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign,digitalSignature",
    ); // deno-fmt-ignore
    ssl(
      "req", "-new", "-key", f("ca.key"), "-out", f("node.csr"),
      "-subj", "/O=system:nodes/CN=system:node:worker-1",
      "-addext", "subjectAltName=DNS:worker-1,IP:10.0.0.7",
    ); // deno-fmt-ignore
    ssl(
      "x509", "-req", "-in", f("node.csr"), "-CA", f("ca.crt"), "-CAkey", f("ca.key"),
      "-out", f("node.crt"), "-days", "365", "-set_serial", "0x0123456789abcdef01",
      "-extfile", "/dev/stdin",
    ); // deno-fmt-ignore
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 });
    const ec = generateKeyPairSync("ec", { namedCurve: "P-384" });
    const ed = generateKeyPairSync("ed25519");
    const read = (n: string) => fs.readFileSync(f(n), "utf8");
    return {
      caCrt: read("ca.crt"),
      caKey: read("ca.key"),
      nodeCrt: read("node.crt"),
      csr: read("node.csr"),
      keys: [
        read("ca.key"),
        rsa.privateKey.export({ type: "pkcs1", format: "pem" }) as string,
        rsa.privateKey.export({ type: "pkcs8", format: "pem" }) as string,
        ec.privateKey.export({ type: "sec1", format: "pem" }) as string,
        ed.privateKey.export({ type: "pkcs8", format: "pem" }) as string,
      ],
    };
  } finally {
    cleanup();
  }
}

const S = samples();
const der = (pem: string) => decodePem(pem, "x")[0]!.der;
const te = new TextEncoder();

Deno.test("certificateParts() and parseCertificate() fuzz: DER certificates", async () => {
  await fuzz<Uint8Array>({
    name: "parseCertificate",
    samples: [der(S.caCrt), der(S.nodeCrt)],
    iterations: 2000,
    run: (d) => {
      certificateParts(d);
      const c = parseCertificate(d);
      return { c, summary: summarize(c, NOW), hash: caCertHash(d), spki: spkiOf(d, "ca.crt") };
    },
    check: (r) => {
      const { summary } = r as { summary: Record<string, unknown> };
      JSON.stringify(summary);
    },
  });
});

Deno.test("parseCsrDer()/parseCsrPem() fuzz: CSRs, and their signature check", async () => {
  await fuzz<Uint8Array>({
    name: "parseCsrDer",
    samples: [der(S.csr)],
    iterations: 1250,
    run: (d) => {
      const csr = parseCsrDer(d);
      const why = csrSignatureProblem(csr);
      assert.ok(why === undefined || typeof why === "string");
      return csr;
    },
  });
  await fuzz<string>({
    name: "parseCsrPem",
    samples: [S.csr, S.csr.replace(/\n/g, "\r\n"), "\uFEFF\n" + S.csr],
    iterations: 500,
    run: (t) => parseCsrPem(t, "node.csr"),
  });
});

Deno.test("importPrivateKeyPem() fuzz: PKCS#1, SEC 1 and PKCS#8 keys", async () => {
  await fuzz<string>({
    name: "importPrivateKeyPem",
    samples: S.keys,
    iterations: 750,
    run: (t) => importPrivateKeyPem(t, "ca.key"),
    check: (r) => {
      const k = r as { privateKey: CryptoKey; spki: Uint8Array; description: string };
      assert.equal(k.privateKey.type, "private");
      assert.ok(k.spki.length > 0);
    },
  });
  // DER-level mutations inside a well-formed PEM wrapper reach the ASN.1 key parsers.
  const blocks = S.keys.map((k) => decodePem(k, "k")[0]!);
  await fuzz<Uint8Array>({
    name: "importPrivateKeyPem-der",
    samples: blocks.map((b) => b.der),
    iterations: 750,
    run: (d) => {
      const type = blocks.find((b) => b.der.length === d.length)?.type ?? "PRIVATE KEY";
      const b64 = Buffer.from(d).toString("base64");
      return importPrivateKeyPem(`-----BEGIN ${type}-----\n${b64}\n-----END ${type}-----\n`, "k");
    },
  });
});

Deno.test("extractCertificates() fuzz: PEM, DER, kubeconfig and cluster-info inputs", async () => {
  const kubeconfig =
    `apiVersion: v1\nkind: Config\nclusters:\n- name: k\n  cluster:\n    server: https://10.0.0.1:6443\n    certificate-authority-data: ${
      Buffer.from(S.caCrt).toString("base64")
    }\nusers:\n- name: u\n  user:\n    client-certificate-data: ${
      Buffer.from(S.nodeCrt).toString("base64")
    }\n`;
  const clusterInfo = JSON.stringify({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cluster-info", namespace: "kube-public" },
    data: { kubeconfig },
  });
  await fuzz<Uint8Array>({
    name: "extractCertificates",
    samples: [
      te.encode(S.caCrt),
      te.encode(S.caCrt + S.nodeCrt),
      der(S.caCrt),
      te.encode(kubeconfig),
      te.encode(clusterInfo),
    ],
    iterations: 750,
    maxInput: 16_384,
    run: (b) =>
      extractCertificates({ name: "ca.crt", bytes: b, text: Buffer.from(b).toString("utf8") }, {
        includeClient: true,
      }),
    check: (r) => assert.ok(Array.isArray(r) && r.length > 0),
  });
});

Deno.test("caBundle() and PinSet.allow() fuzz", async () => {
  await fuzz<string>({
    name: "caBundle",
    samples: [S.caCrt, S.caCrt + S.nodeCrt],
    iterations: 750,
    run: (t) => caBundle(t, "ca.crt"),
  });
  const pin = caCertHash(der(S.caCrt));
  await fuzz<string>({
    name: "PinSet.allow",
    samples: [pin, pin.toUpperCase(), "sha256:" + "ab".repeat(32)],
    iterations: 1000,
    // lib/pin.ts quotes the flag value as kubeadm does; main.ts cuts every stderr line.
    maxMessage: Infinity,
    run: (p) => {
      const set = new PinSet();
      set.allow(p);
      return set;
    },
  });
});

Deno.test("readTlv()/children() fuzz: any DER walks to its leaves or fails with a JoinkitError", async () => {
  const walk = (buf: Uint8Array, t: Tlv, depth: number): number => {
    if (depth > 64 || (t.tag & 0x20) === 0) return 1;
    return children(buf, t).reduce((n, c) => n + walk(buf, c, depth + 1), 1);
  };
  await fuzz<Uint8Array>({
    name: "der-walk",
    samples: [der(S.caCrt), der(S.nodeCrt), der(S.csr), ...S.keys.map((k) => der(k))],
    iterations: 1500,
    run: (d) => {
      let n = 0;
      for (let off = 0; off < d.length;) {
        const t = readTlv(d, off);
        n += walk(d, t, 0);
        off = t.end;
      }
      return n;
    },
  });
});

Deno.test("extension and SPKI parsers fuzz: SANs, key usage, EKU, basic constraints, key IDs, keys", async () => {
  const exts = [parseCertificate(der(S.caCrt)), parseCertificate(der(S.nodeCrt))].flatMap((c) =>
    c.extensions.map((e) => e.value)
  );
  const spkis = [der(S.caCrt), der(S.nodeCrt)].map((d) => spkiOf(d));
  const parsers = [
    parseSans,
    parseKeyUsage,
    parseExtKeyUsage,
    parseBasicConstraints,
    parseSubjectKeyId,
    parseAuthorityKeyId,
    describeSpki,
  ] as ((v: Uint8Array) => unknown)[];
  await fuzz<Uint8Array>({
    name: "pkix-extensions",
    samples: [...exts, ...spkis],
    iterations: 1500,
    run: (v) => {
      const out: unknown[] = [];
      let firstError: unknown;
      for (const p of parsers) {
        try {
          out.push(p(v));
        } catch (e) {
          // Each parser may refuse; any refusal must be a JoinkitError (the harness checks).
          if (!(e instanceof Error) || e.name === "TypeError" || e.name === "RangeError") throw e;
          firstError ??= e;
          if (!(e as { exitCode?: number }).exitCode) throw e;
        }
      }
      return out;
    },
  });
});
