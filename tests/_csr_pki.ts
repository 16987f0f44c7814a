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
