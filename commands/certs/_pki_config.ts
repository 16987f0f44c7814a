/**
 * The kubeadm configuration the external-CA and renewal verbs read
 * (`--config`, `--node-name`): the PKI fields of a validated
 * InitConfiguration + ClusterConfiguration, and the tree's files.
 *
 * @module
 */

import * as path from "node:path";
import { InputError } from "../../lib/base/errors.ts";
import {
  CERT_LIST,
  type ControlPlanePkiSpec,
  controlPlanePkiSpec,
  SA_KEY,
  SA_PUB,
} from "../../lib/phases/certlist.ts";
import { KUBECONFIG_LIST } from "../../lib/phases/kubeconfigs.ts";
import type { Context } from "../_command.ts";
import { flagString } from "../_flags.ts";
import { readInput } from "../_io.ts";
import { nodeFs } from "../_read.ts";

/**
 * The spec `--config` gives (kubeadm's loader, defaulting and validation;
 * `--node-name` overrides the file's), or undefined without `--config`.
 * `needAddress`: refuse a file without `localAPIEndpoint.advertiseAddress`
 * (kubeadm would detect it; joinkit cannot).
 */
export async function readPkiConfig(
  ctx: Context,
  needAddress: boolean,
): Promise<ControlPlanePkiSpec | undefined> {
  const file = flagString(ctx.flags, "config");
  if (file === undefined) return undefined;
  const input = readInput(file);
  const { parseManifests } = await import("../../lib/k8s/manifest.ts");
  const { readInitConfiguration } = await import("../../lib/kubeadm/init_config.ts");
  const nodeName = flagString(ctx.flags, "node-name");
  const read = readInitConfiguration(
    parseManifests(input.text, input.name),
    input.name,
    nodeName !== undefined ? { nodeName } : {},
  );
  for (const w of read.warnings) ctx.stderr(w);
  const config = read.config;
  const c = config.cluster;
  if (needAddress && !config.localAPIEndpoint.advertiseAddress) {
    throw new InputError(
      `${input.name}: localAPIEndpoint.advertiseAddress: Required value: joinkit cannot detect the node's address as kubeadm does; set it in the file`,
    );
  }
  return controlPlanePkiSpec({
    nodeName: config.nodeRegistration.name ?? "",
    advertiseAddress: config.localAPIEndpoint.advertiseAddress ?? "",
    bindPort: config.localAPIEndpoint.bindPort,
    controlPlaneEndpoint: c.controlPlaneEndpoint,
    serviceSubnet: c.networking.serviceSubnet,
    dnsDomain: c.networking.dnsDomain,
    clusterName: c.clusterName,
    apiServerCertSANs: c.apiServer.certSANs,
    etcdServerCertSANs: c.etcd.local?.serverCertSANs ?? [],
    etcdPeerCertSANs: c.etcd.local?.peerCertSANs ?? [],
    externalEtcd: c.etcd.external !== undefined,
    encryptionAlgorithm: c.encryptionAlgorithm,
    certificateValidityMs: c.certificateValidityPeriodMs,
    caCertificateValidityMs: c.caCertificateValidityPeriodMs,
  });
}

/** The files of `paths` (relative to `dir`) that exist, read. */
export function readTree(dir: string, paths: readonly string[]): Map<string, Uint8Array> {
  const fs = nodeFs();
  const out = new Map<string, Uint8Array>();
  for (const rel of paths) {
    const full = path.join(dir, rel);
    if (fs.existsSync(full) && fs.statSync(full).isFile()) out.set(rel, readInput(full).bytes);
  }
  return out;
}

/** Every file a kubeadm tree under DIR may hold (pki/, pki/etcd/, the kubeconfigs and their CSRs). */
export function treePaths(): string[] {
  const out = CERT_LIST.flatMap((c) =>
    [".crt", ".key", ".csr"].map((ext) => `pki/${c.baseName}${ext}`)
  );
  out.push(`pki/${SA_KEY}`, `pki/${SA_PUB}`);
  for (const k of KUBECONFIG_LIST) out.push(k.file, `${k.file}.csr`);
  return out;
}
