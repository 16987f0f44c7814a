/**
 * Test helpers for the CSR/certificate tests: CAs made with openssl (an
 * independent implementation), and a way to run openssl and see its result.
 *
 * @module
 */

import { spawnSync } from "node:child_process";
import * as path from "node:path";

/** Runs a program; returns its exit code and output. */
export function run(cmd: string, args: string[]): { code: number; out: string } {
  const r = spawnSync(cmd, args, { encoding: "utf8" });
  return { code: r.status ?? -1, out: `${r.stdout ?? ""}${r.stderr ?? ""}` };
}

/** Runs openssl and throws if it fails. */
export function openssl(...args: string[]): string {
  const r = run("openssl", args);
  if (r.code !== 0) throw new Error(`openssl ${args.join(" ")} failed: ${r.out}`);
  return r.out;
}

/** Makes a CA with openssl in `dir`: `<name>.crt` and `<name>.key` (PKCS#8). */
export function opensslCa(
  dir: string,
  name: string,
  opts: { type?: "rsa" | "ec"; days?: number; ca?: boolean; cn?: string } = {},
): { crt: string; key: string } {
  const key = path.join(dir, `${name}.key`);
  const crt = path.join(dir, `${name}.crt`);
  if ((opts.type ?? "ec") === "ec") {
    openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key);
  } else {
    openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", key);
  }
  const ext = opts.ca === false ? ["-addext", "basicConstraints=critical,CA:FALSE"] : [
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,digitalSignature,keyEncipherment,keyCertSign",
  ];
  openssl(
    "req",
    "-x509",
    "-new",
    "-key",
    key,
    "-subj",
    `/CN=${opts.cn ?? "kubernetes"}`,
    "-days",
    String(opts.days ?? 3650),
    ...ext,
    "-out",
    crt,
  );
  return { crt, key };
}

/** The directory of committed CSR fixtures (with Go's verdicts in tests/csr_admission_test.ts). */
export const CSR_FIXTURES = path.join(
  path.dirname(new URL(import.meta.url).pathname),
  "fixtures",
  "csr",
);

/**
 * Every CSR the suite uses, as PEM text by name: the committed fixtures, one
 * CSR per key type made by joinkit's own `createCsr` (client and serving
 * shapes), an RSASSA-PSS CSR made by openssl, and a tampered one. The
 * inspect/sign agreement test runs over all of them.
 */
export async function csrCorpus(dir: string): Promise<{ name: string; pem: string }[]> {
  const fs = await import("node:fs");
  const out = fs.readdirSync(CSR_FIXTURES).sort().map((f) => ({
    name: f,
    pem: fs.readFileSync(path.join(CSR_FIXTURES, f), "utf8"),
  }));
  const { createCsr, csrPem } = await import("../lib/kubelet/csr.ts");
  const { exportSpki, generateKeyPair } = await import("../lib/pki/keys.ts");
  for (const t of ["ecdsa-p256", "ecdsa-p384", "rsa-2048", "ed25519"] as const) {
    const kp = await generateKeyPair(t);
    const spki = await exportSpki(kp.publicKey);
    for (const serving of [false, true]) {
      const der = await createCsr(kp.privateKey, spki, {
        commonName: "system:node:gen",
        organization: ["system:nodes"],
        dns: serving ? ["gen.example"] : [],
        ips: serving ? ["10.0.0.9"] : [],
      });
      out.push({ name: `createCsr-${t}-${serving ? "serving" : "client"}`, pem: csrPem(der) });
    }
  }
  if (run("openssl", ["version"]).code === 0) {
    const key = path.join(dir, "corpus-rsa.key");
    const csr = path.join(dir, "corpus-pss.csr");
    openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", key);
    openssl(
      "req",
      "-new",
      "-key",
      key,
      "-subj",
      "/O=system:nodes/CN=system:node:pss",
      "-sigopt",
      "rsa_padding_mode:pss",
      "-sigopt",
      "rsa_pss_saltlen:64",
      "-sha512",
      "-out",
      csr,
    );
    out.push({ name: "openssl-pss-sha512", pem: fs.readFileSync(csr, "utf8") });
  }
  return out;
}
