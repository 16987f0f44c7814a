/**
 * The `kubeadm join` line `kubeadm token create --print-join-command` prints
 * (k/k `cmd/kubeadm/app/cmd/util/join.go` template, with every `\`+newline
 * and TAB removed as `token.go` does).
 *
 * @module
 */

import { UsageError } from "../base/errors.ts";

/** Inputs of {@link joinCommand}. */
export interface JoinCommandOptions {
  /** The control-plane `HOST:PORT`. */
  hostPort: string;
  /** The bootstrap token. */
  token: string;
  /** One `sha256:<hex>` pin per CA certificate, in bundle order. */
  caCertHashes: readonly string[];
  /** Join as a control-plane node. */
  controlPlane?: boolean;
  /** The `--certificate-key` (implies `controlPlane`). */
  certificateKey?: string;
}

/** A certificate key as `kubeadm init phase upload-certs` prints it: 32 bytes, hex. */
export const CERTIFICATE_KEY_PATTERN = /^[0-9a-fA-F]{64}$/;

/**
 * The one-line join command, with its trailing newline. Worker lines end
 * with a space after the last hash, as upstream's template leaves them.
 *
 * @example
 * ```ts ignore
 * joinCommand({ hostPort: "10.0.0.1:6443", token, caCertHashes: [pin] });
 * // "kubeadm join 10.0.0.1:6443 --token abcdef.0123456789abcdef --discovery-token-ca-cert-hash sha256:… \n"
 * ```
 */
export function joinCommand(opts: JoinCommandOptions): string {
  if (opts.caCertHashes.length === 0) throw new UsageError("no CA certificate to pin");
  const key = opts.certificateKey ?? "";
  if (key !== "" && !CERTIFICATE_KEY_PATTERN.test(key)) {
    throw new UsageError("--certificate-key must be 64 hex characters (a 32-byte key)");
  }
  const controlPlane = opts.controlPlane === true || key !== "";
  // The template, before token.go strips "\\\n" and "\t".
  let text = `kubeadm join ${opts.hostPort} --token ${opts.token} \\\n\t`;
  for (const h of opts.caCertHashes) text += `--discovery-token-ca-cert-hash ${h} `;
  if (controlPlane) {
    text += `\\\n\t--control-plane `;
    if (key !== "") text += `--certificate-key ${key}`;
  }
  return text.replaceAll("\\\n", "").replaceAll("\t", "") + "\n";
}
