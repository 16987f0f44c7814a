/**
 * The kubeadm configuration the external-CA and renewal verbs read
 * (`--config`, `--node-name`): the PKI fields of a validated
 * InitConfiguration + ClusterConfiguration, and the tree's files.
 *
 * @module
 */

import * as path from "node:path";
import { InputError, UsageError } from "../../lib/base/errors.ts";
import { parseDuration } from "../../lib/go/duration.ts";
import { effectiveEncryptionAlgorithm } from "../../lib/kubeadm/cluster_config.ts";
import {
  advertiseAddressError,
  CERT_LIST,
  type ControlPlanePkiSpec,
  controlPlanePkiSpec,
  SA_KEY,
  SA_PUB,
  validateControlPlanePkiSpec,
} from "../../lib/phases/certlist.ts";
import { KUBECONFIG_LIST } from "../../lib/phases/kubeconfigs.ts";
import type { ControlPlaneNode } from "../../lib/phases/certs.ts";
import { nodeNameProblem } from "../../lib/kubelet/node_kubeconfig.ts";
import type { Context } from "../_command.ts";
import { flagList, flagString } from "../_flags.ts";
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
  // A malformed --node-name is a usage error, reported before the file is read.
  const nameFlag = flagString(ctx.flags, "node-name");
  if (nameFlag !== undefined) {
    checkFlagValues(controlPlanePkiSpec({ nodeName: nameFlag }), ["node-name"]);
  }
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
  if (needAddress) {
    // As certs generate: an address kubeadm would replace with the host's own, or refuse.
    const why = advertiseAddressError(config.localAPIEndpoint.advertiseAddress ?? "");
    if (why) throw new InputError(`${input.name}: ${why}`);
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
    // The deprecated PublicKeysECDSA gate overrides encryptionAlgorithm (EncryptionAlgorithmType()).
    encryptionAlgorithm: effectiveEncryptionAlgorithm(c),
    certificateValidityMs: c.certificateValidityPeriodMs,
    caCertificateValidityMs: c.caCertificateValidityPeriodMs,
    kubeletLocalMode: c.featureGates.ControlPlaneKubeletLocalMode === true,
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

/** The flags that give configuration values (kubeadm's names; refused next to --config, as kubeadm does). */
export const CONFIG_VALUE_FLAGS = [
  "apiserver-advertise-address",
  "apiserver-bind-port",
  "apiserver-cert-extra-sans",
  "ca-certificate-validity-period",
  "certificate-validity-period",
  "cluster-name",
  "control-plane-endpoint",
  "encryption-algorithm",
  "etcd-peer-cert-extra-sans",
  "etcd-server-cert-extra-sans",
  "service-cidr",
  "service-dns-domain",
] as const;

/**
 * The spec from `--config` (see {@link readPkiConfig}) or, without it, from
 * kubeadm's flags (`--node-name`, `--apiserver-advertise-address`,
 * `--control-plane-endpoint`, …, as `certs generate` takes them). Mixing
 * `--config` with value flags is kubeadm's usage error. `severalNodes`: a
 * node list names the nodes, so the spec's own name and address are neither
 * needed nor allowed as flags.
 */
export async function readPkiSpec(
  ctx: Context,
  severalNodes = false,
): Promise<ControlPlanePkiSpec> {
  const mixed = CONFIG_VALUE_FLAGS.filter((n) => ctx.flags[n] !== undefined);
  if (severalNodes) {
    const one = ["node-name", "apiserver-advertise-address"].filter((n) =>
      ctx.flags[n] !== undefined
    );
    if (one.length) {
      throw new UsageError(
        `--${one[0]} is one node's: with --node or NODES, the list names each node and its address`,
      );
    }
  }
  if (flagString(ctx.flags, "config") !== undefined) {
    if (mixed.length) {
      throw new UsageError(`can not mix '--config' with arguments [${mixed.join(" ")}]`);
    }
    return (await readPkiConfig(ctx, !severalNodes))!;
  }
  const str = (n: string) => flagString(ctx.flags, n);
  const v: Partial<ControlPlanePkiSpec> = {
    apiServerCertSANs: flagList(ctx.flags, "apiserver-cert-extra-sans", true),
    etcdServerCertSANs: flagList(ctx.flags, "etcd-server-cert-extra-sans", true),
    etcdPeerCertSANs: flagList(ctx.flags, "etcd-peer-cert-extra-sans", true),
  };
  const set = <K extends keyof ControlPlanePkiSpec>(
    k: K,
    x: ControlPlanePkiSpec[K] | undefined,
  ) => {
    if (x !== undefined) v[k] = x;
  };
  set("nodeName", str("node-name"));
  set("advertiseAddress", str("apiserver-advertise-address"));
  const port = str("apiserver-bind-port");
  if (port !== undefined) {
    if (!/^\d+$/.test(port)) {
      throw new UsageError(`--apiserver-bind-port: invalid port ${JSON.stringify(port)}`);
    }
    v.bindPort = Number(port);
  }
  set("controlPlaneEndpoint", str("control-plane-endpoint"));
  set("serviceSubnet", str("service-cidr"));
  set("dnsDomain", str("service-dns-domain"));
  set("clusterName", str("cluster-name"));
  set("encryptionAlgorithm", str("encryption-algorithm"));
  for (
    const [flag, key] of [
      ["certificate-validity-period", "certificateValidityMs"],
      ["ca-certificate-validity-period", "caCertificateValidityMs"],
    ] as const
  ) {
    const d = str(flag);
    if (d === undefined) continue;
    try {
      v[key] = parseDuration(d);
    } catch {
      throw new UsageError(`--${flag}: time: invalid duration ${JSON.stringify(d)}`);
    }
  }
  const spec = controlPlanePkiSpec(v);
  // Every malformed value is a usage error, before a missing one is named and before any file is read.
  checkFlagValues(spec, CONFIG_VALUE_FLAGS.filter((n) => ctx.flags[n] !== undefined));
  if (v.nodeName !== undefined) checkFlagValues(spec, ["node-name"]);
  if (!severalNodes && (v.nodeName === undefined || v.advertiseAddress === undefined)) {
    throw new UsageError(
      "give --config FILE, or --node-name and --apiserver-advertise-address (and the other values as flags)",
    );
  }
  return spec;
}

/** kubeadm's field paths (its validation texts start with them) and the flags that give them. */
const FIELD_FLAGS: readonly (readonly [string, string])[] = [
  ["nodeRegistration", "node-name"],
  ["networking.dnsDomain", "service-dns-domain"],
  ["networking.serviceSubnet", "service-cidr"],
  ["apiServer.certSANs", "apiserver-cert-extra-sans"],
  ["controlPlaneEndpoint", "control-plane-endpoint"],
  ["etcd.local.serverCertSANs", "etcd-server-cert-extra-sans"],
  ["etcd.local.peerCertSANs", "etcd-peer-cert-extra-sans"],
  ["encryptionAlgorithm", "encryption-algorithm"],
  ["localAPIEndpoint.advertiseAddress", "apiserver-advertise-address"],
  ["localAPIEndpoint.bindPort", "apiserver-bind-port"],
];

/**
 * Refuses, as a usage error naming the flag, the first value of `flags`
 * (given on the command line) that kubeadm's validation of `spec` refuses
 * (its text after the flag), or an advertise address kubeadm would not use.
 * The same value in a --config file is bad input (exit 1), not this.
 */
function checkFlagValues(spec: ControlPlanePkiSpec, flags: readonly string[]): void {
  if (flags.length === 0) return;
  const errs = validateControlPlanePkiSpec(spec);
  for (const flag of flags) {
    const fields = FIELD_FLAGS.filter(([, f]) => f === flag).map(([field]) => field);
    const e = errs.find((x) => fields.some((f) => x.startsWith(f)));
    if (e !== undefined) throw new UsageError(`--${flag}: ${e}`);
    if (flag === "apiserver-advertise-address") {
      const why = advertiseAddressError(spec.advertiseAddress);
      if (why) throw new UsageError(`--${flag}: ${why}`);
    }
  }
}

/** Most control-plane nodes one run renders (as certs generate). */
export const MAX_NODES = 100;

/**
 * The `--node NAME=ADDRESS` flags (certs generate's form), parsed and
 * checked before any file is read: a malformed one is a usage error.
 */
export function nodeFlags(ctx: Context): ControlPlaneNode[] {
  const out: ControlPlaneNode[] = [];
  for (const v of flagList(ctx.flags, "node")) {
    const m = /^([^=\s]+)=(\S+)$/.exec(v);
    if (!m) throw new UsageError(`--node ${JSON.stringify(v)}: expected NAME=ADDRESS`);
    const name = m[1]!.toLowerCase();
    const why = nodeNameProblem(name);
    if (why) throw new UsageError(`--node ${JSON.stringify(m[1])} cannot be a Node name: ${why}`);
    const spec = controlPlanePkiSpec({ nodeName: name, advertiseAddress: m[2]! });
    const bad = validateControlPlanePkiSpec(spec).find((e) =>
      e.startsWith("localAPIEndpoint.advertiseAddress")
    ) ?? advertiseAddressError(spec.advertiseAddress);
    if (bad) {
      throw new UsageError(`--node ${JSON.stringify(v)}: ${bad}`);
    }
    out.push({ name, advertiseAddress: m[2]! });
  }
  if (out.length > MAX_NODES) throw new UsageError(`more than ${MAX_NODES} nodes`);
  return out;
}

/** A NODES file: one `NAME ADDRESS` or `NAME=ADDRESS` per line, `#` comments (certs generate's). */
export function readNodesFile(file: string): ControlPlaneNode[] {
  const input = readInput(file);
  const out: ControlPlaneNode[] = [];
  for (const [i, raw] of input.text.replace(/^\uFEFF/, "").split(/\r?\n/).entries()) {
    const line = raw.replace(/#.*$/, "").trim();
    if (line === "") continue;
    const m = /^([^=\s]+)(?:\s+|=)(\S+)$/.exec(line);
    if (!m) throw new InputError(`${input.name}:${i + 1}: expected NAME ADDRESS`);
    const why = nodeNameProblem(m[1]!.toLowerCase());
    if (why) throw new InputError(`${input.name}:${i + 1}: not a Node name: ${why}`);
    out.push({ name: m[1]!.toLowerCase(), advertiseAddress: m[2]! });
  }
  if (out.length === 0) throw new InputError(`${input.name}: no nodes`);
  if (out.length > MAX_NODES) throw new InputError(`${input.name}: more than ${MAX_NODES} nodes`);
  return out;
}
