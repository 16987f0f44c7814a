/**
 * `joinkit download-certs`: what `kubeadm join --control-plane` does with
 * the `kube-system/kubeadm-certs` Secret (its `download-certs` phase), on a
 * manifest file instead of the API: decrypt every entry, check the files
 * kubeadm needs are there, and write them with kubeadm's modes, or compare
 * them with the `pki/` they came from.
 *
 * @module
 */

import * as fs from "node:fs";
import * as path from "node:path";
import { Buffer } from "node:buffer";
import { CheckError, UsageError } from "../lib/base/errors.ts";
import { certificateKeyBytes } from "../lib/pki/aes_gcm.ts";
import {
  certsToTransfer,
  DOWNLOAD_MESSAGE,
  downloadCerts,
  EXTERNAL_ETCD,
  type ExternalEtcd,
  findKubeadmCertsSecret,
  secretBytes,
  secretUsesExternalEtcd,
} from "../lib/phases/upload_certs.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import {
  expectArgs,
  flagBool,
  flagNonEmpty,
  flagSet,
  optionalOutput,
  renderData,
  requireParsed,
} from "./_flags.ts";
import { ensureDir, type OutputFile, writeFilesAtomic } from "./_io.ts";
import { readInput } from "./_read.ts";
import { externalEtcdFlags } from "./upload_certs.ts";

const FLAGS = flagSet("download-certs", [
  ["certificate-key", "the key the Secret was encrypted with, 64 hex (required)"],
  [
    "out-dir",
    "write the files there as kubeadm does into certificatesDir: keys\n0600, certificates and public keys 0644 (directories 0700)",
  ],
  [
    "pki-dir",
    "compare every decrypted file with the one in DIR (the directory it\nwas uploaded from): exit 3 on any difference",
  ],
  ["etcd-cafile", "external etcd: where external-etcd-ca.crt goes (and is compared)"],
  "etcd-certfile",
  "etcd-keyfile",
  ["output", "json or yaml: the report as data (default: a table)"],
  "force",
]);

export const command: Command = {
  name: "download-certs",
  options: FLAGS.options,
  help: `Do what 'kubeadm join --control-plane' does with the kubeadm-certs Secret.

Reads SECRET (a manifest file, or - for stdin; a stream from 'joinkit
upload-certs' is fine: the kube-system/kubeadm-certs Secret is picked out),
then, as kubeadm's download-certs phase:
  - decrypts every non-empty entry with the certificate key (AES-256-GCM,
    nonce|ciphertext|tag); one failure fails all: "error decoding secret
    data with provided key: cipher: message authentication failed";
  - for every file a joining control plane needs (the local-etcd layout, or
    the external-etcd one when the Secret carries external-etcd-* entries):
    missing -> "the Secret does not include the required certificate or key
    - name: …, path: …"; empty -> skipped, as kubeadm skips it; otherwise
    it must be a private key (written 0600) or certificates / public keys
    (written 0644), else "unknown data found in Secret entry".
Then it prints one row per file (name, data key, path, mode, bytes, and with
--pki-dir whether it matches). Nothing secret is printed.

Usage:
  joinkit download-certs SECRET --certificate-key KEY [--out-dir DIR | --pki-dir DIR]

${FLAGS.help}
For an external etcd, --out-dir needs --etcd-cafile/--etcd-certfile/
--etcd-keyfile: the paths kubeadm writes those three to (its config's
etcd.external), as with --pki-dir to compare them. Files under --out-dir are
written in one atomic step and never overwritten without --force.

${EXIT_CODES}
Exit 3 when the key does not open the Secret, a needed entry is missing or
not a key or certificate, or (--pki-dir) a file differs.

Examples:
  joinkit upload-certs --pki-dir pki --certificate-key "$KEY" > certs.yaml
  joinkit download-certs certs.yaml --certificate-key "$KEY" --pki-dir pki
  joinkit download-certs certs.yaml --certificate-key "$KEY" --out-dir /etc/kubernetes/pki
`,
  async run(ctx) {
    expectArgs(ctx, 1, 1, "SECRET");
    const format = optionalOutput(ctx.flags, ["json", "yaml"] as const);
    const outDir = flagNonEmpty(ctx.flags, "out-dir");
    const pkiDir = flagNonEmpty(ctx.flags, "pki-dir");
    const force = flagBool(ctx.flags, "force");
    const flagsEtcd = externalEtcdFlags(ctx);
    const key = requireParsed(ctx.flags, "certificate-key", certificateKeyBytes);

    const input = readInput(ctx.args[0]!);
    const secret = findKubeadmCertsSecret(input.text, input.name);
    const data = secretBytes(secret, input.name);
    const external = secretUsesExternalEtcd(data);
    let etcd: ExternalEtcd | undefined;
    if (external) {
      etcd = flagsEtcd ?? { caFile: "", certFile: "", keyFile: "" };
    } else if (flagsEtcd !== undefined) {
      throw new UsageError(
        `${input.name}: the Secret holds a local etcd CA (etcd-ca.crt), not an external etcd's files: drop the --etcd-* flags`,
      );
    }
    const entries = downloadCerts(data, key, certsToTransfer(etcd));

    // Where each file lands (or is compared): certificatesDir for the usual
    // ones, the configured paths for an external etcd's.
    const target = (e: (typeof entries)[number], dir: string): string | undefined =>
      e.file.inCertDir ? path.join(dir, e.file.path) : e.file.path || undefined;

    const rows = entries.map((e) => {
      const row: Record<string, unknown> = {
        name: e.file.name,
        secretKey: e.file.secretKey,
        path: e.file.path,
        bytes: e.data.length,
        mode: e.mode === undefined ? "skipped (empty)" : "0" + e.mode.toString(8),
      };
      return row;
    });

    if (pkiDir !== undefined) {
      const differ: string[] = [];
      entries.forEach((e, i) => {
        const file = target(e, pkiDir);
        let status: string;
        if (file === undefined) status = "not compared (no path)";
        else if (!fs.existsSync(file)) {
          status = e.data.length === 0 ? "absent, as uploaded" : "absent";
        } else {
          const same =
            Buffer.compare(Buffer.from(readInput(file).bytes), Buffer.from(e.data)) === 0;
          status = same ? "matches" : "differs";
        }
        if (status === "differs" || status === "absent") differ.push(`${e.file.name} ${status}`);
        rows[i]!.pkiDir = status;
      });
      if (differ.length) {
        throw new CheckError(
          `${input.name}: the Secret does not round-trip to ${pkiDir}: ${differ.join(", ")}`,
        );
      }
    }

    if (outDir !== undefined) {
      const files: OutputFile[] = [];
      for (const e of entries) {
        if (e.mode === undefined) continue;
        const file = target(e, outDir);
        if (file === undefined) {
          const flag = e.file.name === EXTERNAL_ETCD.ca
            ? "--etcd-cafile"
            : e.file.name === EXTERNAL_ETCD.cert
            ? "--etcd-certfile"
            : "--etcd-keyfile";
          throw new UsageError(
            `${e.file.name} is in the Secret: give ${flag} to say where it goes`,
          );
        }
        // In the out dir, no link below it is followed (an `etcd` linked elsewhere is refused);
        // an external etcd's files go where their flags say, only the file itself checked.
        files.push({
          path: file,
          data: e.data,
          mode: e.mode,
          ...(e.file.inCertDir ? { root: outDir } : {}),
        });
      }
      for (const f of files) ensureDir(path.dirname(f.path), 0o700, f.root);
      writeFilesAtomic(files, force);
    }
    // Progress only once nothing can fail any more: a refusal stays one line.
    ctx.stderr(DOWNLOAD_MESSAGE);
    if (outDir !== undefined) {
      ctx.stderr(`[download-certs] Saving the certificates to the folder: "${outDir}"`);
    }

    if (format !== undefined) {
      ctx.stdout(await renderData(rows, format));
      return;
    }
    ctx.stdout(table(rows));
  },
};

/** The report as a left-aligned table. */
function table(rows: readonly Record<string, unknown>[]): string {
  const cols = [
    "name",
    "secretKey",
    "mode",
    "bytes",
    ...(rows.some((r) => "pkiDir" in r) ? ["pkiDir"] : []),
  ];
  const head = cols.map((c) =>
    c === "secretKey" ? "DATA KEY" : c === "pkiDir" ? "PKI-DIR" : c.toUpperCase()
  );
  const cells = rows.map((r) => cols.map((c) => String(r[c] ?? "")));
  const widths = cols.map((_, i) => Math.max(head[i]!.length, ...cells.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r.map((c, i) => i === r.length - 1 ? c : c.padEnd(widths[i]! + 2)).join("") + "\n";
  return line(head) + cells.map(line).join("");
}
